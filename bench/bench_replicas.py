"""Several brain processes on one Neo4j: read throughput, replica visibility, restart time.

    .venv/bin/python bench/bench_replicas.py [--notes 2000] [--runs 3] [--seconds 5]
        [--clients 2] [--warmup 30] [--rates 1 16] [--writes 30] [--replicas 2]
        [--visibility-runs 1] [--restart-notes 10000] [--restart-runs 3]
        [--brain-src DIR]   # visibility and restarts of another checkout too (e.g. the code before)

Neo4j: BRAIN_BENCH_NEO4J_URI / BRAIN_TEST_NEO4J_URI / NEO4J_URI, else the bundled server.
Measured (the database is replaced by the bench's workspace):

* read throughput with 1, 2 and 3 processes on one database (the writer, then one and two
  `--read-only` replicas): `--clients` keep-alive clients per process send the
  memory-with-backlinks query for `--seconds`; total req/s and latency percentiles, median
  of `--runs`, after `--warmup` seconds untimed, the runs of the three interleaved;
* visibility at `--rates` writes per second (1 and 16 by default): notes rewritten on disk,
  and the time until the writer's GraphQL and each of `--replicas` replicas' GraphQL answer
  with the new text (bench/replica_visibility.py), p50/p95; with `--brain-src`, interleaved
  with that checkout's writer and replicas;
* restart of `brain serve --store neo4j` on an unchanged `--restart-notes` workspace:
  process start to the ready line, and the "read in" seconds it prints; with `--brain-src`,
  the same for another checkout of brain, interleaved.

The machine load (`uptime`) is printed before and after: the bench shares the machine.
Writes bench/results/replicas.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import MEMORY, load  # noqa: E402
from bench_neo4j import cached_workload, neo4j_server  # noqa: E402
from replica_visibility import at_rate  # noqa: E402

READY = re.compile(r"ready on (\S+) .* read in ([\d.]+) s")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


@contextmanager
def serve(root: Path, uri: str, *extra: str, src: str | None = None) -> Iterator[tuple[str, float, float]]:
    """`brain serve` on Neo4j: (GraphQL URL, seconds from spawn to ready, its "read in")."""
    # No semantic search: embedding 10,000 notes in the background would load the machine.
    env = {**os.environ, "NEO4J_URI": uri, "BRAIN_SEMANTIC": "off"}
    if src is not None:
        env["PYTHONPATH"] = src
    started = time.perf_counter()
    # Its log into a file: a stderr pipe nobody reads fills (64 KiB) and blocks the server.
    log = tempfile.TemporaryFile("w+", prefix="brain-serve-")  # noqa: SIM115 (closed in finally)
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--port", "0", "--store", "neo4j", *extra],
        stdout=subprocess.PIPE, stderr=log, text=True, env=env,
        cwd=src,  # `python -m` puts the working directory first on sys.path
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.2)[0]:
                found = READY.search(process.stdout.readline())
                if found:
                    break
            if process.poll() is not None:
                log.seek(0)
                raise SystemExit(f"brain serve failed: {log.read()[-4000:]}")
        else:
            raise SystemExit("brain serve did not get ready in 15 minutes")
        yield found.group(1), time.perf_counter() - started, float(found.group(2))
    finally:
        process.terminate()
        process.wait(60)
        log.close()


def throughput(args: argparse.Namespace, root: Path, urls: list[str]) -> dict[str, Any]:
    """Untimed first (all processes for `--warmup` seconds: a fresh server's JIT and each
    process's first reads made the first runs the slow ones, 41 to 65 req/s), then the runs
    interleaved across 1, 2 and 3 processes, so a drift of the machine's load hits each alike."""
    paths = sorted(str(p.relative_to(root)) for p in (root / "memory").glob("*/*.md"))

    def measure(processes: int, seconds: float = args.seconds) -> list[dict[str, float]]:
        async def together() -> list[dict[str, float]]:
            return list(await asyncio.gather(*(
                load(url, lambda rng: {"query": MEMORY, "variables": {"path": rng.choice(paths)}},
                     args.clients, seconds)
                for url in urls[:processes]
            )))
        return asyncio.run(together())

    measure(len(urls), args.warmup)
    runs: dict[int, list[dict[str, float]]] = {processes: [] for processes in (1, 2, 3)}
    for _ in range(args.runs):
        for processes, results in runs.items():
            each = measure(processes)
            results.append({"rps": sum(r["rps"] for r in each),
                            "p50_ms": statistics.median(r["p50_ms"] for r in each),
                            "p95_ms": max(r["p95_ms"] for r in each)})
    out: dict[str, Any] = {}
    for processes, results in runs.items():
        figures: dict[str, Any] = {k: round(statistics.median(r[k] for r in results), 2) for k in results[0]}
        figures["rps_all"] = [round(r["rps"], 1) for r in results]
        out[str(processes)] = figures
        print(f"read throughput, {processes} process(es), {args.clients} clients each: "
              f"{figures['rps']:.0f} req/s (runs {figures['rps_all']}), "
              f"p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms", flush=True)
    return out


def visibility(args: argparse.Namespace, root: Path, uri: str) -> dict[str, Any]:
    """File written -> GraphQL answer on the writer and on each replica, at each of `--rates`
    writes per second (bench/replica_visibility.py); with `--brain-src`, the same for that
    checkout, the two interleaved `--visibility-runs` times (each run: a writer and
    `--replicas` replicas of one checkout, every rate in turn)."""
    sources: dict[str, str | None] = {"this": None}
    if args.brain_src:
        sources["other"] = str(Path(args.brain_src).resolve())
    runs: dict[str, dict[float, list[dict[str, Any]]]] = {n: {r: [] for r in args.rates} for n in sources}
    for run in range(args.visibility_runs):
        for name, src in sources.items():
            with ExitStack() as stack:
                writer = stack.enter_context(serve(root, uri, "--neo4j-replace", src=src))[0]
                replicas = [stack.enter_context(serve(root, uri, "--read-only", src=src))[0]
                            for _ in range(args.replicas)]
                time.sleep(1.0)  # let the replicas' first reads settle
                for rate in args.rates:
                    count = max(args.writes, int(rate * args.rate_seconds))
                    found = asyncio.run(at_rate(root, [writer, *replicas], rate, count, seed=run))
                    runs[name][rate].append(found)
                    w, r = found["file_to_writer"], found["file_to_replica"]
                    print(f"  run {run + 1} {name} {rate:g}/s: file -> writer p50 {w.get('p50_ms', 0):.0f} "
                          f"p95 {w.get('p95_ms', 0):.0f} ms; -> replica p50 {r.get('p50_ms', 0):.0f} "
                          f"p95 {r.get('p95_ms', 0):.0f} ms; unseen {found['unseen_after_timeout']} "
                          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    out: dict[str, Any] = {}
    for name, by_rate in runs.items():
        for rate, results in by_rate.items():
            figures = {
                leg: {k: round(statistics.median(r[leg][k] for r in results if r[leg]), 1)
                      for k in ("p50_ms", "p95_ms")}
                for leg in ("file_to_writer", "file_to_replica")
            }
            figures["unseen"] = sum(r["unseen_after_timeout"] for r in results)
            out.setdefault(name, {})[f"{rate:g}/s"] = figures
            w, r = figures["file_to_writer"], figures["file_to_replica"]
            print(f"visibility ({name}, {rate:g} writes/s, median of {len(results)} runs): file -> writer "
                  f"p50 {w['p50_ms']:.0f} ms p95 {w['p95_ms']:.0f} ms; file -> replica GraphQL "
                  f"p50 {r['p50_ms']:.0f} ms p95 {r['p95_ms']:.0f} ms; "
                  f"unseen {figures['unseen']}", flush=True)
    return out


def restarts(args: argparse.Namespace, uri: str, scratch: Path) -> dict[str, Any]:
    root = Path(shutil.copytree(cached_workload(args.restart_notes, args.cache), scratch / "restart"))
    sources: dict[str, str | None] = {"this": None}
    if args.brain_src:
        sources["other"] = str(Path(args.brain_src).resolve())
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sources}
    # Not interleaved: each version finds the database as it left it. An older brain knows
    # no --neo4j-replace (and clears the database on every start anyway).
    for name, src in sources.items():
        flags = ("--neo4j-replace",) if src is None else ()
        for run in range(args.restart_runs + 1):  # the first: the first ingest, untimed
            with serve(root, uri, *flags, src=src) as (_, spawn_to_ready, read_in):
                if run:
                    runs[name].append((spawn_to_ready, read_in))
    out: dict[str, Any] = {}
    for name, results in runs.items():
        out[name] = {
            "src": sources[name] or str(ROOT),
            "spawn_to_ready_s_median": round(statistics.median(r[0] for r in results), 2),
            "read_in_s_median": round(statistics.median(r[1] for r in results), 2),
            "runs": [[round(a, 2), round(b, 2)] for a, b in results],
        }
        print(f"restart on an unchanged {args.restart_notes}-note workspace ({name}: {out[name]['src']}): "
              f"spawn to ready {out[name]['spawn_to_ready_s_median']:.2f} s, "
              f"read in {out[name]['read_in_s_median']:.2f} s (runs {out[name]['runs']})", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=30.0, help="untimed reads before the throughput runs")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--rates", type=float, nargs="+", default=[1.0, 16.0], help="writes per second")
    parser.add_argument("--writes", type=int, default=30, help="writes per rate (at least)")
    parser.add_argument("--rate-seconds", type=float, default=4.0, help="...or this many seconds of writes")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--visibility-runs", type=int, default=1)
    parser.add_argument("--restart-notes", type=int, default=10_000)
    parser.add_argument("--restart-runs", type=int, default=3)
    parser.add_argument("--brain-src", help="another checkout of brain to time restarts of")
    parser.add_argument("--skip", nargs="*", default=[], choices=("throughput", "visibility", "restart"))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "brain-bench-cache")
    args = parser.parse_args()
    results: dict[str, Any] = {"load_before": uptime()}
    print(f"machine: {results['load_before']}", flush=True)
    with neo4j_server() as uri, tempfile.TemporaryDirectory(prefix="brain-replicas-") as tmp:
        scratch = Path(tmp)
        root = Path(shutil.copytree(cached_workload(args.notes, args.cache), scratch / "workspace"))
        if "throughput" not in args.skip:
            with ExitStack() as stack:
                writer, _, _ = stack.enter_context(serve(root, uri, "--neo4j-replace"))
                replicas = [stack.enter_context(serve(root, uri, "--read-only"))[0] for _ in range(2)]
                results["throughput"] = throughput(args, root, [writer, *replicas])
        if "visibility" not in args.skip:
            results["visibility"] = visibility(args, root, uri)
        if "restart" not in args.skip:
            results["restart"] = restarts(args, uri, scratch)
    results["load_after"] = uptime()
    print(f"machine: {results['load_after']}", flush=True)
    out = HERE / "results" / "replicas.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, **results}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
