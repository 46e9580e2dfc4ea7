"""`brain mcp WORKSPACE --agent NAME`: one agent's MCP server on stdin/stdout.

Desktop clients (Claude Desktop, Claude Code, Cursor) start this process and speak JSON-RPC
on its stdio, so nothing else may be printed on stdout: messages go to stderr. The
workspace is read in the background and then followed like `brain serve` follows it, so
notes another process writes show up (and are announced) here too. A line (one message)
is capped like an HTTP body (BRAIN_MAX_BODY_BYTES) and its nesting like HTTP's, and a line
that is not a message is answered with a JSON-RPC error (brain/mcp/transports/stdio_wire.py).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

import anyio

from brain.api.http.bodylimit import DEFAULT_MAX_BODY_BYTES
from brain.mcp.caller import stdio_caller
from brain.mcp.server import BrainMcp
from brain.mcp.transports.stdio_wire import capped_stdio
from brain.service.brain import Brain
from brain.service.watch import Watcher
from brain.tool import Refusal, memory_service
from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.layouts.verbs import workspace_layout


def run_stdio(
    brain: Brain, agent: str, *, rescan_seconds: float = 30.0, max_line_bytes: int = DEFAULT_MAX_BODY_BYTES
) -> int:
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
        async with capped_stdio(max_line_bytes) as (read, write):
            await server.server.run(read, write, server.initialization_options())
        stop.set()

    anyio.run(main)
    return 0


def stop_on_ctrl_c() -> None:
    """Ctrl-C (SIGINT) stops this server even when it was started with SIGINT ignored.

    A process inherits an ignored SIGINT from whatever started it (a shell's background job,
    a supervisor, a test runner's worker), and Python then leaves it ignored: `brain mcp`
    never stopped on Ctrl-C there and ran until its client closed the pipe. `brain serve`
    (uvicorn) takes SIGINT whatever it inherited; so does this server, like Go's signal.Notify.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def cmd_mcp(args: argparse.Namespace) -> int:
    from brain.search.service import Embedding
    from brain.service.options import open_brain

    stop_on_ctrl_c()
    brain = open_brain(args)
    # The same cap as an HTTP request's body ([serve] max_body_bytes, BRAIN_MAX_BODY_BYTES):
    # one message a line (brain/mcp/transports/stdio_wire.py).
    max_line = brain.settings.serve.max_body_bytes
    brain.embedding = Embedding.HELPER  # a long-lived server: embed out of its process
    try:
        return run_stdio(brain, args.agent, max_line_bytes=max_line)
    finally:
        brain.close()
