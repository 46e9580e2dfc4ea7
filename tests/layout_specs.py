"""Each layout's paths for the layout-parametrized tests (contract suite, random operations).

A test that runs on every layout asks a `LayoutSpec` where a note of a scope lives, which
files the layout treats specially, which folders can be symlinked, and how to start an empty
workspace of it. Adding a layout to these tests is adding one entry to `SPECS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from brain.layouts import LayoutChoice


@dataclass(frozen=True)
class LayoutSpec:
    name: str
    scopes: tuple[str, ...]  # scopes notes are written to (agents, and `shared` where it exists)
    note: Callable[[str, str], str]  # (scope, name) -> path of that note
    odd_files: tuple[str, ...]  # files the layout reports or reads otherwise (misplaced, plain)
    deletable: tuple[str, ...]  # folders and odd files a delete may name
    symlinks: tuple[str, ...]  # paths a test may replace by a symlink
    folder_link: tuple[str, str]  # (a folder, the folder it is made a symlink to)
    start: tuple[str, ...] = ()  # folders an empty workspace of this layout has

    @property
    def choice(self) -> LayoutChoice:
        return LayoutChoice(self.name, "the test's layout", False)

    def prepare(self, root: Path) -> None:
        """An empty workspace of this layout (brain.toml names it, but for latchai)."""
        for folder in self.start:
            (root / folder).mkdir(parents=True, exist_ok=True)
        if self.name != "latchai":
            (root / "brain.toml").write_text(f'layout = "{self.name}"\n')


LATCHAI = LayoutSpec(
    name="latchai",
    scopes=("shared", "ann", "bob"),
    note=lambda scope, name: f"memory/{scope}/{name}.md",
    odd_files=("memory/ann/x.txt", "memory/ann/sub/y.md", "memory/z.md"),
    deletable=("memory/bob", "memory/ann/x.txt", "memory/ann/sub", "memory/z.md", "agents/ann.md"),
    symlinks=("memory/ann/alpha.md", "agents/ann.md", "workflows/x.yaml"),
    folder_link=("memory/bob", "memory/ann"),
    start=("memory",),
)

SPACE = LayoutSpec(
    name="space",
    scopes=("ann", "bob", "cy"),
    note=lambda scope, name: f"{scope}/memory/{name}.md",
    odd_files=(
        "ann/memory/drafts/alpha.md", "ann/memory/drafts/deep/beta.md", "ann/memory/data.csv",
        "ann/memory/img/logo.png", "bob/memory/alpha.txt", "ann/notes.md",
        "ann/memory/" + "/".join("d" * 17) + ".md",
    ),
    deletable=("bob/memory", "ann/memory/drafts", "ann/memory/img", "bob", "ann/memory/data.csv"),
    symlinks=("ann/memory/alpha.md", "ann/memory/drafts"),
    folder_link=("bob/memory", "ann/memory"),
)

MINDLINK = LayoutSpec(
    name="mindlink",
    scopes=("ann", "bob", "cy"),
    note=lambda scope, name: f"{scope}/memory/entries/{name}.md",
    odd_files=(
        "ann/memory/2026-01-05.md", "bob/memory/2001-01-06.md", "ann/memory/notes.txt",
        "ann/memory/entries/sub/x.md", "ann/memory/2026-02-30.md", "ann/notes.md",
        "ann/memory/entries/logo.png",
    ),
    deletable=("bob/memory", "ann/memory/entries", "bob", "ann/memory/notes.txt", "ann/memory/2026-01-05.md"),
    symlinks=("ann/memory/entries/alpha.md", "ann/memory/2026-01-05.md"),
    folder_link=("bob/memory", "ann/memory"),
)

# Lab notes of any name live in projects (one scope each) and as skills; the odd files are
# the lab's single-purpose files (MEMORY.md, daily logs, tools) and what it ignores.
LAB = LayoutSpec(
    name="lab",
    scopes=("project:a", "project:b", "skills"),
    note=lambda scope, name: (
        f"skills/{name}/SKILL.md" if scope == "skills" else f"projects/{scope.split(':', 1)[1]}/{name}.md"
    ),
    odd_files=(
        "MEMORY.md", "agents/ann/MEMORY.md", "memory/2026-01-05.md", "memory/notes.md",
        "memory/old/2026-01-01.md", "tools/beta/TOOL.md", "projects/a/src/x.md", "skills/alpha/run.sh",
    ),
    deletable=("projects/a", "skills", "memory", "agents/ann", "MEMORY.md", "tools/beta"),
    symlinks=("projects/a/alpha.md", "MEMORY.md", "memory/2026-01-05.md"),
    folder_link=("projects/b", "projects/a"),
)

#: Every layout the parametrized tests run on.
SPECS: tuple[LayoutSpec, ...] = (LATCHAI, SPACE, MINDLINK, LAB)
