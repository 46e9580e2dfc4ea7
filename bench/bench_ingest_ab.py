"""Full ingest of two brain source trees, interleaved: is a change faster, on a shared machine?

    .venv/bin/python bench/bench_ingest_ab.py --old /tmp/brain-old --new . [--size 10000]
        [--runs 3] [--iwe /path/to/iwe] [--old-native DIR]

(`git worktree add --detach /tmp/brain-old main` gives an old tree.) Each round runs, for the
old tree and then the new one, bench_ingest's full ingest (a fresh process: files/s, and the
CPU seconds of the ingesting process and of its parse helpers) and `brain ingest --no-cache`
timed from process start to exit; then `iwe count` once when --iwe names it. Both trees use
the native scanners installed in the venv, unless `--old-native` names a folder holding the
old tree's own (`pip install --target DIR /tmp/brain-old/native`): a change to them is then
measured too. Old and new
alternate, so a change of the machine's load hits both; the load average is printed beside
every figure. CPU seconds move less with the load than wall times: compare those first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ingest import DRIVER, workspace  # noqa: E402


def load() -> float:
    return os.getloadavg()[0]


def ingest(tree: Path, root: Path, native: Path | None = None) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (tree, native) if p)}
    before = load()
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root)], env=env, check=True, capture_output=True,
        text=True, cwd=tree,
    )
    result: dict[str, float] = json.loads(out.stdout)
    result["load"] = before
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "brain", "ingest", str(root), "--no-cache"], env=env, check=True,
        capture_output=True, cwd=tree,
    )
    result["process_s"] = time.perf_counter() - started
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path, required=True, help="the old source tree")
    parser.add_argument("--new", type=Path, default=HERE.parent, help="the new source tree")
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--iwe", help="the iwe binary, to time `iwe count` in every round")
    parser.add_argument("--old-native", type=Path, help="a folder with the old tree's brain_native")
    args = parser.parse_args()
    root = workspace(args.size, args.cache)
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    iwe: list[float] = []
    for round_ in range(args.runs):
        for name, tree in trees.items():
            r = ingest(tree, root, args.old_native if name == "old" else None)
            runs[name].append(r)
            print(
                f"round {round_ + 1} {name}: ingest {r['ingest_s']:.2f} s "
                f"({r['files'] / r['ingest_s']:.0f} files/s), CPU {r['cpu_s']:.2f} s "
                f"+ helpers {r['worker_cpu_s']:.2f} s; `brain ingest` {r['process_s']:.2f} s; "
                f"peak RSS {r['peak_rss_mb']:.0f} MB + helpers {r['workers_rss_mb']:.0f} MB; "
                f"load {r['load']:.2f} -> {load():.2f}",
                flush=True,
            )
        if args.iwe:
            started = time.perf_counter()
            subprocess.run([args.iwe, "count"], cwd=root, check=True, capture_output=True)
            iwe.append(time.perf_counter() - started)
            print(f"round {round_ + 1} iwe count {iwe[-1]:.2f} s; load {load():.2f}", flush=True)
    for name, rs in runs.items():
        def med(key: str, rs: list[dict[str, float]] = rs) -> float:
            return statistics.median(r[key] for r in rs)

        line = (
            f"{name}: median ingest {med('ingest_s'):.2f} s "
            f"({statistics.median(r['files'] / r['ingest_s'] for r in rs):.0f} files/s), "
            f"CPU {med('cpu_s'):.2f} s + helpers {med('worker_cpu_s'):.2f} s, "
            f"`brain ingest` {med('process_s'):.2f} s, peak RSS {med('peak_rss_mb'):.0f} MB "
            f"+ helpers {med('workers_rss_mb'):.0f} MB"
        )
        if iwe:
            line += f" ({med('process_s') / statistics.median(iwe):.2f}x `iwe count`)"
        print(line + f"; loads {[round(r['load'], 2) for r in rs]}")
    if iwe:
        print(f"iwe count: median {statistics.median(iwe):.2f} s")


if __name__ == "__main__":
    main()
