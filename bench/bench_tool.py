"""The memory tool through GraphQL and REST against a real `brain serve`: commands/s, latency, and
write-to-graph time.

    .venv/bin/python bench/bench_tool.py [--notes 10000] [--agents 16] [--clients 1 16]
                                         [--seconds 5] [--runs 3] [--writes 40]

The server is a separate process (`python -m brain serve WORKSPACE --port 0`) on the seeded
workload (bench/workload.py) with 16 memory-enabled agents, so 16 concurrent clients are 16
different agents. Each client is one agent making one call at a time over its own HTTP/1.1
keep-alive connection (httpx). Measured, as the median of `--runs` runs of `--seconds` each:

* view (GraphQL `memoryView` / REST `GET /api/memory/<agent>/<file>`): a random own note;
* str_replace (GraphQL `memoryStrReplace`): a random own note's description line edited;
  REST has no str_replace, so its edit is `PUT` of the whole note with `If-Match`;
* view of `/memories` (GraphQL), the index of ~560 own and ~1,000 shared notes.

Every write is the whole path: scope lock, checks, secret scan, atomic replace with fsyncs,
the graph updated, the history record fsynced. Then write-to-graph: from sending a
`memoryStrReplace` to a `memory(path:)` query returning the new description, and to the
`graphChanged` event arriving. Client and server share the machine's cores.
Prints a summary and writes bench/results/tool.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import (  # noqa: E402
    described_events,
    median_of,
    peak_rss_mb,
    percentiles,
    start_server,
    time_effects,
)
from workload import generate  # noqa: E402

VIEW = """mutation($agent: String!, $path: String!) {
  memoryView(agent: $agent, path: $path) { ok text hash refusal { text } }
}"""
REPLACE = """mutation($agent: String!, $path: String!, $old: String!, $new: String!) {
  memoryStrReplace(agent: $agent, path: $path, oldStr: $old, newStr: $new) { ok hash refusal { text } }
}"""
DESCRIPTION = re.compile(r"^description: .*$", re.MULTILINE)

Op = Callable[[httpx.AsyncClient, "Agent", random.Random], Awaitable[None]]


class Agent:
    """One agent's client state: its notes, and the text and hash it last saw of each."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root
        self.files = sorted(p.name for p in (root / "memory" / name).glob("*.md"))
        self.edits = 0

    def description_line(self, file: str) -> str:
        text = (self.root / "memory" / self.name / file).read_text(encoding="utf-8")
        found = DESCRIPTION.search(text)
        assert found is not None, file
        return found.group(0)


