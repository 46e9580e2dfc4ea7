"""Precision, recall and speed of the secret scanner, on labelled and on real-looking text.

    .venv/bin/python bench/bench_secrets.py [--notes 10000] [DIR ...]

First the labelled corpus of tests/tool/secret_corpus.py: planted secrets of every kind in
prose, code blocks, CI YAML, JSON and shell, and in the disguises docs/security.md promises
to undo (recall), and real-looking notes without a secret: code in several languages, CI
files, prose about secrets (precision). Then every file of examples/workspace and of a
generated benchmark workload (bench/workload.py, `--notes` notes) with the scanner as a
write sees it (every line of the file), once with the raw-line scan only (the scanner before
normalisation) and once with `find_secrets` (NFKC, invisible characters, base64, the
reassembled text). Neither holds a secret, so every hit is a false positive; each is printed
with its file and line so it can be judged. Also prints the scan rate. Writes
bench/results/secrets.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.workload import generate
from brain.parse.secrets.scan import _scan_line, find_secrets
from tests.tool.secret_corpus import NEGATIVES, PLANTED, false_positives, planted_found

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def scan_tree(folder: Path) -> dict[str, Any]:
    files = lines = size = raw_hits = 0
    new_hits: list[str] = []
    seconds = 0.0
    suffixes = (".md", ".yaml", ".json", ".jsonl")
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in suffixes):
        text = path.read_text(encoding="utf-8", errors="replace")
        files += 1
        size += len(text)
        rows = text.split("\n")
        lines += len(rows)
        raw_hits += sum(1 for row in rows if _scan_line(row) is not None)
        started = time.perf_counter()
        hits = find_secrets(text)
        seconds += time.perf_counter() - started
        for hit in hits:
            found = text[hit.start : hit.end][:60]
            new_hits.append(f"{path.relative_to(folder)}:{hit.line}: {hit.kind}: {found!r}")
    return {
        "files": files, "lines": lines, "bytes": size, "raw_scan_hits": raw_hits,
        "normalised_scan_hits": len(new_hits), "hits": new_hits,
        "scan_seconds": round(seconds, 3),
        "mb_per_second": round(size / 1e6 / seconds, 2) if seconds else None,
    }


def labelled() -> dict[str, Any]:
    """Recall on the planted secrets, precision over every report on the corpus."""
    def lines(text: str) -> list[int]:
        return [hit.line for hit in find_secrets(text)]

    found, missed = planted_found(lines)
    false = false_positives(lines)
    reports = found + len(false)
    return {
        "planted": len(PLANTED), "found": found, "missed": missed, "recall": found / len(PLANTED),
        "negatives": len(NEGATIVES), "false_positives": len(false), "false": false,
        "precision": found / reports if reports else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("dirs", nargs="*", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {"labelled corpus": labelled()}
    row = report["labelled corpus"]
    print(f"labelled corpus: recall {row['recall']:.3f} ({row['found']}/{row['planted']} planted), "
          f"precision {row['precision']:.3f} ({row['false_positives']} false positives on "
          f"{row['negatives']} notes); missed: {row['missed']}; false: {row['false']}")
    report["examples/workspace"] = scan_tree(ROOT / "examples" / "workspace")
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "ws", args.notes)
        report[f"workload ({args.notes} notes)"] = scan_tree(Path(tmp) / "ws")
    for folder in args.dirs:
        report[str(folder)] = scan_tree(folder)
    for name, row in report.items():
        if name == "labelled corpus":
            continue
        print(f"{name}: {row['files']} files, {row['lines']} lines, {row['bytes'] / 1e6:.1f} MB; "
              f"false positives: raw scan {row['raw_scan_hits']}, "
              f"normalised scan {row['normalised_scan_hits']}; "
              f"{row['mb_per_second']} MB/s")
        for hit in row["hits"][:20]:
            print("   ", hit)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "secrets.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
