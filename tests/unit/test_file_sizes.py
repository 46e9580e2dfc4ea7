"""No source file past 500 lines (the house rule of docs/architecture.md): a module that grows
past it holds more than one concept and is split by concept, as brain/, tests/ and bench/ were.
And no folder of the product's code (brain/, web/src/, native/src/) with more than a dozen
modules side by side: past that the tree no longer shows what is in it, and a concept among
them becomes a package of its own.

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


MAX_MODULES = 12
PRODUCT_ROOTS = ("brain/", "web/src/", "native/src/")
NOT_MODULES = ("__init__.py", "__main__.py", "lib.rs")


def crowded(names: list[str], limit: int = MAX_MODULES) -> list[str]:
    """`folder: N modules` for each folder of the product's code holding more than `limit`."""
    per_folder: dict[str, int] = {}
    for name in names:
        folder, _, leaf = name.rpartition("/")
        if (not name.startswith(PRODUCT_ROOTS) or not leaf.endswith((".py", ".ts", ".rs"))
                or leaf.endswith(".d.ts") or leaf in NOT_MODULES):
            continue
        per_folder[folder] = per_folder.get(folder, 0) + 1
    return [f"{folder}: {count} modules" for folder, count in sorted(per_folder.items()) if count > limit]


def test_no_folder_holds_more_than_a_dozen_modules() -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an sdist): nothing to list")
    names = [n for n in tracked(REPO) if (REPO / n).is_file()]
    assert crowded(names) == [], "make a package of a concept among them (docs/architecture.md)"


def test_the_folder_count_finds_a_crowded_folder_and_passes_over_the_rest() -> None:
    thirteen = [f"brain/crowd/m{i}.py" for i in range(13)]
    dozen = [f"web/src/views/v{i}.ts" for i in range(12)] + ["web/src/views/types.d.ts"]
    others = [f"tests/unit/t{i}.py" for i in range(30)] + [f"brain/pkg/m{i}.py" for i in range(12)]
    others += ["brain/pkg/__init__.py", "brain/pkg/data.json"]
    assert crowded(thirteen + dozen + others) == ["brain/crowd: 13 modules"]
