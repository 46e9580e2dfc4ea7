"""`brain mcp WORKSPACE --agent NAME`: one agent's MCP server on stdin/stdout.

Desktop clients (Claude Desktop, Claude Code, Cursor) start this process and speak JSON-RPC
on its stdio, so nothing else may be printed on stdout: messages go to stderr. The
workspace is read in the background and then followed like `brain serve` follows it, so
notes another process writes show up (and are announced) here too.
"""

from __future__ import annotations

import argparse
import sys

import anyio
from mcp.server.stdio import stdio_server

from brain.mcp.caller import stdio_caller
from brain.mcp.server import BrainMcp
from brain.service.brain import Brain
from brain.service.watch import Watcher
from brain.tool import Refusal, memory_service
from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.verbs import workspace_layout


def run_stdio(brain: Brain, agent: str, *, rescan_seconds: float = 30.0) -> int:
    try:
        if workspace_layout(brain.root) in ("space", "mindlink"):
            AgentMemory(memory_service(brain)).tree(Actor.open("mcp"), agent, write=False)
        else:
            memory_service(brain).agent_state(agent)
    except Refusal as refusal:
        print(f"brain mcp: {refusal.text()}", file=sys.stderr)
        return 2
    stop = anyio.Event()
    watcher = Watcher(brain, rescan_seconds=rescan_seconds)

    async def follow() -> None:
        await watcher.run(stop)

    server = BrainMcp(brain, lambda _ctx: stdio_caller(agent), background=follow)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.server.run(read, write, server.initialization_options())
        stop.set()

    anyio.run(main)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from brain.search.service import Embedding
    from brain.service.options import open_brain

    brain = open_brain(args)
    brain.embedding = Embedding.HELPER  # a long-lived server: embed out of its process
    try:
        return run_stdio(brain, args.agent)
    finally:
        brain.close()
