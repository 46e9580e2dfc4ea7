"""A big change seen by a running Neo4j writer: the copy of the live generation, its phases.

    .venv/bin/python bench/bench_neo4j_copy.py --neo4j-uri bolt://… [--notes 10000]
        [--changed 0.3] [--runs 3] [--brain-src DIR]

A change past `[store] neo4j_atomic_rows` (BRAIN_NEO4J_ATOMIC_ROWS) that a running writer
finds (a branch switch) has no whole graph at hand: the live generation is copied onto the
staged labels, the change is
written onto the copy, and the copy is switched in (brain/store/neo4j/generations/staged.py). Each
run, in a fresh process: a first ingest of the workload (not timed), then `--changed` of
the notes edited on disk (one more link each) and a sync of the same process, forced onto
the generation path (the atomic limit set to 1). Prints the median of the copy, staging,
switch and old-generation deletion seconds and of the whole sync, with the load average;
with `--brain-src` (another checkout, e.g. the code before) the runs alternate between the
two (each going first every other run), so both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

DRIVER = """
import json, sys, time
from dataclasses import replace
from pathlib import Path
from brain.service.brain import Brain
from brain.store.neo4j.store import Neo4jStore

root, uri, share = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
store = Neo4jStore.connect(uri)
store.clear()
brain = Brain(root, store)
brain.sync()
notes = sorted(p for p in (root / "memory").glob("*/*.md"))
changed = notes[:: max(1, round(1 / share))]
for path in changed:
    path.write_text(path.read_text() + "\\nSee also [[bench-copy-target]].\\n")
store.limits = replace(store.limits, atomic_rows=1)
started = time.perf_counter()
brain.sync()
print(json.dumps({"sync_s": time.perf_counter() - started, "changed": len(changed),
                  "rebuilds": store.rebuilds, **store.last_rebuild}))
brain.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changed", type=float, default=0.3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--brain-src", type=Path, help="another checkout, run alternately")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    source = args.cache / f"workload-{args.notes}"
    if not (source / ".workload.json").exists():
        generate(source, args.notes)
    checkouts = {"this": HERE.parent, **({"other": args.brain_src.resolve()} if args.brain_src else {})}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for run in range(args.runs):
        order = list(checkouts.items())
        for name, src in order if run % 2 == 0 else order[::-1]:  # neither always goes first
            with tempfile.TemporaryDirectory(prefix="brain-copy-") as scratch:
                root = Path(shutil.copytree(source, Path(scratch) / "ws"))
                env = {**os.environ, "PYTHONPATH": str(src)}
                out = subprocess.run([sys.executable, "-c", DRIVER, str(root), args.neo4j_uri,
                                      str(args.changed)], check=True, capture_output=True, text=True, env=env)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            results[name].append(result)
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            shown = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                              for k, v in result.items())
            print(f"run {run + 1} {name}: {shown}; load {load}", flush=True)
    for name, runs in results.items():
        keys = [k for k in runs[0] if k.endswith("_s")]
        medians = {k: round(statistics.median(r[k] for r in runs), 2) for k in keys}
        print(f"{name} ({checkouts[name]}), median of {len(runs)}: {json.dumps(medians)}")


if __name__ == "__main__":
    main()
