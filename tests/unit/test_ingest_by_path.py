"""A first sync hands its notes to the parse helpers by path: they read the files on their own
core, the graph is the same, and a file that cannot be read then is reported as ever."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.workload import generate
from brain.ingest import ingester as ingest
from brain.ingest import parse_helpers
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore

OPENED: list[str] = []
_WATCHING = [False]


def _record_opens(event: str, args: tuple[Any, ...]) -> None:
    if _WATCHING[0] and event == "open" and isinstance(args[0], str | Path) and str(args[0]).endswith(".md"):
        OPENED.append(str(args[0]))


sys.addaudithook(_record_opens)  # inert unless a test watches (a hook cannot be removed)


def reference(root: Path) -> object:
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain.store.export()


@pytest.fixture
def with_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two real helper processes for any workspace size (the default waits for 2,000 notes)."""
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "2")


def test_a_first_sync_reads_no_note_here_when_helpers_parse(tmp_path: Path, with_helpers: None) -> None:
    """Reading every note here and piping its bytes to a helper was a quarter of the
    ingesting process's CPU; the helpers read them now."""
    root = tmp_path / "ws"
    generate(root, notes=300, agents=3, seed=4)
    brain = Brain(root, MemoryStore())
    OPENED.clear()
    _WATCHING[0] = True
    try:
        result = brain.sync()
    finally:
        _WATCHING[0] = False
    notes = [o for o in OPENED if "/memory/" in o]
    assert notes == []  # none here: every note was read by a helper
    assert result.parsed == 300
    assert result.read >= 300
    assert brain.store.export() == reference(root)
    # The file states hold each note's hash: an unchanged rescan reads nothing.
    again = brain.sync()
    assert (again.read, again.parsed, bool(again.batch)) == (0, 0, False)


def vanishing(path: Path) -> Callable[..., object]:
    """`claim` (called once the walk has listed the files), then `path` is deleted: the file
    is gone by the time it is read."""
    real = ingest.claim

    def claim_then_delete(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        path.unlink(missing_ok=True)
        return found

    return claim_then_delete


@pytest.mark.parametrize("helpers", [False, True])
def test_a_note_gone_before_it_is_read_is_reported_and_the_rest_is_the_workspace(
    helpers: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if helpers:
        request.getfixturevalue("with_helpers")
    root = tmp_path / "ws"
    generate(root, notes=60, agents=2, seed=8)
    gone = sorted((root / "memory").glob("*/*.md"))[7]
    rel = gone.relative_to(root).as_posix()
    monkeypatch.setattr(ingest, "claim", vanishing(gone))
    brain = Brain(root, MemoryStore())
    brain.sync()
    (problem,) = [p for p in brain.problems() if p.code == "unreadable-file"]
    assert problem.path == rel
    assert "No such file" in problem.message
    assert brain.store.memory_by_path(rel) is None
    assert brain.store.export() == reference(root)  # links to it resolve as if it never was
    monkeypatch.undo()
    brain.sync()  # the walk no longer lists it: its problem goes with it
    assert not [p for p in brain.problems() if p.code == "unreadable-file"]
