"""Unlinked mentions and related notes: what they cost (issue 42, items 4 and 5).

    .venv/bin/python bench/bench_mentions.py [--sizes 10000 100000] [--stores memory neo4j]
        [--neo4j-uri bolt://...] [--runs 5] [--sample 100] [--profiles default real]

For each size and store, in a fresh process per run: a full ingest, then the mention sweep of
the whole workspace as `brain check --mentions` runs it (the ingest asked to seed each note's
mentions, brain/ingest/mention_seeds.py; then brain.service.mention_sweep.sweep_mentions),
then `related` for `--sample` notes as each note's own agent (p50/p95).
Runs alternate "ingest" and "seeded ingest + sweep" so load drifts hit both alike; the figure
that matters is what the mentions add to an ingest, seeding and sweep together
(`mentions_cost_share`; the goal: under 10%). One reference sweep (every note read again,
`workspace_mentions`) first: the seeded sweep must find as many mentions. Semantic search is off
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

root, store_kind, uri, mode, sample = (
    Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
mentions = mode != "plain"
if store_kind == "memory":
    from brain.store.memory.store import MemoryStore
    store = MemoryStore()
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    store.clear()
brain = Brain(root, store)
brain.ingester.seed_mentions = mode == "seeded"  # as `brain check --mentions` asks
t0 = time.perf_counter(); brain.sync(); out = {"ingest_s": time.perf_counter() - t0}
memories = store.list_memories(MemoryFilter(), bodies=False)
out["memories"] = len(memories)
if mentions:
    from brain.service.mention_sweep import sweep_mentions
    seeds = brain.ingester.mention_seeds
    t0 = time.perf_counter()
    found_all = (sweep_mentions(store, brain.root, seeds=seeds) if mode == "seeded"
                 else workspace_mentions(store, brain.root))
    count = sum(len(found) for _memory, found in found_all)
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


def run(root: Path, store: str, uri: str, mode: str, sample: int) -> dict[str, object]:
    env = {**os.environ, "BRAIN_SEMANTIC": "off"}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root), store, uri, mode, str(sample)],
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
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip the one reference sweep whose count the seeded sweep must equal")
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
            counts: set[object] = set()
            # The reference sweep (every note read again) once: the seeded one must count as many.
            ref = run(root, store, args.neo4j_uri, "reference", 0) if args.check else None
            for i in range(args.runs):  # interleaved: ingest alone, then seeded ingest + the sweep
                a = run(root, store, args.neo4j_uri, "plain", args.sample if i == 0 else 0)
                plain.append(float(a["ingest_s"]))  # type: ignore[arg-type]
                related += a.get("related_ms", [])  # type: ignore[arg-type]
                b = run(root, store, args.neo4j_uri, "seeded", 0)
                swept.append((float(b["ingest_s"]), float(b["mentions_s"])))  # type: ignore[arg-type]
                counts.add(b["mentions"])
                print(f"  run {i + 1}: {json.dumps({'plain': a, 'seeded': b})[:300]}", flush=True)
            ingest = statistics.median(plain)
            seeded = statistics.median(x for x, _ in swept)
            sweep = statistics.median(s for _, s in swept)
            total = statistics.median(x + s for x, s in swept)
            print(json.dumps({
                "size": size, "profile": profile, "store": store, "runs": args.runs,
                "ingest_s": round(ingest, 2), "seeded_ingest_s": round(seeded, 2),
                "mentions_sweep_s": round(sweep, 2), "sweep_share_of_ingest": round(sweep / ingest, 3),
                # What `brain check --mentions` adds to the ingest: the seeding and the sweep.
                "mentions_cost_share": round(total / ingest - 1, 3),
                "mentions": sorted(counts),
                "reference_mentions": None if ref is None else ref["mentions"],
                "reference_sweep_s": None if ref is None else round(float(ref["mentions_s"]), 2),  # type: ignore[arg-type]
                "related_p50_ms": round(pct(related, 0.5), 1) if related else None,
                "related_p95_ms": round(pct(related, 0.95), 1) if related else None,
                "ingest_runs_s": [round(x, 2) for x in plain],
                "seeded_ingest_runs_s": [round(x, 2) for x, _ in swept],
                "sweep_runs_s": [round(s, 2) for _, s in swept],
                "related_samples": len(related), "load": load(),
            }), flush=True)


if __name__ == "__main__":
    main()