def _check(response: httpx.Response, field: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    if response.status_code >= 400 or "errors" in body:
        raise SystemExit(f"call failed: {response.status_code} {body}")
    if field is not None and not body["data"][field]["ok"]:
        raise SystemExit(f"refused: {body['data'][field]['refusal']['text']}")
    return body


async def gql_view(client: httpx.AsyncClient, agent: Agent, rng: random.Random) -> None:
    variables = {"agent": agent.name, "path": f"/memories/{rng.choice(agent.files)}"}
    _check(await client.post("/graphql", json={"query": VIEW, "variables": variables}), "memoryView")


async def gql_index(client: httpx.AsyncClient, agent: Agent, rng: random.Random) -> None:
    variables = {"agent": agent.name, "path": "/memories"}
    _check(await client.post("/graphql", json={"query": VIEW, "variables": variables}), "memoryView")


async def gql_replace(client: httpx.AsyncClient, agent: Agent, rng: random.Random) -> None:
    file = rng.choice(agent.files)
    old = agent.description_line(file)
    agent.edits += 1
    new = re.sub(r"( \[edit \d+\])?$", f" [edit {agent.edits}]", old, count=1)
    variables = {"agent": agent.name, "path": f"/memories/{file}", "old": old, "new": new}
    _check(await client.post("/graphql", json={"query": REPLACE, "variables": variables}), "memoryStrReplace")


async def rest_get(client: httpx.AsyncClient, agent: Agent, rng: random.Random) -> None:
    _check(await client.get(f"/api/memory/{agent.name}/{rng.choice(agent.files)}"))


async def rest_put(client: httpx.AsyncClient, agent: Agent, rng: random.Random) -> None:
    """An edit over REST: the client holds the note and its ETag, and PUTs it back changed."""
    file = rng.choice(agent.files)
    path = agent.root / "memory" / agent.name / file
    raw = path.read_bytes()
    etag = '"' + hashlib.sha256(raw).hexdigest() + '"'
    agent.edits += 1
    text = DESCRIPTION.sub(lambda m: re.sub(r"( \[edit \d+\])?$", f" [edit {agent.edits}]", m.group(0)),
                           raw.decode("utf-8"), count=1)
    _check(await client.put(f"/api/memory/{agent.name}/{file}", content=text.encode("utf-8"),
                            headers={"Content-Type": "text/markdown", "If-Match": etag}))


async def load(url: str, agents: list[Agent], op: Op, clients: int, seconds: float) -> dict[str, float]:
    """`clients` agents, each making one call at a time on its own connection, for `seconds`."""
    latencies: list[float] = []

    async def worker(agent: Agent, seed: int, stop_at: float, record: bool) -> None:
        rng = random.Random(seed)
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            while True:
                started = time.perf_counter()
                await op(client, agent, rng)
                if record:
                    latencies.append(time.perf_counter() - started)
                if not record or time.perf_counter() >= stop_at:
                    return

    chosen = agents[:clients]
    await asyncio.gather(*(worker(a, i, 0.0, False) for i, a in enumerate(chosen)))  # warm up
    started = time.perf_counter()
    await asyncio.gather(*(worker(a, i + 100, started + seconds, True) for i, a in enumerate(chosen)))
    wall = time.perf_counter() - started
    return {**percentiles(latencies), "ops_per_s": len(latencies) / wall}


async def write_to_graph(url: str, agent: Agent, writes: int) -> dict[str, Any]:
    """From sending a str_replace to the graph answering with it, and to its event arriving."""
    rng = random.Random(11)
    visible: list[float] = []
    delivered: list[float] = []
    ws_url = url.replace("http://", "ws://", 1) + "/graphql"
    async with described_events(ws_url) as arrivals, \
            httpx.AsyncClient(base_url=url, timeout=60) as client:
        for i in range(writes):
            file = rng.choice(agent.files)
            old = agent.description_line(file)
            marker = f"bench write {i} {rng.getrandbits(32):08x}"
            variables = {"agent": agent.name, "path": f"/memories/{file}", "old": old,
                         "new": f"description: {marker}"}
            started = time.perf_counter()
            _check(await client.post("/graphql", json={"query": REPLACE, "variables": variables}),
                   "memoryStrReplace")
            rel = f"memory/{agent.name}/{file}"
            seen, event = await time_effects(client, "/graphql", rel, marker, started, arrivals, 0.001)
            visible.append(seen)
            delivered.append(event)
            await asyncio.sleep(0.05)
    return {"query_visible": percentiles(visible), "event_delivered": percentiles(delivered)}


async def measure(args: argparse.Namespace, root: Path, url: str) -> dict[str, Any]:
    info = json.loads((root / ".workload.json").read_text())
    agents = [Agent(name, root) for name in info["agent_names"]]
    if len(agents) < max(args.clients):
        raise SystemExit(f"{len(agents)} agents in the workload, fewer than {max(args.clients)} clients")
    ops: dict[str, Op] = {
        "graphql view (file)": gql_view,
        "graphql str_replace": gql_replace,
        "rest GET (file)": rest_get,
        "rest PUT (edit)": rest_put,
        "graphql view /memories": gql_index,
    }
    results: dict[str, Any] = {}
    for name, op in ops.items():
        for clients in args.clients:
            runs = [await load(url, agents, op, clients, args.seconds) for _ in range(args.runs)]
            summary = median_of(runs)
            results[f"{name}@{clients}"] = summary
            print(f"{name:>24} x{clients:<3} p50 {summary['p50_ms']:7.2f} ms  p95 {summary['p95_ms']:7.2f} ms"
                  f"  p99 {summary['p99_ms']:7.2f} ms  {summary['ops_per_s']:8.1f} ops/s", flush=True)
    live = await write_to_graph(url, agents[0], args.writes)
    for name, figures in live.items():
        print(f"{'write -> ' + name:>28}  p50 {figures['p50_ms']:7.1f} ms  p95 {figures['p95_ms']:7.1f} ms"
              f"  p99 {figures['p99_ms']:7.1f} ms  (n={figures['n']})", flush=True)
    own = statistics.median(len(a.files) for a in agents)
    return {
        "workload": {k: info[k] for k in ("notes", "agents", "shared_notes", "links", "seed")},
        "median_own_notes_per_agent": own, "commands": results, "write_to_graph": live,
    }


def workspace(notes: int, agents: int, cache: Path, scratch: Path) -> Path:
    """A private copy of the cached workload (the benchmark edits notes)."""
    cached = cache / f"workload-{notes}-a{agents}"
    if not (cached / ".workload.json").exists():
        generate(cached, notes, agents=agents)
    return Path(shutil.copytree(cached, scratch / "workspace"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-tool-") as scratch:
        root = workspace(args.notes, args.agents, args.cache, Path(scratch))
        process, url, ingest_s = start_server(root, "memory")
        base = url.removesuffix("/graphql")
        try:
            print(f"brain serve on {args.notes} notes, {args.agents} agents: ready in {ingest_s:.2f} s, "
                  f"{url}", flush=True)
            report = asyncio.run(measure(args, root, base))
            rss = peak_rss_mb(process.pid)
            print(f"server peak RSS {rss:.0f} MB", flush=True)
        finally:
            process.terminate()
            process.wait(30)
    report.update({"cpus": os.cpu_count(), "runs": args.runs, "seconds": args.seconds,
                   "clients": args.clients, "server_peak_rss_mb": round(rss, 1)})
    out = HERE / "results" / "tool.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
