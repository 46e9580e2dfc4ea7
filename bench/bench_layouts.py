"""Full ingest per layout against latchai, interleaved: notes/s and peak RSS, and their ratios.

    .venv/bin/python bench/bench_layouts.py [--size 10000] [--rounds 3] [--layouts latchai mindlink lab]

Each round ingests every layout's workspace once, in turn, each in a fresh process (the
bench_ingest driver), so a machine whose load drifts slows every layout alike; medians per
layout over the rounds, and each layout's figures over latchai's (issue 12 asks for notes/s
and peak RSS within 20%). The load average before each run is recorded with the figures.
Writes bench/results/layouts.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ingest import DRIVER, workspace  # noqa: E402


def ingest_once(root: Path) -> dict[str, float]:
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root)], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    result["load_1m"] = load
    result["notes_per_s"] = result["memories"] / result["ingest_s"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--layouts", nargs="+", default=["latchai", "mindlink", "lab"])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    roots = {layout: workspace(args.size, args.cache, layout) for layout in args.layouts}
    runs: dict[str, list[dict[str, float]]] = {layout: [] for layout in args.layouts}
    for round_no in range(1, args.rounds + 1):
        for layout in args.layouts:
            result = ingest_once(roots[layout])
            runs[layout].append(result)
            print(
                f"round {round_no} {layout:>8}: {result['memories']:.0f} notes in "
                f"{result['ingest_s']:.1f} s ({result['notes_per_s']:.0f} notes/s), peak RSS "
                f"{result['peak_rss_mb']:.1f} MB (+ workers {result['worker_peak_rss_mb']:.1f} MB), "
                f"load {result['load_1m']:.1f}",
                flush=True,
            )
    summary: dict[str, dict[str, float]] = {}
    for layout, results in runs.items():
        summary[layout] = {
            key: round(statistics.median(r[key] for r in results), 3)
            for key in ("notes_per_s", "ingest_s", "peak_rss_mb", "worker_peak_rss_mb", "memories", "load_1m")
        }
    base = summary.get("latchai")
    for layout, figures in summary.items():
        if base is not None:
            figures["notes_per_s_vs_latchai"] = round(figures["notes_per_s"] / base["notes_per_s"], 3)
            figures["peak_rss_vs_latchai"] = round(figures["peak_rss_mb"] / base["peak_rss_mb"], 3)
        print(f"median {layout:>8}: {json.dumps(figures)}")
    report = {
        "size": args.size, "rounds": args.rounds, "cpus": os.cpu_count(), "summary": summary,
        "runs": runs,
    }
    out = HERE / "results" / "layouts.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
