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
from tests.hostile.corpus import check_cases, checked_in, deep_json_object
from tests.hostile.lsp_cases import CASES as LSP_CASES

REPO = Path(__file__).resolve().parent.parent

RESULTS = Path(__file__).resolve().parent / "results"

TOOL_WRITE = """
import sys
from pathlib import Path
from brain.service.brain import Brain
from brain.tool.service import MemoryService
from brain.tool.calls.tool import MemoryTool
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


def script_case(module: str, args: list[str], seconds: float, source: Path | None) -> Outcome:
    """A conversation script of tests/hostile (lsp_cases, serve_case); its servers use `source`."""
    env = f"import os\nos.environ['BRAIN_HOSTILE_SOURCE'] = {str(source)!r}\n" if source else ""
    code = env + f"import sys\nsys.argv = ['case', *{args!r}]\n"
    code += f"from tests.hostile.{module} import main\nmain()\n"
    return python_case(code, seconds=seconds, memory=3072 * MIB, cwd=REPO)


def serve_workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="brain-hostile-")) / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    (root / "workflows").mkdir()
    (root / "chats").mkdir()
    (root / "memory" / "shared" / "lol.md").write_bytes(checked_in("billion-laughs.md"))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="import brain from this checkout")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--out", default="hostile.json", help="file name under bench/results/")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []

    def record(name: str, outcome: Outcome) -> None:
        tail = (outcome.stdout.strip() or outcome.stderr.strip()).splitlines()[-1:] or [""]
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
    for name in LSP_CASES:
        if not args.only or f"lsp:{name}" in args.only:
            root = Path(tempfile.mkdtemp(prefix="brain-hostile-")) / "ws"
            record(f"lsp:{name}", script_case("lsp_cases", [name, str(root)], 90, args.source))
    if not args.only or "serve:alias-bomb" in args.only:
        record("serve:alias-bomb", script_case("serve_case", [str(serve_workspace())], 90, args.source))
    if not args.only or "serve:deep-chat" in args.only:
        root = serve_workspace()
        (root / "chats" / "deep.json").write_bytes(deep_json_object())
        record("serve:deep-chat", script_case("serve_case", [str(root)], 90, args.source))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / args.out
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
