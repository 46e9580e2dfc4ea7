"""MCP tool-call latency over stdio and streamable HTTP, beside GraphQL and REST for the same calls.

    .venv/bin/python bench/bench_mcp.py [--notes 2000] [--agents 16] [--clients 1 16]
                                        [--seconds 5] [--runs 3]

One seeded workload (bench/workload.py, 16 memory-enabled agents), copied once, serves every
transport, so the figures sit side by side:

* MCP over HTTP: one `brain serve` process; each client is one agent with its own MCP
  session (the official client, `streamable_http_client`) at `/mcp?agent=NAME`;
* MCP over stdio: each client is one agent with its own `brain mcp WORKSPACE --agent NAME`
  process, as a desktop client starts it (all of them read the workspace first, then the
  clock starts);
* GraphQL and REST: bench_tool.py's calls against the same `brain serve`.

Calls: `view` of a random own note, and `str_replace` of a random own note's description
line (REST has no str_replace: a `PUT` of the whole note with `If-Match`). Each client makes
one call at a time; the median of `--runs` runs of `--seconds` each. Clients and servers
share the machine's cores, and the MCP client is Python in this process, so its own cost
is part of each MCP figure (as it is for an agent using it). Prints a summary and writes
bench/results/mcp.json with peak RSS of the HTTP server and of one stdio server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import median_of, peak_rss_mb, percentiles, start_server  # noqa: E402
from bench_tool import Agent, gql_replace, gql_view, load, rest_get, rest_put, workspace  # noqa: E402

McpOp = Callable[[ClientSession, Agent, random.Random], Awaitable[None]]


async def _call(session: ClientSession, args: dict[str, Any]) -> None:
    result = await session.call_tool("memory", args)
    if result.is_error:
        text = "".join(getattr(b, "text", "") for b in result.content)
        raise SystemExit(f"refused: {text}")


async def mcp_view(session: ClientSession, agent: Agent, rng: random.Random) -> None:
    await _call(session, {"command": "view", "path": f"/memories/{rng.choice(agent.files)}"})


async def mcp_replace(session: ClientSession, agent: Agent, rng: random.Random) -> None:
    file = rng.choice(agent.files)
    old = agent.description_line(file)
    agent.edits += 1
    new = re.sub(r"( \[edit \d+\])?$", f" [edit {agent.edits}]", old, count=1)
    args = {"command": "str_replace", "path": f"/memories/{file}", "old_str": old, "new_str": new}
    await _call(session, args)


async def mcp_load(
    sessions: list[ClientSession], agents: list[Agent], op: McpOp, clients: int, seconds: float
) -> dict[str, float]:
    latencies: list[float] = []

    async def worker(session: ClientSession, agent: Agent, seed: int, stop_at: float, record: bool) -> None:
        rng = random.Random(seed)
        while True:
            started = time.perf_counter()
            await op(session, agent, rng)
            if record:
                latencies.append(time.perf_counter() - started)
            if not record or time.perf_counter() >= stop_at:
                return

    pairs = list(zip(sessions[:clients], agents[:clients], strict=True))
    await asyncio.gather(*(worker(s, a, i, 0.0, False) for i, (s, a) in enumerate(pairs)))  # warm up
    started = time.perf_counter()
    await asyncio.gather(*(worker(s, a, i + 100, started + seconds, True) for i, (s, a) in enumerate(pairs)))
    wall = time.perf_counter() - started
    return {**percentiles(latencies), "ops_per_s": len(latencies) / wall}


async def open_http(stack: AsyncExitStack, base: str, agent: str) -> ClientSession:
    http = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(60, read=300)))
    read, write = await stack.enter_async_context(
        streamable_http_client(f"{base}/mcp?agent={agent}", http_client=http)
    )
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def open_stdio(stack: AsyncExitStack, root: Path, agent: str) -> ClientSession:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brain", "mcp", str(root), "--agent", agent],
    )
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def until_read(session: ClientSession) -> None:
    """The server has read the workspace once its graph tools answer."""
    while (await session.call_tool("memory_problems", {"path": "/memories/shared"})).is_error:
        await asyncio.sleep(0.2)


def _print(name: str, clients: int, s: dict[str, float]) -> None:
    print(f"{name:>26} x{clients:<3} p50 {s['p50_ms']:7.2f} ms  p95 {s['p95_ms']:7.2f} ms"
          f"  p99 {s['p99_ms']:7.2f} ms  {s['ops_per_s']:8.1f} ops/s", flush=True)


async def measure(args: argparse.Namespace, root: Path, base: str) -> dict[str, Any]:
    info = json.loads((root / ".workload.json").read_text())
    agents = [Agent(name, root) for name in info["agent_names"]][: max(args.clients)]
    if len(agents) < max(args.clients):
        raise SystemExit(f"{len(agents)} agents in the workload, fewer than {max(args.clients)} clients")
    results: dict[str, Any] = {}

    async def run_mcp(label: str, sessions: list[ClientSession]) -> None:
        for name, op in (("view", mcp_view), ("str_replace", mcp_replace)):
            for clients in args.clients:
                runs = [await mcp_load(sessions, agents, op, clients, args.seconds) for _ in range(args.runs)]
                results[f"{label} {name}@{clients}"] = summary = median_of(runs)
                _print(f"{label} {name}", clients, summary)

    async with AsyncExitStack() as stack:
        sessions = [await open_http(stack, base, a.name) for a in agents]
        await run_mcp("mcp-http", sessions)

    stdio_rss = 0.0
    async with AsyncExitStack() as stack:
        started = time.perf_counter()
        sessions = [await open_stdio(stack, root, a.name) for a in agents]
        await asyncio.gather(*(until_read(s) for s in sessions))
        print(f"{len(sessions)} stdio servers started and read the workspace in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        await run_mcp("mcp-stdio", sessions)
        stdio_rss = _stdio_peak_rss(root)

    url = base
    for name, op in (("graphql view", gql_view), ("graphql str_replace", gql_replace),
                     ("rest GET", rest_get), ("rest PUT (edit)", rest_put)):
        for clients in args.clients:
            runs = [await load(url, agents, op, clients, args.seconds) for _ in range(args.runs)]
            results[f"{name}@{clients}"] = summary = median_of(runs)
            _print(name, clients, summary)
    return {
        "workload": {k: info[k] for k in ("notes", "agents", "shared_notes", "links", "seed")},
        "calls": results, "stdio_server_peak_rss_mb": round(stdio_rss, 1),
    }


def _stdio_peak_rss(root: Path) -> float:
    """The largest peak RSS among this process's `brain mcp` children."""
    peak = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            if b"mcp" in cmdline and str(root).encode() in cmdline:
                peak = max(peak, peak_rss_mb(int(proc.name)))
        except OSError:
            continue
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-mcp-") as scratch:
        root = workspace(args.notes, args.agents, args.cache, Path(scratch))
        process, url, ingest_s = start_server(root, "memory")
        base = url.removesuffix("/graphql")
        try:
            print(f"brain serve on {args.notes} notes, {args.agents} agents: ready in {ingest_s:.2f} s",
                  flush=True)
            report = asyncio.run(measure(args, root, base))
            rss = peak_rss_mb(process.pid)
            print(f"brain serve peak RSS {rss:.0f} MB; one brain mcp (stdio) peak RSS "
                  f"{report['stdio_server_peak_rss_mb']:.0f} MB", flush=True)
        finally:
            process.terminate()
            process.wait(30)
    report.update({"cpus": os.cpu_count(), "runs": args.runs, "seconds": args.seconds,
                   "clients": args.clients, "server_peak_rss_mb": round(rss, 1)})
    out = HERE / "results" / "mcp.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
