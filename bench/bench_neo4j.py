"""The Neo4j store beside the embedded one, in the same run, on the seeded workload.

    .venv/bin/python bench/bench_neo4j.py [--sizes 1000 10000] [--runs 3] [--edits 30]
                                          [--seconds 5] [--graphql-size 10000]

Neo4j: the server at BRAIN_BENCH_NEO4J_URI (or BRAIN_TEST_NEO4J_URI, NEO4J_URI), else the
bundled one (tools/neo4j/neo4j.sh start, stopped at the end). Measured, for each store:

* full ingest of each size, every run in a fresh process on a fresh copy of the workspace
  (Neo4j: the database cleared first, after one untimed warm-up ingest): seconds, notes/s,
  write transactions, peak RSS;
* incremental update latency in that process: `--edits` single-note changes (an edit that
  adds a link, a new note, a deleted note, in turn), each one `Brain.sync([path])`;
* the memory-with-backlinks GraphQL query (graphql/memory.graphql, a random note each
  time, one client) against `brain serve --store ...` on `--graphql-size` notes.

With `--generation N` (and `--base-src DIR`, another checkout, e.g. the code before), instead:
the generation switch on an N-note workspace (brain/store/neo4j/generations/staged.py), each run in
a fresh process, interleaved between the checkouts: a first ingest, `--edits` single-note
changes (the cost of the lease fence and the change-log entry in the batch's transaction),
`store.stats()` reads, then every note changed on disk and a restart, written as one
transaction (the default at this size) and as a new generation, by both checkouts
(atomic_rows=1, i.e. [store] neo4j_atomic_rows = 1, forces it): total seconds, and its staging, switch and
old-generation deletion.

Prints medians (and p50/p95/p99 where there are many samples) and writes
bench/results/neo4j.json (or neo4j-generation.json). The goal: a 10,000-note ingest into Neo4j within 3x the
embedded store's time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import MEMORY, load, peak_rss_mb, percentiles, start_server  # noqa: E402
from workload import generate  # noqa: E402

STORES = ("memory", "neo4j")
LAUNCHER = ROOT / "tools" / "neo4j" / "neo4j.sh"

# One run in a fresh process: full ingest, then single-note changes, as JSON on stdout.
DRIVER = """
import json, resource, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore

root, kind, uri, edits = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
store = MemoryStore() if kind == "memory" else Neo4jStore.connect(uri)
store.clear()
transactions = lambda: getattr(store, "transactions", getattr(store, "writes", 0))
brain = Brain(root, store)
before = transactions()
started = time.perf_counter()
result = brain.sync()
ingest_s = time.perf_counter() - started
ingest_transactions = transactions() - before
stats = brain.stats()

