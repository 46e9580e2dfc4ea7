"""Parsing alone, in CPU time: the hot path of ingest, measured so that a busy machine blurs it less.

    .venv/bin/python bench/bench_parse.py [--size 10000] [--notes 3000] [--runs 5]

Parses the first `--notes` memories of the design.md section 7 workload `--runs` times in one
process and prints the fastest and the median run, in µs of CPU a note and notes per CPU
second, for each stage a parse helper runs: `parse_note` (frontmatter, links, headings), the
`secret` rule, `build_memory` (all of a note's work: decoding, parsing, the layout's rules, the
hash), the keyword counts of a chunk, and a helper's whole chunk (reading the files, building,
counting, pickling the results back). Each stage runs on the native scanners (brain/parse/native.py)
and on their Python twins, interleaved run by run, when the native ones are built. Wall-clock
ingest (bench_ingest.py) on a shared machine varies by a factor of two between runs; CPU time
of the same work varies far less, so this is the figure to compare before and after a parser
change. Writes bench/results/parse.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

from brain.index import counting as postings  # noqa: E402
from brain.index.text import title_of  # noqa: E402
from brain.ingest.memory_files import build_memory, shipped  # noqa: E402
from brain.ingest.worker import dump_results  # noqa: E402
from brain.layouts import RuleContext, secrets  # noqa: E402
from brain.layouts.secrets import secret_problems  # noqa: E402
from brain.parse import body as parse  # noqa: E402
from brain.parse import native as native_module  # noqa: E402
from brain.parse.note import parse_note  # noqa: E402

CHUNK = 200  # a parse helper's chunk (brain/ingest/parse_helpers.py)
SCANNERS = {"parse": parse, "secrets": secrets, "postings": postings}


def use_native(on: bool) -> None:
    """The native scanners on (as loaded) or off, in every module that asks for them."""
    for module in SCANNERS.values():
        module.native = native_module.native if on else None  # type: ignore[attr-defined]


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
    files = [(rel, rel.split("/")[1], Path(rel).stem, str(root / rel), 0.0) for _, rel in notes]
    chunks = [files[i : i + CHUNK] for i in range(0, len(files), CHUNK)]
    rules = ("latchai", RuleContext())
    built = [build_memory(rel, "s", "n", raw, 0.0, rules) for raw, rel in notes]
    built_chunks = [built[i : i + CHUNK] for i in range(0, len(built), CHUNK)]

    def helper_chunks() -> None:
        for chunk in chunks:
            results = shipped(chunk, rules, True, True)
            dump_results(results, [f[0] for f in chunk])

    stages: dict[str, Callable[[], object]] = {
        "parse_note": lambda: [parse_note(text, rel) for text, rel in texts],
        "secret rule": lambda: [secret_problems(rel, text) for text, rel in texts],
        "build_memory": lambda: [build_memory(rel, "s", "n", raw, 0.0, rules) for raw, rel in notes],
        "keyword counts": lambda: [  # as a helper counts a chunk
            postings.count_block((title_of(c.memory.name), c.memory.description, c.memory.body)
                                 for c in chunk) for chunk in built_chunks],
        "helper chunk": helper_chunks,
    }
    modes = ["native", "python"] if native_module.native is not None else ["python"]
    report: dict[str, object] = {"notes": len(notes), "runs": args.runs, "stages": {}}
    for stage, work in stages.items():
        runs: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(args.runs):
            for mode in modes:  # interleaved: a slow stretch of the machine hits both
                use_native(mode == "native")
                started = time.process_time()
                work()
                runs[mode].append(time.process_time() - started)
        use_native(True)
        figures = {}
        for mode, times in runs.items():
            best, median = min(times), statistics.median(times)
            figures[mode] = {
                "us_per_note_median": round(median / len(notes) * 1e6, 1),
                "us_per_note_fastest": round(best / len(notes) * 1e6, 1),
                "notes_per_cpu_s_median": round(len(notes) / median),
            }
            print(
                f"{stage:>14} {mode:>6}, {len(notes)} notes: median {figures[mode]['us_per_note_median']} "
                f"µs a note ({figures[mode]['notes_per_cpu_s_median']} notes/CPU-s), fastest "
                f"{figures[mode]['us_per_note_fastest']} µs (runs {[round(r, 3) for r in times]})"
            )
        if len(modes) == 2:
            figures["speedup"] = round(
                figures["python"]["us_per_note_median"] / figures["native"]["us_per_note_median"], 2)
            print(f"{stage:>14} native {figures['speedup']}x the Python scanners")
        report["stages"][stage] = figures  # type: ignore[index]
    out = HERE / "results" / "parse.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
