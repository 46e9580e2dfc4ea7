"""The dashboard's GraphQL operations (graphql/*.graphql) on Neo4j beside the embedded store.

    .venv/bin/python bench/bench_neo4j_graphql.py [--notes 10000] [--seconds 3] [--runs 2]
                                                  [--base-src DIR]

Each query document of graphql/ (subscriptions aside) is sent by one keep-alive client, one
request at a time, for `--seconds`, with variables drawn at random from the workspace (a
note's path, an agent, a page, a neighbourhood), against `brain serve` on the seeded
`--notes` workload: the embedded store, Neo4j with this checkout, and (with `--base-src`,
another checkout, e.g. the code before a change) Neo4j with that one; the three are
interleaved, `--runs` times, on the same Neo4j server (BRAIN_BENCH_NEO4J_URI,
BRAIN_TEST_NEO4J_URI or NEO4J_URI). Prints each document's p50/p95 per variant (median over
runs) and the p95 of every request pooled, and writes bench/results/neo4j-graphql.json.
"""

from __future__ import annotations

import argparse
import asyncio
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
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import READY, KeepAliveClient, percentiles  # noqa: E402
from bench_neo4j import cached_workload  # noqa: E402

DOCUMENTS = ROOT / "graphql"


def documents() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(DOCUMENTS.glob("*.graphql"))
            if not re.search(r"^subscription\b", p.read_text(encoding="utf-8"), re.MULTILINE)}


def variables(name: str, root: Path, rng: random.Random) -> dict[str, Any]:
    """Variables for one request of document `name`, as a dashboard would send them."""
    notes = variables.notes  # type: ignore[attr-defined]
    path = rng.choice(notes)
    scope = path.split("/")[1]
    return {
        "memory": {"path": path},
        "memories-page": rng.choice([{}, {"first": 50}, {"filter": {"scope": scope}},
                                     {"filter": {"hasProblems": True}}]),
        "neighborhood": {"id": "memory:" + path[len("memory/"):-3], "depth": rng.choice([1, 2]),
                         "limit": 100},
        "problems": rng.choice([{}, {"first": 20}, {"path": path}]),
    }.get(name, {})


def start(root: Path, store: str, src: Path, uri: str, log: IO[str]) -> tuple[subprocess.Popen[str], str]:
    """`brain serve`, its stderr into `log`: a pipe nobody reads fills (64 KiB of the Neo4j
    driver's notices did) and then blocks the server inside a request, which the client saw
    as a 503 "ran longer than 30 s" with a text body, not JSON."""
    # No semantic search: embedding 10,000 notes in the background would load the machine
    # (and the Neo4j store write vectors) while the documents are timed.
    env = {**os.environ, "PYTHONPATH": str(src), "NEO4J_URI": uri, "BRAIN_RESCAN_SECONDS": "600",
           "BRAIN_SEMANTIC": "off"}
    replace = ["--neo4j-replace"] if store == "neo4j" else []  # the graph another bench left
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--port", "0", "--store", store, *replace],
        stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=src,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 1200
    while time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.5)[0]:
            found = READY.search(process.stdout.readline())
            if found:
                return process, found.group(1)
        if process.poll() is not None:
            log.seek(0)
            raise SystemExit(f"brain serve failed: {log.read()[-4000:]}")
    raise SystemExit("brain serve did not get ready in 20 minutes")


async def measure(url: str, root: Path, seconds: float, seed: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    client = KeepAliveClient(url)
    try:
        for name, document in documents().items():
            rng = random.Random(seed)
            for _ in range(3):  # warm-up: the connection and the server's caches
                await client.post({"query": document, "variables": variables(name, root, rng)})
            samples: list[float] = []
            stop_at = time.perf_counter() + seconds
            while time.perf_counter() < stop_at:
                body = {"query": document, "variables": variables(name, root, rng)}
                started = time.perf_counter()
                status, answer = await client.post(body)
                samples.append(time.perf_counter() - started)
                if status != 200 or "errors" in answer:
                    raise SystemExit(f"{name} failed: {status} {answer}")
            out[name] = samples
    finally:
        client.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--base-src", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    uri = next((os.environ[n] for n in ("BRAIN_BENCH_NEO4J_URI", "BRAIN_TEST_NEO4J_URI", "NEO4J_URI")
                if os.environ.get(n)), None)
    if uri is None:
        raise SystemExit("set BRAIN_BENCH_NEO4J_URI (tools/neo4j/neo4j.sh start prints one)")
    variants: dict[str, tuple[str, Path]] = {"embedded": ("memory", ROOT), "neo4j, this": ("neo4j", ROOT)}
    if args.base_src:
        variants["neo4j, base"] = ("neo4j", args.base_src.resolve())
    runs: dict[str, list[dict[str, list[float]]]] = {v: [] for v in variants}
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"machine: {load_before}", flush=True)
    with tempfile.TemporaryDirectory(prefix="brain-bench-gql-") as scratch, ExitStack() as stack:
        root = Path(shutil.copytree(cached_workload(args.notes, args.cache), Path(scratch) / "ws"))
        variables.notes = sorted(  # type: ignore[attr-defined]
            p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md"))
        for run in range(args.runs):
            for name, (store, src) in variants.items():  # interleaved: the same machine load
                log = stack.enter_context(tempfile.TemporaryFile("w+", prefix="brain-serve-"))
                process, url = start(root, store, src, uri, log)
                try:
                    runs[name].append(asyncio.run(measure(url, root, args.seconds, run)))
                except BaseException:  # say why: the server's own last words
                    process.terminate()
                    process.wait(120)
                    log.seek(0)
                    print(f"{name}: brain serve's stderr ends:\n{log.read()[-4000:]}", flush=True)
                    raise
                finally:
                    process.terminate()
                    process.wait(60)
                print(f"run {run + 1}, {name} done (load {os.getloadavg()[0]:.1f})", flush=True)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"machine: {load_after}", flush=True)
    report: dict[str, Any] = {"notes": args.notes, "seconds": args.seconds, "runs": args.runs,
                              "load_before": load_before, "load_after": load_after, "variants": {}}
    print(f"{'document':<20}" + "".join(f"{v:>26}" for v in variants))
    for document in documents():
        cells = []
        for name in variants:
            figures = [percentiles(r[document]) for r in runs[name]]
            p50 = statistics.median(f["p50_ms"] for f in figures)
            p95 = statistics.median(f["p95_ms"] for f in figures)
            per = report["variants"].setdefault(name, {})
            per[document] = {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
            cells.append(f"p50 {p50:6.2f} p95 {p95:7.2f} ms")
        print(f"{document:<20}" + "".join(f"{c:>26}" for c in cells))
    for name in variants:
        pooled = percentiles([x for r in runs[name] for samples in r.values() for x in samples])
        report["variants"][name]["all"] = pooled
        print(f"every operation pooled, {name}: p50 {pooled['p50_ms']:.2f} ms p95 {pooled['p95_ms']:.2f} ms "
              f"({pooled['n']} requests)")
    out = HERE / "results" / "neo4j-graphql.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
