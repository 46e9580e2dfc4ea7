"""bench/bench_mentions.py's CPU share of the mentions, base tree against change tree,
interleaved run by run: each round runs, for each shape, one plain ingest (the same code in
both trees: it alternates between them, and all of a shape's plain runs are the denominator)
and one seeded ingest + sweep in each tree, the trees' order flipped each round.

    python bench/mentions_ab.py --trees BASE CHANGE --cache DIR [--runs 7] [--profiles default real]

Prints each run, then per shape and tree the medians: plain ingest CPU, seeded ingest CPU,
sweep CPU, and the share (seeded + sweep over plain, less one), with the load.
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
from bench.bench_mentions import DRIVER


def run(tree: Path, root: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(root), "memory", "", mode, "0"], cwd=tree,
                          check=True, capture_output=True, text=True, env=env)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trees", type=Path, nargs=2, required=True, metavar=("BASE", "CHANGE"))
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profiles", nargs="+", default=["default", "real"], choices=["default", "real"])
    args = parser.parse_args()
    trees = {"base": args.trees[0], "change": args.trees[1]}
    roots = {p: workspace(args.size, args.cache, profile=p) for p in args.profiles}
    plain: dict[str, list[float]] = {p: [] for p in roots}
    seeded: dict[tuple[str, str], list[tuple[float, float, int]]] = {(p, t): [] for p in roots for t in trees}
    loads: list[float] = []
    for i in range(args.runs):
        order = ["base", "change"] if i % 2 == 0 else ["change", "base"]
        for profile, root in roots.items():
            a = run(trees[order[0]], root, "plain")
            plain[profile].append(a["ingest_cpu_s"])
            for name in order:
                b = run(trees[name], root, "seeded")
                seeded[profile, name].append((b["ingest_cpu_s"], b["mentions_cpu_s"], int(b["mentions"])))
                loads.append(b["load"])
                print(f"  run {i + 1} {profile} {name}: plain {a['ingest_cpu_s']:.2f} seeded "
                      f"{b['ingest_cpu_s']:.2f} + sweep {b['mentions_cpu_s']:.2f} ({b['mentions']}) "
                      f"load {b['load']:.1f}", flush=True)
    for profile in roots:
        denominator = statistics.median(plain[profile])
        out: dict[str, object] = {"profile": profile, "size": args.size, "runs": args.runs,
                                  "plain_cpu_s": round(denominator, 2),
                                  "plain_runs": [round(x, 2) for x in plain[profile]]}
        for name in trees:
            got = seeded[profile, name]
            out[name] = {
                "seeded_ingest_cpu_s": round(statistics.median(x for x, _, _ in got), 2),
                "sweep_cpu_s": round(statistics.median(s for _, s, _ in got), 3),
                "share": round(statistics.median(x + s for x, s, _ in got) / denominator - 1, 3),
                "mentions": sorted({m for _, _, m in got}),
            }
        out["load_range"] = [round(min(loads), 1), round(max(loads), 1)]
        out["load_now"] = load()
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
