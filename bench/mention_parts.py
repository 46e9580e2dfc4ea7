"""CPU of the Python parts of `brain check --mentions` alone, base against change: `seed_of`
on every note of a seeded sync (brain/parse/mention_seeds.py, the native candidates given
as the sync gave them) and the sweep (brain/service/mention_sweep.py), each timed again
and again in one process. Less noisy on a loaded machine than the share of a whole ingest
(bench/bench_mentions.py), which these parts are a piece of.

    BRAIN_SEMANTIC=off python bench/mention_parts.py --trees BASE CHANGE --root WS [--pairs 4]

Each tree runs in its own fresh process (its code on PYTHONPATH), alternating, `--pairs`
times; a process makes one seeded sync in-process (BRAIN_INGEST_WORKERS=1), then times
`seed_of` over the captured inputs and the sweep, `--rounds` each, and prints the medians
of process CPU with a digest of the answers, which must be the same for both trees.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

DRIVER = r"""
import hashlib, json, os, statistics, sys, time
from pathlib import Path
import brain.ingest.memory_files as files
from brain.service.brain import Brain
from brain.service.mention_sweep import sweep_mentions
from brain.store.memory.store import MemoryStore
root, rounds = Path(sys.argv[1]), int(sys.argv[2])
captured = []
real = files.seed_of
def capture(body, line, words, found=None):
    captured.append((body, line, words, None if found is None else list(found)))
    return real(body, line, words, found)
files.seed_of = capture
brain = Brain(root, MemoryStore()); brain.ingester.seed_mentions = True
brain.sync()
files.seed_of = real
seeds = brain.ingester.mention_seeds
def seeding():
    return [real(b, l, w, None if f is None else list(f)) for b, l, w, f in captured]
def sweep():
    return [(m.id, found) for m, found in sweep_mentions(brain.store, brain.root, seeds=seeds)]
out = {"notes": len(captured)}
for name, part in (("seed_of", seeding), ("sweep", sweep)):
    times, answer = [], None
    for _ in range(rounds):
        c0 = time.process_time(); answer = part(); times.append(time.process_time() - c0)
    out[name + "_cpu_s"] = round(statistics.median(times), 4)
    out[name + "_digest"] = hashlib.sha1(repr(answer).encode()).hexdigest()[:12]
out["mentions"] = sum(len(f) for _i, f in sweep())
out["load"] = os.getloadavg()[0]
print(json.dumps(out))
"""


def run(tree: Path, root: Path, rounds: int) -> dict[str, object]:
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "BRAIN_INGEST_WORKERS": "1", "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(root), str(rounds)], cwd=tree,
                          check=True, capture_output=True, text=True, env=env)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trees", type=Path, nargs=2, required=True, metavar=("BASE", "CHANGE"))
    parser.add_argument("--root", type=Path, nargs="+", required=True, help="workspaces (one a shape)")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for root in args.root:
        got: dict[str, list[dict[str, object]]] = {"base": [], "change": []}
        for i in range(args.pairs):
            order = [("base", args.trees[0]), ("change", args.trees[1])]
            for name, tree in order if i % 2 == 0 else order[::-1]:  # the order flips each pair
                got[name].append(run(tree, root, args.rounds))
                print(f"  {root.name} {name}: {json.dumps(got[name][-1])}", flush=True)
        summary: dict[str, object] = {"root": str(root), "pairs": args.pairs, "rounds": args.rounds}
        for name, runs in got.items():
            for part in ("seed_of", "sweep"):
                times = [float(r[f"{part}_cpu_s"]) for r in runs]  # type: ignore[arg-type]
                summary[f"{name}_{part}_cpu_s"] = round(statistics.median(times), 4)
            summary[f"{name}_digests"] = sorted({f"{r['seed_of_digest']}/{r['sweep_digest']}" for r in runs})
            summary[f"{name}_mentions"] = sorted({int(r["mentions"]) for r in runs})  # type: ignore[call-overload]
        summary["load"] = [r["load"] for rs in got.values() for r in rs]
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
