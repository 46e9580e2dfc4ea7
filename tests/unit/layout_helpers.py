"""Small real workspaces for the layout tables: files written with distinct mtimes, one ingest."""

from __future__ import annotations

import os
from pathlib import Path

from brain.config.workspace import BrainConfig
from brain.ingest.ingester import Ingester
from brain.layouts import get_layout
from brain.store.memory.store import MemoryStore
from brain.workspace import FileRole

LinkAnswer = tuple[str, str, tuple[str, ...]]


def write_files(root: Path, files: dict[str, str], start: int = 1_790_000_000) -> None:
    """Write files in the given order, each 10 s newer than the one before."""
    for index, (rel, text) in enumerate(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        when = start + 10 * index
        os.utime(path, (when, when))


def ingest(
    root: Path, layout: str, files: dict[str, str], config: BrainConfig | None = None
) -> tuple[MemoryStore, Ingester]:
    write_files(root, files)
    store = MemoryStore()
    ingester = Ingester(root, store, layout=get_layout(layout), config=config)
    ingester.sync()
    return store, ingester


def links_of(store: MemoryStore) -> dict[tuple[str, str], LinkAnswer]:
    """(source id, raw link text) -> (status, target id, candidates) of every stored link."""
    sources = [row[0] for row in store.export().nodes]
    out: dict[tuple[str, str], LinkAnswer] = {}
    for source, links in store.links_from(sources).items():
        for link in links:
            out[(source, link.raw)] = (link.status.value, link.target_id, link.candidates)
    return out


def assert_role(role: FileRole, expected: tuple[str, str, str, object]) -> None:
    """(role kind, scope, name, node kind for a note or problem code for a misplaced file)."""
    kind, scope, name, what = expected
    assert (role.kind, role.scope, role.name) == (kind, scope, name)
    if kind == "memory":
        assert role.node_kind is what
    elif kind == "problem":
        assert role.problem is not None
        assert role.problem.code == what
