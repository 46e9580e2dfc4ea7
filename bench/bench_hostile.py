"""Hostile inputs: time and peak RSS of each case of tests/hostile, before and after a change.

    .venv/bin/python bench/bench_hostile.py [--source DIR] [--seconds 20] [--only NAME ...]

Every case runs in a child process under a hard time and memory limit (tests/hostile/budget.py),
so a case that still explodes shows as TIMEOUT instead of hanging the benchmark. `--source`
imports brain from another checkout (e.g. `git archive <commit> brain | tar -x -C DIR`): that is
how the "before" figures of the hardening issue were taken on the unfixed code.
Prints one line per case and writes bench/results/hostile.json (`--out` another name).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile.budget import MIB, Outcome, brain_case, python_case
from tests.hostile.corpus import check_cases, checked_in

RESULTS = Path(__file__).resolve().parent / "results"

TOOL_WRITE = """
import sys
from pathlib import Path
from brain.service import Brain
from brain.tool.service import MemoryService
from brain.tool.tool import MemoryTool
root = Path({root!r})
brain = Brain(root)
brain.sync()
result = MemoryTool(MemoryService(root, brain)).run(
    "writer", {{"command": "create", "path": "/memories/lol.md", "file_text": sys.stdin.read()}})
print(result.refusal.code.value if result.refusal else "accepted")
"""


def check_case(rel: str, data: bytes, seconds: float, source: Path | None) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix="brain-hostile-"))
    try:
        (root / "memory" / "shared").mkdir(parents=True)
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return brain_case(["check", str(root)], seconds=seconds, memory=2048 * MIB, source=source)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def tool_case(data: bytes, seconds: float, source: Path | None) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix="brain-hostile-"))
    try:
        (root / "agents").mkdir()
        (root / "agents" / "writer.md").write_text("---\ndescription: w\nmemory: true\n---\n")
        (root / "memory" / "writer").mkdir(parents=True)
        code = TOOL_WRITE.format(root=str(root))
        return python_case(code, seconds=seconds, memory=2048 * MIB, stdin=data, source=source)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="import brain from this checkout")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--out", default="hostile.json", help="file name under bench/results/")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []

    def record(name: str, outcome: Outcome) -> None:
        tail = (outcome.stdout + outcome.stderr).strip().splitlines()[-1:] or [""]
        rows.append({"case": name, "seconds": round(outcome.seconds, 3), "timed_out": outcome.timed_out,
                     "returncode": outcome.returncode, "peak_rss_mib": round(outcome.peak_rss_mib, 1),
                     "last_line": tail[0][:200]})
        print(f"{name:32s} {outcome.summary():40s} {tail[0][:90]}", flush=True)

    for case in check_cases():
        if not args.only or case.name in args.only:
            record(f"check:{case.name}", check_case(case.rel, case.data, args.seconds, args.source))
    for name in ("billion-laughs.md", "alias-bomb-mappings.md"):
        if not args.only or f"tool:{name}" in args.only:
            record(f"tool:{name}", tool_case(checked_in(name), args.seconds, args.source))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / args.out
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
