"""A note handed to a parse helper by path is opened once (issue 43: a stat through one open,
then the read through another, were a tenth of a helper's CPU), and built exactly as from
its bytes; a note past its budget is hashed as before, and a link or a FIFO is unread (a
FIFO was waited on forever)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from brain.budgets import note_budget
from brain.ingest.memory_files import Unread, build_file

OPENED: list[str] = []
_WATCHING = [False]


def _record_opens(event: str, args: tuple[Any, ...]) -> None:
    if _WATCHING[0] and event == "open" and str(args[0]).endswith(".md"):
        OPENED.append(str(args[0]))


sys.addaudithook(_record_opens)  # inert unless a test watches (a hook cannot be removed)


def _by_path(path: Path) -> object:
    OPENED.clear()
    _WATCHING[0] = True
    try:
        return build_file(("memory/n.md", "memory", "n", str(path), 1.0))
    finally:
        _WATCHING[0] = False


def _by_bytes(raw: bytes) -> object:
    return build_file(("memory/n.md", "memory", "n", raw, 1.0))


@pytest.mark.parametrize("size", [10, 70_000, 300_000])  # one read, and several of 64 KB
def test_a_note_by_path_is_opened_once_and_built_as_from_its_bytes(tmp_path: Path, size: int) -> None:
    assert size < note_budget().max_bytes
    raw = ("---\ndescription: d\n---\n# N\n\nSee [[other]].\n" + "word " * (size // 5)).encode()
    path = tmp_path / "n.md"
    path.write_bytes(raw)
    assert _by_path(path) == _by_bytes(raw)
    assert [str(path)] == OPENED


def test_a_note_past_its_budget_by_path_is_built_as_from_its_bytes(tmp_path: Path) -> None:
    raw = b"# big\n" + b"x" * (note_budget().max_bytes + 10)
    path = tmp_path / "n.md"
    path.write_bytes(raw)
    assert _by_path(path) == _by_bytes(raw)


def test_a_link_or_a_fifo_by_path_is_unread_and_not_waited_on(tmp_path: Path) -> None:
    target = tmp_path / "t.md"
    target.write_text("# t\n")
    link = tmp_path / "n.md"
    link.symlink_to(target)
    unread = _by_path(link)
    assert isinstance(unread, Unread)
    assert unread.rel == "memory/n.md"
    fifo = tmp_path / "f.md"
    os.mkfifo(fifo)
    unread = _by_path(fifo)  # never waited on
    assert isinstance(unread, Unread)
    assert unread.rel == "memory/n.md"