notes = sorted(p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md"))
latencies, per_change = [], []
for i in range(edits):
    rel = notes[(i * 7919) % len(notes)]
    path = root / rel
    if i % 3 == 0:  # edit: one more link, to a note that does not exist yet
        path.write_text(path.read_text() + f"\\nSee also [[bench-new-{i + 1}]].\\n")
        changed = [rel]
    elif i % 3 == 1:  # a new note, which the previous edit's link was waiting for
        rel = f"{rel.rsplit('/', 1)[0]}/bench-new-{i}.md"
        (root / rel).write_text(f"---\\ndescription: new {i}\\ntype: project\\n---\\n[[{notes[0][:-3]}]]\\n")
        changed = [rel]
    else:  # a deleted note
        path.unlink()
        notes.remove(rel)
        changed = [rel]
    before = transactions()
    started = time.perf_counter()
    brain.sync(changed)
    latencies.append(time.perf_counter() - started)
    per_change.append(transactions() - before)

print(json.dumps({
    "ingest_s": ingest_s, "files": result.files, "memories": stats.memories, "links": stats.links,
    "transactions": ingest_transactions, "change_latencies_s": latencies,
    "change_transactions": per_change,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
store.close()
"""


# One run of the generation bench in a fresh process (either checkout), as JSON on stdout.
GENERATION_DRIVER = """
import json, os, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.store.neo4j.store import Neo4jStore

root, uri, edits, mode = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
force = mode != "0"  # "1": a new generation; "2": one switched in at once (this checkout)
store = Neo4jStore.connect(uri)
store.clear()
brain = Brain(root, store)
started = time.perf_counter()
brain.sync()
ingest_s = time.perf_counter() - started
notes = sorted(p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md"))
latencies = []
for i in range(edits):
    rel = notes[(i * 7919) % len(notes)]
    (root / rel).write_text((root / rel).read_text() + f"\\nedit {i}\\n")
    started = time.perf_counter()
    brain.sync([rel])
    latencies.append(time.perf_counter() - started)
reads = []
for _ in range(30):
    started = time.perf_counter()
    store.stats()
    reads.append(time.perf_counter() - started)
brain.close()
for rel in notes:  # every note changes while brain is down
    (root / rel).write_text((root / rel).read_text() + "\\nrebuilt\\n")
store = Neo4jStore.connect(uri, atomic_rows=1 if force else None)
if mode == "2":
    from dataclasses import replace
    store.limits = replace(store.limits, switch_nodes=10**9)
brain = Brain(root, store)
started = time.perf_counter()
brain.sync()
rewrite_s = time.perf_counter() - started
print(json.dumps({
    "ingest_s": ingest_s, "change_latencies_s": latencies, "stats_latencies_s": reads,
    "rewrite_s": rewrite_s, "rebuilds": getattr(store, "rebuilds", 0),
    "phases": getattr(store, "last_rebuild", {}), "memories": brain.stats().memories,
}))
brain.close()
"""


@contextmanager
def neo4j_server() -> Iterator[str]:
    for name in ("BRAIN_BENCH_NEO4J_URI", "BRAIN_TEST_NEO4J_URI", "NEO4J_URI"):
        if os.environ.get(name):
            yield os.environ[name]
            return
    state = tempfile.mkdtemp(prefix="brain-bench-neo4j-")
    env = {**os.environ, "BRAIN_NEO4J_STATE": state}
    started = subprocess.run(["bash", str(LAUNCHER), "start"], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        raise SystemExit(f"could not start Neo4j: {started.stderr.strip()}")
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", str(LAUNCHER), "stop"], env=env, capture_output=True)
        shutil.rmtree(state, ignore_errors=True)


def cached_workload(size: int, cache: Path, profile: str = "default") -> Path:
    """The seeded workload of `size` notes and `profile` (bench/workload.py), generated once
    into `cache` under the names bench_ingest uses."""
    root = cache / (f"workload-{size}" if profile == "default" else f"workload-{size}-{profile}")
    if not (root / ".workload.json").exists():
        generate(root, size, profile=profile)
    return root


def run_once(source: Path, kind: str, uri: str, edits: int, scratch: Path) -> dict[str, Any]:
    root = Path(shutil.copytree(source, scratch / f"{kind}-copy"))
    try:
        out = subprocess.run(
            [sys.executable, "-c", DRIVER, str(root), kind, uri, str(edits)],
            check=True, capture_output=True, text=True,
        )
    finally:
        shutil.rmtree(root)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def ingest_and_changes(args: argparse.Namespace, uri: str, scratch: Path) -> dict[str, Any]:
    sizes: dict[str, Any] = {}
    if args.warmup:  # a server that has been up for a while has its code compiled (JIT)
        run_once(cached_workload(min(args.sizes), args.cache), "neo4j", uri, 0, scratch)
    for size in args.sizes:
        source = cached_workload(size, args.cache)
        runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in STORES}
        for _ in range(args.runs):
            for kind in STORES:  # interleaved, so both stores see the same machine load
                runs[kind].append(run_once(source, kind, uri, args.edits, scratch))
        figures: dict[str, Any] = {}
        for kind, results in runs.items():
            ingest_s = statistics.median(r["ingest_s"] for r in results)
            changes = [s for r in results for s in r["change_latencies_s"]]
            figures[kind] = {
                "ingest_s_median": round(ingest_s, 3),
                "ingest_s_all": [round(r["ingest_s"], 3) for r in results],
                "notes_per_s": round(results[0]["memories"] / ingest_s),
                "files_per_s": round(results[0]["files"] / ingest_s),
                "transactions": results[0]["transactions"],
                "memories": results[0]["memories"],
                "links": results[0]["links"],
                "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in results), 1),
                "change": {**percentiles(changes), "transactions_each": sorted(
                    {t for r in results for t in r["change_transactions"]})},
            }
        ratio = figures["neo4j"]["ingest_s_median"] / figures["memory"]["ingest_s_median"]
        figures["neo4j_over_memory"] = round(ratio, 2)
        sizes[str(size)] = figures
        for kind in STORES:
            f = figures[kind]
            print(f"{size:>6} notes {kind:>6}: ingest {f['ingest_s_median']:6.2f} s "
                  f"({f['notes_per_s']:>6} notes/s, {f['transactions']} transactions, "
                  f"peak RSS {f['peak_rss_mb']:.0f} MB); one change p50 {f['change']['p50_ms']:.1f} ms "
                  f"p95 {f['change']['p95_ms']:.1f} ms", flush=True)
        print(f"{size:>6} notes: Neo4j ingest takes {ratio:.2f}x the embedded store's time", flush=True)
    return sizes


def graphql_latency(args: argparse.Namespace, uri: str, scratch: Path) -> dict[str, Any]:
    root = Path(shutil.copytree(cached_workload(args.graphql_size, args.cache), scratch / "served"))
    paths = sorted(str(p.relative_to(root)) for p in (root / "memory").glob("*/*.md"))
    out: dict[str, Any] = {}
    os.environ["NEO4J_URI"] = uri
    for kind in STORES:
        process, url, ready_s = start_server(root, kind)
        try:
            runs = [
                asyncio.run(load(url, lambda rng: {"query": MEMORY, "variables": {
                    "path": rng.choice(paths)}}, 1, args.seconds))
                for _ in range(args.runs)
            ]
            figures = {k: round(statistics.median(r[k] for r in runs), 2) for k in runs[0]}
            figures["server_ready_s"] = round(ready_s, 2)
            figures["server_peak_rss_mb"] = round(peak_rss_mb(process.pid), 1)
        finally:
            process.terminate()
            process.wait(30)
        out[kind] = figures
        print(f"memory-with-backlinks on {args.graphql_size} notes, {kind:>6}: "
              f"p50 {figures['p50_ms']:.2f} ms "
              f"p95 {figures['p95_ms']:.2f} ms p99 {figures['p99_ms']:.2f} ms ({figures['rps']:.0f} req/s)",
              flush=True)
    return out


def generation_switch(args: argparse.Namespace, uri: str, scratch: Path) -> dict[str, Any]:
    source = cached_workload(args.generation, args.cache)
    # "1": a new generation (this checkout: switched in pages, as past 100,000 nodes);
    # "2": a new generation switched in one transaction (this checkout only).
    variants = {"this, one transaction": (None, "0"), "this, new generation": (None, "1"),
                "this, new generation, switched at once": (None, "2")}
    if args.base_src:
        base = str(Path(args.base_src).resolve())
        variants["base, one transaction"] = (base, "0")
        variants["base, new generation"] = (base, "1")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, (src, force) in variants.items():  # interleaved: the same machine load
            root = Path(shutil.copytree(source, scratch / "generation"))
            env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
            try:
                out = subprocess.run(
                    [sys.executable, "-c", GENERATION_DRIVER, str(root), uri, str(args.edits), force],
                    check=True, capture_output=True, text=True, env=env, cwd=src,
                )
            finally:
                shutil.rmtree(root)
            runs[name].append(json.loads(out.stdout))
    figures: dict[str, Any] = {"load": os.getloadavg()}
    for name, results in runs.items():
        phases = [r["phases"] for r in results if r["phases"]]
        figures[name] = {
            "ingest_s_median": round(statistics.median(r["ingest_s"] for r in results), 2),
            "rewrite_all_s_median": round(statistics.median(r["rewrite_s"] for r in results), 2),
            "rewrite_all_s_all": [round(r["rewrite_s"], 2) for r in results],
            "rebuilds": results[0]["rebuilds"],
            "phases_s_median": {k: round(statistics.median(p[k] for p in phases), 2)
                                for k in (phases[0] if phases else {})},
            "change": percentiles([x for r in results for x in r["change_latencies_s"]]),
            "stats_read": percentiles([x for r in results for x in r["stats_latencies_s"]]),
        }
        f = figures[name]
        print(f"{args.generation} notes, {name}: first ingest {f['ingest_s_median']:.2f} s; every note "
              f"changed, restart {f['rewrite_all_s_median']:.2f} s {f['phases_s_median'] or ''}; "
              f"one change p50 {f['change']['p50_ms']:.1f} ms p95 {f['change']['p95_ms']:.1f} ms; "
              f"stats() p50 {f['stats_read']['p50_ms']:.1f} ms (load {os.getloadavg()[0]:.1f})",
              flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--graphql-size", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=1, help="untimed Neo4j ingests first (JIT warm-up)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--generation", type=int, help="the generation-switch bench on this many notes")
    parser.add_argument("--base-src", help="with --generation: another checkout to compare with")
    args = parser.parse_args()
    random.seed(0)
    if args.generation:
        with neo4j_server() as uri, tempfile.TemporaryDirectory(prefix="brain-bench-neo4j-") as tmp:
            print(f"Neo4j at {uri}; load {os.getloadavg()}; {args.runs} runs each", flush=True)
            report = generation_switch(args, uri, Path(tmp))
        out = HERE / "results" / "neo4j-generation.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {out}; load {os.getloadavg()}")
        return
    with neo4j_server() as uri, tempfile.TemporaryDirectory(prefix="brain-bench-neo4j-") as tmp:
        print(f"Neo4j at {uri}; {os.cpu_count()} CPUs; {args.runs} runs each", flush=True)
        report = {
            "cpus": os.cpu_count(), "runs": args.runs, "edits": args.edits,
            "ingest": ingest_and_changes(args, uri, Path(tmp)),
            "graphql_memory_with_backlinks": graphql_latency(args, uri, Path(tmp)),
        }
    out = HERE / "results" / "neo4j.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
