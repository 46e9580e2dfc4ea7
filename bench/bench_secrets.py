"""False positives of the secret scanner, before and after normalisation, on real-looking text.

    .venv/bin/python bench/bench_secrets.py [--notes 10000] [DIR ...]

Scans every file of examples/workspace and of a generated benchmark workload (bench/workload.py,
`--notes` notes) with the scanner as a write sees it (every line of the file), once with the
raw-line scan only (the scanner before normalisation) and once with `find_secret` (NFKC,
invisible characters, joined lines, base64). Neither corpus holds a secret, so every hit is a
false positive; each new one is printed with its file and line so it can be judged. Also
prints the scan rate. Writes bench/results/secrets.json.
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
from brain.parse.secret_scan import _scan_line, find_secret

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
        hit = find_secret(text)
        seconds += time.perf_counter() - started
        while hit is not None:
            found = text[hit.start : hit.end][:60]
            new_hits.append(f"{path.relative_to(folder)}:{hit.line}: {hit.kind}: {found!r}")
            after = range(hit.line + 1, len(rows) + 1)
            hit = find_secret(text, after) if after else None
    return {
        "files": files, "lines": lines, "bytes": size, "raw_scan_hits": raw_hits,
        "normalised_scan_hits": len(new_hits), "hits": new_hits,
        "scan_seconds": round(seconds, 3),
        "mb_per_second": round(size / 1e6 / seconds, 2) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("dirs", nargs="*", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {"examples/workspace": scan_tree(ROOT / "examples" / "workspace")}
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "ws", args.notes)
        report[f"workload ({args.notes} notes)"] = scan_tree(Path(tmp) / "ws")
    for folder in args.dirs:
        report[str(folder)] = scan_tree(folder)
    for name, row in report.items():
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
