"""The watcher watches each folder on its own (brain/service/watch.py): folders that come, go, are
renamed or replaced are followed by their file events alone (no periodic rescan here)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from brain.service.brain import Brain
from brain.service.watch import Restarts, Watcher, first_cause, undecodable_name, watched_folders
from brain.store.base import MemoryFilter
from brain.store.memory.store import MemoryStore
from tests.unit.test_watch_layouts import until


def test_every_folder_but_dot_names_and_links(tmp_path: Path) -> None:
    for sub in ("memory/a/deep/er", "memory/b", ".git/objects/ab", "memory/.hidden/x"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "memory" / "a" / "note.md").write_text("x\n")
    os.symlink(tmp_path / "memory" / "b", tmp_path / "memory" / "linked")
    found = watched_folders(tmp_path)
    assert found[0] == str(tmp_path)
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in found[1:]) == [
        "memory", "memory/a", "memory/a/deep", "memory/a/deep/er", "memory/b",
    ]
    assert watched_folders(tmp_path / "gone") == [str(tmp_path / "gone")]


@asynccontextmanager
async def watching(root: Path) -> AsyncIterator[Brain]:
    (root / "alice" / "memory" / "topic").mkdir(parents=True)
    (root / "alice" / "memory" / "topic" / "one.md").write_text("one [[two]]\n")
    brain = Brain(root, MemoryStore())
    assert brain.layout_choice.name == "space"  # nested folders of notes
    watcher = Watcher(brain, debounce_ms=50, step_ms=10, rescan_seconds=600)
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(watcher.run, stop)
        await until(lambda: brain.ready and watcher.running, "the first sync")
        assert memories(brain) == {"memory:alice/topic/one"}
        yield brain
        assert watcher.error is None
        stop.set()


def memories(brain: Brain) -> set[str]:
    return {m.id for m in brain.store.list_memories(MemoryFilter())}



async def test_a_renamed_folder_is_followed_under_its_new_name(tmp_path: Path) -> None:
    async with watching(tmp_path) as live:
        memory = live.root / "alice" / "memory"
        (memory / "topic").rename(memory / "subject")
        await until(lambda: memories(live) == {"memory:alice/subject/one"}, "the rename")
        (memory / "subject" / "two.md").write_text("two\n")
        await until(lambda: "memory:alice/subject/two" in memories(live), "a note in the renamed folder")


async def test_a_folder_deleted_and_made_again_is_watched_again(tmp_path: Path) -> None:
    async with watching(tmp_path) as live:
        topic = live.root / "alice" / "memory" / "topic"
        shutil.rmtree(topic)
        await until(lambda: memories(live) == set(), "the delete")
        topic.mkdir()
        await anyio.sleep(0.3)  # its watch is set up; from now on only its events tell
        (topic / "again.md").write_text("again\n")
        await until(lambda: memories(live) == {"memory:alice/topic/again"}, "a note in the new folder")


async def test_notes_in_new_nested_folders_are_seen(tmp_path: Path) -> None:
    async with watching(tmp_path) as live:
        deep = live.root / "alice" / "memory" / "a" / "b" / "c"
        deep.mkdir(parents=True)
        (deep / "far.md").write_text("far\n")
        await until(lambda: "memory:alice/a/b/c/far" in memories(live), "the nested note")
        await anyio.sleep(0.3)
        (deep / "later.md").write_text("later\n")
        await until(lambda: "memory:alice/a/b/c/later" in memories(live), "a later note there")


async def test_a_warm_start_watches_before_its_check_and_follows_edits_after_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ready from the snapshot first, the watches set up next: a file changed while brain was
    down arrives through the check, and edits after ready through events."""
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    root = tmp_path / "ws"
    (root / "alice" / "memory" / "topic").mkdir(parents=True)
    (root / "alice" / "memory" / "topic" / "one.md").write_text("one\n")
    cold = Brain(root, MemoryStore(), cache=True)
    cold.sync()
    cold.close()
    (root / "alice" / "memory" / "topic" / "down.md").write_text("written while down\n")
    brain = Brain(root, MemoryStore(), cache=True)
    watcher = Watcher(brain, debounce_ms=50, step_ms=10, rescan_seconds=600)
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(watcher.run, stop)
        await until(lambda: brain.ready, "ready")
        assert brain.snapshots is not None
        assert brain.snapshots.loaded
        await until(lambda: not brain.checking, "the check")
        assert memories(brain) == {"memory:alice/topic/one", "memory:alice/topic/down"}
        (root / "alice" / "memory" / "new").mkdir()
        (root / "alice" / "memory" / "new" / "two.md").write_text("two\n")
        await until(lambda: "memory:alice/new/two" in memories(brain), "a note in a new folder")
        (root / "alice" / "memory" / "topic" / "one.md").unlink()
        await until(lambda: "memory:alice/topic/one" not in memories(brain), "a delete")
        assert watcher.error is None
        stop.set()


async def test_a_name_that_is_not_utf8_does_not_end_the_file_events(tmp_path: Path) -> None:
    """watchfiles ends its watch on an event naming a path that is not UTF-8; the watcher
    watches again (the rescan is ten minutes away here: only events can tell)."""
    async with watching(tmp_path) as live:
        topic = os.fsencode(live.root / "alice" / "memory" / "topic")
        os.mkdir(topic + b"/bad\xfe")
        with open(topic + b"/odd\xff.md", "wb") as odd:
            odd.write(b"never a note\n")
        await anyio.sleep(0.3)  # the events of both, and the watch set up again
        (live.root / "alice" / "memory" / "topic" / "after.md").write_text("after\n")
        await until(lambda: "memory:alice/topic/after" in memories(live), "a note after the odd names")
        assert memories(live) == {"memory:alice/topic/one", "memory:alice/topic/after"}


@pytest.mark.parametrize(("asks", "allowed"), [
    ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [True] * 5 + [False]),  # a sixth within the minute: no
    ([0.0, 10.0, 20.0, 30.0, 40.0, 61.0], [True] * 6),  # the first has left the minute
    ([0.0, 0.0, 0.0, 0.0, 0.0, 59.9, 60.0], [True] * 5 + [False, True]),
])
def test_restarts_are_at_most_five_a_minute(asks: list[float], allowed: list[bool]) -> None:
    now = iter(asks)
    restarts = Restarts(clock=lambda: next(now))
    assert [restarts.allow() for _ in asks] == allowed


def test_watchfiles_not_utf8_error_is_told_apart() -> None:
    assert undecodable_name(RuntimeError('Unable to decode path "/w/bad\\xFE" to string'))
    assert not undecodable_name(RuntimeError("No space left on device"))
    assert not undecodable_name(OSError('Unable to decode path "x"'))
    grouped = RuntimeError('Unable to decode path "/w/bad\\xFE" to string')
    assert undecodable_name(ExceptionGroup("awatch's task group", [grouped]))
    assert not undecodable_name(ExceptionGroup("two", [grouped, RuntimeError("inotify watch limit reached")]))
    # what the log names
    assert first_cause(ExceptionGroup("outer", [ExceptionGroup("inner", [grouped])])) is grouped
