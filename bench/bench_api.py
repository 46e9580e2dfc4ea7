"""GraphQL latency and throughput, and file-write-to-visible latency, against a real `brain serve`.

    .venv/bin/python bench/bench_api.py [--notes 10000] [--clients 1 8 32] [--seconds 5] [--runs 3]
                                        [--writes 40] [--store memory|neo4j]

The server is a separate process (`python -m brain serve WORKSPACE --port 0`) on the seeded
workload (bench/workload.py); each client is one HTTP/1.1 keep-alive connection with one
request at a time (a lean asyncio client, so the figures are the server's), plus one
graphql-transport-ws subscription. Measured:

* the memory-with-backlinks query (graphql/memory.graphql, a random note each time) and a
  100-memory page with owners (a random page each time), under 1, 8 and 32 concurrent
  clients: p50/p95/p99 latency and requests/s, median of `--runs` runs;
* write-to-visible: from rewriting a note's description on disk to a query returning it,
  and to the `graphChanged` event arriving, over `--writes` writes.

Client and server share the machine's cores, so high-concurrency figures include the
client's own cost. Prints a summary and writes bench/results/api.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from workload import generate  # noqa: E402

from tests.api.client import ws_session  # noqa: E402

MEMORY = (ROOT / "graphql" / "memory.graphql").read_text(encoding="utf-8")
PAGE = """query($after: String) {
  memories(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { id name scope description type age owner { name memoryOff } } }
  }
}"""
EVENTS = """subscription { graphChanged { kind id node { ... on Memory { description } } } }"""
READY = re.compile(r"ready on (\S+) .* read in ([\d.]+) s")

Request = Callable[[random.Random], dict[str, Any]]


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "n": len(ordered)}


def workspace(notes: int, cache: Path, scratch: Path) -> Path:
    """A private copy of the cached workload: the write test edits notes."""
    cached = cache / f"workload-{notes}"
    if not (cached / ".workload.json").exists():
        generate(cached, notes)
    return Path(shutil.copytree(cached, scratch / "workspace"))


def start_server(root: Path, store: str) -> tuple[subprocess.Popen[str], str, float]:
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (lives as long as the server)
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--port", "0", "--store", store],
        # Its log into a file: a stderr pipe nobody reads fills (64 KiB) and blocks the server.
        stdout=subprocess.PIPE, stderr=log, text=True,
        env={**os.environ, "BRAIN_RESCAN_SECONDS": "30"},
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.5)[0]:
            found = READY.search(process.stdout.readline())
            if found:
                return process, found.group(1), float(found.group(2))
        if process.poll() is not None:
            log.seek(0)
            raise SystemExit(f"brain serve failed: {log.read()[-4000:]}")
    raise SystemExit("brain serve did not get ready in 10 minutes")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class KeepAliveClient:
    """A lean HTTP/1.1 keep-alive client: one connection, one request at a time.

    httpx costs a millisecond or more of CPU per request in this process, which on a
    2-core machine shared with the server would measure the client, not the server.
    """

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        body = json.dumps(payload).encode()
        head = (f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        self.writer.write(head.encode() + body)
        await self.writer.drain()
        response = await self.reader.readuntil(b"\r\n\r\n")
        status = int(response.split(b" ", 2)[1])
        length = re.search(rb"(?im)^content-length:\s*(\d+)", response)
        if length is None:
            raise SystemExit(f"a response without Content-Length: {response!r}")
        raw = await self.reader.readexactly(int(length.group(1)))
        try:
            return status, json.loads(raw)
        except ValueError as error:  # say what came instead of JSON, and its head
            raise SystemExit(f"a body that is not JSON ({error}): {response!r} {raw[:300]!r}"
                             f" ... {raw[-300:]!r}") from None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def load(url: str, request: Request, clients: int, seconds: float) -> dict[str, float]:
    """`clients` concurrent clients, each one request at a time, for `seconds`."""
    latencies: list[float] = []
    connections = [KeepAliveClient(url) for _ in range(clients)]

    async def one(client: KeepAliveClient, rng: random.Random, record: bool) -> None:
        started = time.perf_counter()
        status, body = await client.post(request(rng))
        elapsed = time.perf_counter() - started
        if status != 200 or "errors" in body:
            raise SystemExit(f"query failed: {status} {body}")
        if record:
            latencies.append(elapsed)

    async def warm_up(client: KeepAliveClient, seed: int) -> None:
        rng = random.Random(-seed)
        for _ in range(3):  # the connection, and the server's document caches
            await one(client, rng, False)

    async def worker(client: KeepAliveClient, seed: int, stop_at: float) -> None:
        rng = random.Random(seed)
        while time.perf_counter() < stop_at:
            await one(client, rng, True)

    try:
        await asyncio.gather(*(warm_up(c, i) for i, c in enumerate(connections)))
        started = time.perf_counter()
        await asyncio.gather(*(worker(c, i, started + seconds) for i, c in enumerate(connections)))
        wall = time.perf_counter() - started
    finally:
        for client in connections:
            client.close()
    return {**percentiles(latencies), "rps": len(latencies) / wall}


async def page_cursors(url: str) -> list[str | None]:
    cursors: list[str | None] = [None]
    async with httpx.AsyncClient(timeout=60) as client:
        while True:
            body = (await client.post(url, json={"query": PAGE, "variables": {"after": cursors[-1]}})).json()
            info = body["data"]["memories"]["pageInfo"]
            if not info["hasNextPage"]:
                return cursors
            cursors.append(info["endCursor"])


@contextlib.asynccontextmanager
async def described_events(ws_url: str) -> AsyncIterator[dict[str, float]]:
    """Arrival times of graphChanged events, keyed by the memory description they carry."""
    arrivals: dict[str, float] = {}
    async with ws_session(ws_url) as session:
        stream = await session.subscribe(EVENTS)

        async def follow() -> None:
            while True:
                event = (await stream.payload(timeout=3600))["data"]["graphChanged"]
                description = (event.get("node") or {}).get("description")
                if description:
                    arrivals.setdefault(description, time.perf_counter())

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0.2)
        try:
            yield arrivals
        finally:
            follower.cancel()


async def time_effects(
    client: httpx.AsyncClient, url: str, rel: str, marker: str, started: float,
    arrivals: dict[str, float], poll: float,
) -> tuple[float, float]:
    """Seconds from `started` until a query shows `marker` as the description, and until its
    graphChanged event arrived."""
    while True:
        body = (await client.post(url, json={"query": MEMORY, "variables": {"path": rel}})).json()
        if "errors" in body:
            raise SystemExit(f"query failed: {body}")
        if body["data"]["memory"]["description"] == marker:
            visible = time.perf_counter() - started
            break
        await asyncio.sleep(poll)
    deadline = time.perf_counter() + 10
    while marker not in arrivals and time.perf_counter() < deadline:
        await asyncio.sleep(poll)
    if marker not in arrivals:
        raise SystemExit(f"no graphChanged event for the write of {marker!r}")
    return visible, arrivals[marker] - started


async def write_to_visible(url: str, root: Path, paths: list[str], writes: int) -> dict[str, Any]:
    """Rewrite a note's description; time until a query shows it and until its event arrives."""
    visible: list[float] = []
    delivered: list[float] = []
    rng = random.Random(7)
    ws_url = url.replace("http://", "ws://", 1)
    async with described_events(ws_url) as arrivals, httpx.AsyncClient(timeout=60) as client:
        for i in range(writes):
            rel = rng.choice(paths)
            path = root / rel
            marker = f"bench write {i} {rng.getrandbits(32):08x}"
            text = re.sub(r"^description: .*$", f"description: {marker}", path.read_text(encoding="utf-8"),
                          count=1, flags=re.MULTILINE)
            started = time.perf_counter()
            path.write_text(text, encoding="utf-8")
            seen, event = await time_effects(client, url, rel, marker, started, arrivals, 0.002)
            visible.append(seen)
            delivered.append(event)
            await asyncio.sleep(0.25)  # separate writes, so each is its own change
    return {"query_visible": percentiles(visible), "event_delivered": percentiles(delivered)}


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 2) for k in runs[0]}


