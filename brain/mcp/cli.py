"""The `brain mcp` subcommand's arguments (parsing only; brain.mcp.stdio does the work)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    from brain.service.options import add_config_option, add_store_options

    mcp = sub.add_parser(
        "mcp",
        help="serve one agent's memory over MCP on stdio (for Claude Desktop, Claude Code, ...)",
        description=(
            "An MCP server on stdin/stdout for one agent: the `memory` tool, read-only graph tools, "
            "notes as memory:// resources and the `your-memory` prompt. Over HTTP the same server "
            "is at /mcp of `brain serve`."
        ),
    )
    env = os.environ.get("BRAIN_WORKSPACE")
    mcp.add_argument("workspace", type=Path, nargs="?", default=Path(env) if env else None)
    mcp.add_argument(
        "--agent", default=os.environ.get("BRAIN_AGENT"), required=not os.environ.get("BRAIN_AGENT"),
        help="the agent this server acts for (default: $BRAIN_AGENT)",
    )
    add_store_options(mcp)
    add_config_option(mcp)


def run(args: argparse.Namespace) -> int:
    from brain.mcp.stdio import cmd_mcp

    return cmd_mcp(args)
