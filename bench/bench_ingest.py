"""Full ingest, no-change rescan and `brain check` on the design.md section 7 workload.

    .venv/bin/python bench/bench_ingest.py [--sizes 1000 10000 100000] [--runs 3] [--layout space]

`--layout space` runs the same on the space workload (10% of the files not markdown) and
writes bench/results/ingest-space.json; compare files/s and peak RSS with the latchai figures.
`--layout mindlink|lab` runs the latchai workload reshaped into that layout
(bench/workload_layouts.py: the same notes' bytes and mtimes), written to ingest-<layout>.json.

Every run is a fresh process (so peak RSS is that run's own), on a generated workspace that
is cached between runs. Prints medians and writes bench/results/ingest.json.
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
from workload import generate  # noqa: E402
from workload_layouts import RESHAPERS, generate_layout  # noqa: E402

DRIVER = """
import json, resource, sys, time
from pathlib import Path
from brain.service import Brain
brain = Brain(Path(sys.argv[1]))
t0 = time.perf_counter(); first = brain.sync(); t1 = time.perf_counter()
again = brain.sync(); t2 = time.perf_counter()
stats = brain.stats()
self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({
    "ingest_s": t1 - t0, "rescan_s": t2 - t1, "files": first.files, "parsed": first.parsed,
    "rescan_read": again.read, "rescan_parsed": again.parsed,
    "memories": stats.memories, "links": stats.links, "broken": stats.broken,
    "peak_rss_mb": self_rss / 1024, "worker_peak_rss_mb": child_rss / 1024,
}))
"""


def workspace(size: int, cache: Path, layout: str = "latchai") -> Path:
    if layout in RESHAPERS:
        return generate_layout(cache / f"workload-{layout}-{size}", size, layout, cache)
    root = cache / (f"workload-{size}" if layout == "latchai" else f"workload-{layout}-{size}")
    if not (root / ".workload.json").exists():
        generate(root, size, layout=layout)
    return root


def run_once(root: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root)], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    started = time.perf_counter()
    check = subprocess.run(
        [sys.executable, "-m", "brain", "check", str(root), "--format", "json"],
        capture_output=True, text=True,
    )
    result["check_s"] = time.perf_counter() - started
    result["check_exit"] = check.returncode
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--layout", choices=("latchai", "space", *RESHAPERS), default="latchai")
    args = parser.parse_args()
    report: dict[str, object] = {
        "cpus": os.cpu_count(), "runs": args.runs, "layout": args.layout,
        "load_average": list(os.getloadavg()), "sizes": {},
    }
    for size in args.sizes:
        root = workspace(size, args.cache, args.layout)
        runs = [run_once(root) for _ in range(args.runs if size < 100_000 else max(1, args.runs // 2))]
        med = {k: statistics.median(float(r[k]) for r in runs) for k in runs[0]}
        summary = {
            "runs": len(runs),
            "ingest_s_median": round(med["ingest_s"], 3),
            "ingest_files_per_s": round(med["files"] / med["ingest_s"]),
            "rescan_s_median": round(med["rescan_s"], 4),
            "rescan_speedup": round(med["ingest_s"] / med["rescan_s"], 1),
            "check_s_median": round(med["check_s"], 3),
            "peak_rss_mb": round(med["peak_rss_mb"], 1),
            "worker_peak_rss_mb": round(med["worker_peak_rss_mb"], 1),
            "memories": int(med["memories"]),
            "links": int(med["links"]),
            "broken": int(med["broken"]),
            "all_ingest_s": [round(float(r["ingest_s"]), 3) for r in runs],
        }
        report["sizes"][str(size)] = summary  # type: ignore[index]
        print(
            f"{size:>7} notes: ingest {summary['ingest_s_median']} s "
            f"({summary['ingest_files_per_s']} files/s), rescan {summary['rescan_s_median']} s "
            f"({summary['rescan_speedup']}x faster), check {summary['check_s_median']} s, "
            f"peak RSS {summary['peak_rss_mb']} MB (+ workers {summary['worker_peak_rss_mb']} MB)",
            flush=True,
        )
    out = HERE / "results" / ("ingest.json" if args.layout == "latchai" else f"ingest-{args.layout}.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
