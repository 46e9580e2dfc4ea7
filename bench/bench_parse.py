"""Parsing alone, in CPU time: the hot path of ingest, measured so that a busy machine blurs it less.

    .venv/bin/python bench/bench_parse.py [--size 10000] [--notes 3000] [--runs 5]

Parses the first `--notes` memories of the design.md section 7 workload `--runs` times in one
process and prints the fastest and the median run in notes per CPU second. Wall-clock ingest
(bench_ingest.py) on a shared machine varies by a factor of two between runs; CPU time of the
same work varies far less, so this is the figure to compare before and after a parser change.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

from brain.parse import parse_note  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=3_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    root = args.cache / f"workload-{args.size}"
    if not (root / ".workload.json").exists():
        generate(root, args.size)
    paths = sorted(root.glob("memory/*/*.md"))[: args.notes]
    texts = [(p.read_text(encoding="utf-8"), p.relative_to(root).as_posix()) for p in paths]
    runs: list[float] = []
    for _ in range(args.runs):
        started = time.process_time()
        for text, rel in texts:
            parse_note(text, rel)
        runs.append(time.process_time() - started)
    best, median = min(runs), statistics.median(runs)
    print(
        f"{len(texts)} notes: fastest {len(texts) / best:.0f} notes/CPU-s, "
        f"median {len(texts) / median:.0f} notes/CPU-s (runs {[round(r, 3) for r in runs]})"
    )


if __name__ == "__main__":
    main()
