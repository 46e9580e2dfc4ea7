"""Where one dashboard request's time goes on Neo4j: round trips and a profile per document.

    .venv/bin/python bench/profile_neo4j_graphql.py [--notes 10000] [--profile default|real]
                     [--requests 30] [--documents memory,entities] [--top 15] [--store neo4j|memory]

The app of `brain serve`, in this process, on the seeded workload (bench/workload.py) and the
Neo4j server of BRAIN_BENCH_NEO4J_URI / BRAIN_TEST_NEO4J_URI / NEO4J_URI. Each document of
graphql/ (subscriptions aside) is asked `--requests` times with bench_neo4j_graphql's
variables, after three warm-up requests; every store call runs inline on the request's
thread (not in a worker thread), so one cProfile sees the whole request. Prints, per
document: the Cypher round trips a request (every `execute_query`, and every statement of a
session's transaction, counted at the driver), ms a request (under the profiler: slower than
served, for comparing parts, not for p95) and the profile's top items by own time and by
cumulative time. issue 43 goal 4 asks where the time goes when 10 ms p95 is not met.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import random
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
import anyio.to_thread  # noqa: E402
import bench_neo4j_graphql as served  # noqa: E402
import httpx  # noqa: E402
from bench_neo4j import cached_workload  # noqa: E402

from brain.store.neo4j.counting import RoundTrips  # noqa: E402


async def _inline(fn: Callable[[], Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args)


def open_brain(root: Path, store_name: str, uri: str) -> tuple[Any, RoundTrips | None]:
    from brain.config.operator import OperatorSettings, load_budgets
    from brain.service.brain import Brain
    from brain.store.memory.store import MemoryStore
    from brain.store.neo4j.store import Neo4jStore

    trips: RoundTrips | None = None
    if store_name == "neo4j":
        store: Any = Neo4jStore.connect(uri)
        store.replace_foreign = True  # as `brain serve --neo4j-replace`: the graph a test left
        trips = RoundTrips.around(store)
    else:
        store = MemoryStore()
    brain = Brain(root, store, cache=True, settings=OperatorSettings(budgets=load_budgets(os.environ)))
    started = time.perf_counter()
    brain.open_snapshot()
    brain.sync()
    print(f"synced in {time.perf_counter() - started:.1f} s", flush=True)
    return brain, trips


async def run(args: argparse.Namespace, brain: Any, trips: RoundTrips | None, root: Path) -> None:
    from brain.api.graphql.context import ApiSettings, Services
    from brain.api.http.app import create_app
    from brain.api.http.auth import TokenRegistry
    from brain.api.http.events import ChangeHub

    services = Services(brain=brain, hub=ChangeHub(brain), tokens=TokenRegistry(), settings=ApiSettings(),
                        watcher=None)
    app = create_app(services)
    transport = httpx.ASGITransport(app=app)
    anyio.to_thread.run_sync = _inline  # type: ignore[assignment]  # one thread: one profile
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for name, document in served.documents().items():
            rng = random.Random(1)

            async def ask(name: str = name, document: str = document, rng: random.Random = rng) -> None:
                body = {"query": document, "variables": served.variables(name, root, rng)}
                response = await client.post("/graphql", json=body)
                if response.status_code != 200 or "errors" in response.json():
                    raise SystemExit(f"{name}: {response.status_code} {response.text[:500]}")

            for _ in range(3):
                await ask()
            await report(name, ask, args, trips)


async def report(name: str, ask: Callable[[], Awaitable[None]], args: argparse.Namespace,
                 trips: RoundTrips | None) -> None:
    cpu = time.process_time()
    for _ in range(args.requests):  # unprofiled: this process's CPU a request (the server's)
        await ask()
    cpu_ms = (time.process_time() - cpu) * 1000 / args.requests
    profile = cProfile.Profile()
    if not args.top:  # round trips and CPU only
        profile = None  # type: ignore[assignment]
    counted = trips.total() if trips else 0
    if trips:
        trips.reset()
        counted = 0
    started = time.perf_counter()
    for _ in range(args.requests):
        if profile is not None:
            profile.enable()
        await ask()
        if profile is not None:
            profile.disable()
    ms = (time.perf_counter() - started) * 1000 / args.requests
    per = ((trips.total() - counted) / args.requests) if trips else 0.0
    print(f"\n=== {name}: {per:.2f} round trips a request, CPU {cpu_ms:.2f} ms a request unprofiled, "
          f"{ms:.2f} ms a request profiled", flush=True)
    if trips:
        for query, n in trips.queries.most_common():
            print(f"  {n / args.requests:5.2f} a request: {query}")
    for order in ("tottime", "cumulative") if profile is not None else ():
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.top)
        lines = out.getvalue().splitlines()
        start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
        print(f"--- by {order}")
        print("\n".join(line[:170] for line in lines[start:] if line.strip()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--profile", choices=("default", "real"), default="default")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--documents", default="memories-page,memory,neighborhood,entities")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--store", choices=("neo4j", "memory"), default="neo4j")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--workspace", type=Path, help="a copy to serve, kept between runs "
                        "(default: a copy under /tmp named by size and profile)")
    args = parser.parse_args()
    uri = next((os.environ[n] for n in ("BRAIN_BENCH_NEO4J_URI", "BRAIN_TEST_NEO4J_URI", "NEO4J_URI")
                if os.environ.get(n)), "")
    if args.store == "neo4j" and not uri:
        raise SystemExit("set BRAIN_BENCH_NEO4J_URI (tools/neo4j/neo4j.sh start prints one)")
    served.documents.only = tuple(filter(None, args.documents.split(",")))  # type: ignore[attr-defined]
    source = cached_workload(args.notes, args.cache, args.profile)
    root = args.workspace or Path(f"/tmp/brain-profile-gql-{args.notes}-{args.profile}")
    if not root.exists():
        shutil.copytree(source, root)
    served.variables.notes = sorted(  # type: ignore[attr-defined]
        p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md"))
    brain, trips = open_brain(root, args.store, uri)
    try:
        asyncio.run(run(args, brain, trips, root))
    finally:
        brain.close()


if __name__ == "__main__":
    main()
