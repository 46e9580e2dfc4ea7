"""Parsing alone, in CPU time: the hot path of ingest, measured so that a busy machine blurs it less.

    .venv/bin/python bench/bench_parse.py [--size 10000] [--notes 3000] [--runs 5]

Parses the first `--notes` memories of the design.md section 7 workload `--runs` times in one
process and prints the fastest and the median run in notes per CPU second, for each stage a
parse helper runs: `parse_note` (frontmatter, links, headings), the `secret` rule, and
`build_memory` (all of a note's work: decoding, parsing, the layout's rules, the hash). Wall-clock ingest
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

from brain.layouts import RuleContext  # noqa: E402
from brain.layouts.secrets import secret_problems  # noqa: E402
from brain.memory_files import build_memory  # noqa: E402
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
    notes = [(p.read_bytes(), p.relative_to(root).as_posix()) for p in paths]
    texts = [(raw.decode("utf-8"), rel) for raw, rel in notes]
    rules = ("latchai", RuleContext())
    stages = {
        "parse_note": lambda: [parse_note(text, rel) for text, rel in texts],
        "secret rule": lambda: [secret_problems(rel, text) for text, rel in texts],
        "build_memory": lambda: [build_memory(rel, "s", "n", raw, 0.0, rules) for raw, rel in notes],
    }
    for stage, work in stages.items():
        runs: list[float] = []
        for _ in range(args.runs):
            started = time.process_time()
            work()
            runs.append(time.process_time() - started)
        best, median = min(runs), statistics.median(runs)
        print(
            f"{stage:>12}, {len(texts)} notes: fastest {len(texts) / best:.0f} notes/CPU-s, "
            f"median {len(texts) / median:.0f} notes/CPU-s (runs {[round(r, 3) for r in runs]})"
        )


if __name__ == "__main__":
    main()
