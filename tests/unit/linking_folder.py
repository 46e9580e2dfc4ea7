"""A workspace folder for the incremental-sync tests (tests/unit/test_linking*.py), and the
oracle they share: after any sequence of syncs, the graph equals a fresh full ingest.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from brain.layouts import LayoutChoice
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore


class Folder:
    """A workspace on disk whose writes get distinct, increasing modification times."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "memory").mkdir(parents=True, exist_ok=True)
        self.clock = 1_700_000_000
        self.unlinked: list[str] = []

    def write(self, rel: str, text: str | bytes) -> str:
        path = self.root / rel
        if path.is_symlink():
            path.unlink()
        for parent in reversed(path.relative_to(self.root).parents):
            folder = self.root / parent
            if folder.is_symlink() and not folder.is_dir():  # a link to a file, in the way
                folder.unlink()
                self.unlinked.append(parent.as_posix())  # a watcher reports its deletion
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        self.tick(rel)
        return rel

    def tick(self, rel: str) -> None:
        self.clock += 1
        os.utime(self.root / rel, ns=(self.clock * 10**9,) * 2, follow_symlinks=False)

    def delete(self, rel: str) -> str:
        path = self.root / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        return rel

    def rename(self, old: str, new: str) -> list[str]:
        parent = (self.root / new).parent
        if parent.is_symlink() and not parent.exists():
            return []  # a link to a folder since deleted: there is nowhere to move the file to
        parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(self.root / new)
        return [old, new]

    def real(self, rel: str) -> str:
        """`rel` with symlinked folders resolved: where a write through it really lands."""
        path = self.root / rel
        parent = os.path.relpath(os.path.realpath(path.parent), os.path.realpath(self.root))
        return f"{parent}/{path.name}"


def fresh_brain(root: Path, layout: LayoutChoice | None = None) -> Brain:
    brain = Brain(root, MemoryStore(), layout)
    brain.sync()
    return brain


def assert_same_as_fresh(brain: Brain) -> None:
    fresh = fresh_brain(brain.root, brain.layout_choice)
    assert brain.store.export() == fresh.store.export()
    assert brain.problems() == fresh.problems()
    assert brain.stats() == fresh.stats()
