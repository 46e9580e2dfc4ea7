"""No source file past 500 lines (the house rule of docs/architecture.md): a module that grows
past it holds more than one concept and is split by concept, as brain/, tests/ and bench/ were.

Counted: the code we write by hand (Python, TypeScript, Rust, shell, Lua, JavaScript), as git
tracks it. Not counted: generated contracts (schema/), data and docs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 500
SOURCE_SUFFIXES = (".py", ".ts", ".rs", ".sh", ".lua", ".mjs", ".js")


def too_long(root: Path, names: list[str], limit: int = MAX_LINES) -> list[str]:
    """`path: N lines` for each named source file of `root` longer than `limit`."""
    found = []
    for name in names:
        if not name.endswith(SOURCE_SUFFIXES) or name.startswith("schema/"):
            continue
        path = root / name
        if not path.is_file():  # deleted in the working tree, not yet in git
            continue
        count = path.read_bytes().count(b"\n")
        if count > limit:
            found.append(f"{name}: {count} lines")
    return found


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [n for n in out.stdout.decode().split("\0") if n]


def test_no_source_file_is_past_500_lines() -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an sdist): nothing to list")
    assert too_long(REPO, tracked(REPO)) == [], "split these by concept"


def test_the_count_finds_a_long_file_and_passes_over_data(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "short.ts").write_text("let x = 1;\n" * 500)
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "brain.py").write_text("x\n" * 900)
    (tmp_path / "data.json").write_text("1\n" * 900)
    names = ["long.py", "short.ts", "schema/brain.py", "data.json", "gone.py"]
    assert too_long(tmp_path, names) == ["long.py: 501 lines"]
