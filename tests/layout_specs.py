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

#: Every layout the parametrized tests run on (mindlink and lab join here).
SPECS: tuple[LayoutSpec, ...] = (LATCHAI, SPACE)
