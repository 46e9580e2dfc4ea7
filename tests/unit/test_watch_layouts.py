"""The watcher follows a space workspace: nested notes, plain files and path bounds, live."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import anyio

from brain.service.brain import Brain
from brain.service.watch import Watcher
from brain.store.memory.store import MemoryStore


async def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await anyio.sleep(0.05)


async def test_the_watcher_follows_a_space_workspace(tmp_path: Path) -> None:
    (tmp_path / "alice" / "memory").mkdir(parents=True)
    (tmp_path / "alice" / "memory" / "a.md").write_text("# A\nsee [[drafts/new]]\n")
    brain = Brain(tmp_path, MemoryStore())
    assert brain.layout_choice.name == "space"
    watcher = Watcher(brain, debounce_ms=50, step_ms=10, rescan_seconds=600)
    stop = anyio.Event()

    def nodes(*ids: str) -> set[str]:
        return set(brain.store.get_nodes(ids))

    def link_status() -> str:
        return brain.store.links_from(["memory:alice/a"])["memory:alice/a"][0].status.value

    async with anyio.create_task_group() as tg:
        tg.start_soon(watcher.run, stop)
        await until(lambda: brain.ready, "the first sync")
        assert link_status() == "broken"

        drafts = tmp_path / "alice" / "memory" / "drafts"
        drafts.mkdir()
        (drafts / "new.md").write_text("new [[a]]\n")
        (tmp_path / "alice" / "memory" / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
        await until(lambda: nodes("memory:alice/drafts/new", "file:alice/shot.png") == {
            "memory:alice/drafts/new", "file:alice/shot.png"}, "the new note and file")
        await until(lambda: link_status() == "resolved", "the waiting link to resolve")

        deep = tmp_path / "alice" / "memory" / "/".join(f"d{i}" for i in range(16))
        deep.mkdir(parents=True)
        (deep / "far.md").write_text("far\n")
        await until(lambda: any(p.code == "path-too-deep" for p in brain.problems()), "path-too-deep")

        (tmp_path / "alice" / "memory" / "shot.png").unlink()
        (drafts / "new.md").unlink()
        await until(lambda: not nodes("memory:alice/drafts/new", "file:alice/shot.png"), "the deletes")
        await until(lambda: link_status() == "broken", "the link to break again")
        stop.set()

    fresh = Brain(tmp_path, MemoryStore())
    fresh.sync()
    assert brain.store.export() == fresh.store.export()
    assert brain.problems() == fresh.problems()
