"""The `brain mcp` subcommand's arguments (parsing only; brain.mcp.transports.stdio does the work)."""

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
    import logging

    from brain import logs
    from brain.cli.version import startup_lines
    from brain.mcp.transports.stdio import cmd_mcp
    from brain.service.options import operator_settings, workspace_root

    # Logs as `brain serve` writes them ([log] format and level), on stderr: stdout is the
    # protocol's. Then what was loaded from where, as serve says it.
    settings = operator_settings(args, workspace_root(args.workspace))
    logs.setup(settings.log.format, settings.log.level, prefix="brain mcp")
    for line in startup_lines(settings):
        logs.event(logging.getLogger("brain.mcp"), logging.INFO, "startup", line)
    return cmd_mcp(args)