async def measure(args: argparse.Namespace, root: Path, url: str) -> dict[str, Any]:
    info = json.loads((root / ".workload.json").read_text())
    paths = sorted(str(p.relative_to(root)) for p in (root / "memory").glob("*/*.md"))
    cursors = await page_cursors(url)
    requests: dict[str, Request] = {
        "memory_with_backlinks": lambda rng: {"query": MEMORY, "variables": {"path": rng.choice(paths)}},
        "page_of_100_with_owners": lambda rng: {"query": PAGE, "variables": {"after": rng.choice(cursors)}},
    }
    queries: dict[str, Any] = {}
    for name, request in requests.items():
        for clients in args.clients:
            runs = [await load(url, request, clients, args.seconds) for _ in range(args.runs)]
            summary = median_of(runs)
            queries[f"{name}@{clients}"] = summary
            print(f"{name:>24} x{clients:<3} p50 {summary['p50_ms']:7.2f} ms  p95 {summary['p95_ms']:7.2f} ms"
                  f"  p99 {summary['p99_ms']:7.2f} ms  {summary['rps']:8.1f} req/s", flush=True)
    live = await write_to_visible(url, root, paths, args.writes)
    for name, figures in live.items():
        print(f"{'write -> ' + name:>28}  p50 {figures['p50_ms']:7.1f} ms  p95 {figures['p95_ms']:7.1f} ms"
              f"  p99 {figures['p99_ms']:7.1f} ms  (n={figures['n']})", flush=True)
    return {"workload": {k: info[k] for k in ("notes", "agents", "links", "seed")},
            "queries": queries, "write_to_visible": live}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--store", choices=("memory", "neo4j"), default="memory")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-api-") as scratch:
        run(args, workspace(args.notes, args.cache, Path(scratch)))


def run(args: argparse.Namespace, root: Path) -> None:
    process, url, ingest_s = start_server(root, args.store)
    try:
        files = sum(1 for _ in root.rglob("*") if _.is_file()) - 1
        print(f"brain serve on {args.notes} notes: ready in {ingest_s:.2f} s "
              f"({files / ingest_s:,.0f} files/s), {url}", flush=True)
        report = asyncio.run(measure(args, root, url))
        rss = peak_rss_mb(process.pid)
        print(f"server peak RSS {rss:.0f} MB", flush=True)
    finally:
        process.terminate()
        process.wait(30)
    report.update({
        "cpus": os.cpu_count(), "store": args.store, "runs": args.runs, "seconds": args.seconds,
        "ingest_s": ingest_s, "ingest_files_per_s": round(files / ingest_s),
        "server_peak_rss_mb": round(rss, 1),
    })
    out = HERE / "results" / "api.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
