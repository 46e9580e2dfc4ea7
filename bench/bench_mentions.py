"""Unlinked mentions and related notes: what they cost (issue 42, items 4 and 5).

    .venv/bin/python bench/bench_mentions.py [--sizes 10000 100000] [--stores memory neo4j]
        [--neo4j-uri bolt://...] [--runs 5] [--sample 100] [--profiles default real]

For each size and store, in a fresh process per run: a full ingest, then the mention sweep of
the whole workspace (`brain check --mentions`, `maintain --mentions`: brain.service.mentions.
workspace_mentions, exactly as they call it), then `related` for `--sample` notes as each
note's own agent (p50/p95).
Runs alternate "ingest" and "ingest + mentions" so load drifts hit both alike; the figure
that matters is the sweep's share of an ingest (the goal: under 10%). Semantic search is off
(BRAIN_SEMANTIC=off): `related` is then the keyword half, what every store answers; the
semantic half adds one embedding of the note and one vector query.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.bench_ingest import load, workspace

DRIVER = r"""
import json, os, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.service.mentions import related_to, workspace_mentions
from brain.store.base import MemoryFilter
from brain.store.visibility import Reach

root, store_kind, uri, mentions, sample = (
    Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]))
if store_kind == "memory":
    from brain.store.memory.store import MemoryStore
    store = MemoryStore()
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    store.clear()
brain = Brain(root, store)
t0 = time.perf_counter(); brain.sync(); out = {"ingest_s": time.perf_counter() - t0}
memories = store.list_memories(MemoryFilter(), bodies=False)
out["memories"] = len(memories)
if mentions:
    t0 = time.perf_counter()
    count = sum(len(found) for _memory, found in workspace_mentions(store, brain.root))
    out["mentions_s"] = time.perf_counter() - t0
    out["mentions"] = count
if sample:
    step = max(1, len(memories) // sample)
    picked = memories[::step][:sample]
    search = brain.search
    times = []
    for memory in picked:
        reach = Reach.of_agent(memory.scope) if memory.scope != "shared" else Reach.of_agent("nobody")
        t0 = time.perf_counter()
        related_to(search, brain.root, memory, reach=reach, first=10)
        times.append(time.perf_counter() - t0)
    out["related_ms"] = [round(t * 1000, 2) for t in times]
out["load"] = os.getloadavg()[0]
print(json.dumps(out))
brain.close()
"""


def run(root: Path, store: str, uri: str, mentions: bool, sample: int) -> dict[str, object]:
    env = {**os.environ, "BRAIN_SEMANTIC": "off"}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root), store, uri, "1" if mentions else "0", str(sample)],
        check=True, capture_output=True, text=True, env=env,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["memory", "neo4j"])
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_TEST_NEO4J_URI", ""))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profiles", nargs="+", default=["default", "real"], choices=["default", "real"])
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    for size, profile in [(s, p) for s in args.sizes for p in args.profiles]:
        root = workspace(size, args.cache, profile=profile)
        for store in args.stores:
            if store == "neo4j" and not args.neo4j_uri:
                print("neo4j: skipped (no --neo4j-uri / BRAIN_TEST_NEO4J_URI)")
                continue
            plain: list[float] = []
            swept: list[tuple[float, float]] = []
            related: list[float] = []
            for i in range(args.runs):  # interleaved: ingest alone, then ingest + the sweep
                a = run(root, store, args.neo4j_uri, False, args.sample if i == 0 else 0)
                plain.append(float(a["ingest_s"]))  # type: ignore[arg-type]
                related += a.get("related_ms", [])  # type: ignore[arg-type]
                b = run(root, store, args.neo4j_uri, True, 0)
                swept.append((float(b["ingest_s"]), float(b["mentions_s"])))  # type: ignore[arg-type]
                print(f"  run {i + 1}: {json.dumps({'plain': a, 'with_mentions': b})[:300]}", flush=True)
            ingest = statistics.median(plain)
            sweep = statistics.median(s for _, s in swept)
            print(json.dumps({
                "size": size, "profile": profile, "store": store, "runs": args.runs,
                "ingest_s": round(ingest, 2),
                "mentions_sweep_s": round(sweep, 2), "sweep_share_of_ingest": round(sweep / ingest, 3),
                "related_p50_ms": round(pct(related, 0.5), 1) if related else None,
                "related_p95_ms": round(pct(related, 0.95), 1) if related else None,
                "ingest_runs_s": [round(x, 2) for x in plain],
                "sweep_runs_s": [round(s, 2) for _, s in swept],
                "related_samples": len(related), "load": load(),
            }), flush=True)


if __name__ == "__main__":
    main()
