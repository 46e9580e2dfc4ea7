"""Crashes: a writer killed at random points always leaves a complete old or new file.

A forked child rewrites one note through the whole service (lock, checks, atomic replace,
history) as fast as it can, each version a different size, and is killed with SIGKILL after
a random delay, many times over. After every kill the note must be exactly one complete
version, the next writer must get the lock, and the history must still read.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import make_workspace

KILLS = 60
NOTE = "memory/writer/journal.md"


def version(n: int) -> str:
    """Version n: a header and a footer naming n around 20-60 KB of filler."""
    filler = f"line of version {n}\n" * (1000 + (n * 37) % 2000)
    return f"version {n}\n{filler}end of version {n}\n"


def is_complete(text: str) -> bool:
    first = text.split("\n", 1)[0]
    if not first.startswith("version "):
        return False
    n = int(first.removeprefix("version "))
    return text == version(n)


def writer_loop(root: str, history: str, start: int, ready: multiprocessing.synchronize.Event) -> None:
    tool = MemoryTool(MemoryService(Path(root), history=History(Path(history))))
    n = start
    while True:
        n += 1
        tool.run("writer", {"command": "create", "path": "/memories/journal.md", "file_text": version(n)},
                 actor=Actor.of_agent("writer", "python"))
        # After one whole write, so every child leaves a version of its own however slow the
        # machine is; the random delay then lands the kill somewhere in the writes after it.
        ready.set()


def temp_files(folder: Path) -> set[str]:
    """The writes under way or cut short: the atomic replace's temp files (dot-files)."""
    return {n for n in os.listdir(folder) if n.startswith(".journal.md.") and n.endswith(".tmp")}


def wait_for_a_write(folder: Path, before: set[str], timeout: float = 30.0) -> None:
    """Return as soon as a new temp file shows: the writer is in the middle of a write.

    Polled every half millisecond, not in a spin: a write of 20-60 KB with its fsyncs keeps
    its temp file for several milliseconds, and a spin took a core from the writer (and from
    the other test worker) for nothing."""
    deadline = time.monotonic() + timeout
    while not temp_files(folder) - before:
        assert time.monotonic() < deadline, "the writer never began a write"
        time.sleep(0.0005)


def test_killed_writers_leave_an_old_or_a_new_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    folder = root / "memory/writer"
    history = tmp_path / "history.jsonl"
    (root / NOTE).write_text(version(0))
    fork = multiprocessing.get_context("fork")
    rng = random.Random(20261101)
    seen: set[str] = set()
    mid_write = 0
    for kill in range(KILLS):
        ready = fork.Event()
        child = fork.Process(target=writer_loop, args=(str(root), str(history), kill * 1000, ready))
        child.start()
        assert ready.wait(30)
        before = temp_files(folder)
        # Every other kill lands at a random point; the others the moment a write is under
        # way, so some kills certainly cut a write short (a random delay alone caught one
        # write in sixty, and nothing checked it caught any).
        if kill % 2:
            wait_for_a_write(folder, before)
        else:
            time.sleep(rng.uniform(0.0, 0.05))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
        mid_write += bool(temp_files(folder) - before)  # its temp file is left: cut short
        text = (root / NOTE).read_text()
        assert is_complete(text), f"after kill {kill}: a torn file of {len(text)} characters"
        seen.add(text.split("\n", 1)[0])
    # The kills landed at different points: many different versions survived, and kills
    # caught writes half done, each leaving the complete old version (checked above).
    assert len(seen) > KILLS // 3
    print(f"kill test: {KILLS} kills, {len(seen)} distinct surviving versions, {mid_write} mid-write")
    assert mid_write >= KILLS // 4
    # The lock died with each child, and the history reads (a torn last record is skipped).
    tool = MemoryTool(MemoryService(root, history=History(history)))
    assert tool.create("writer", "/memories/journal.md", version(10**6)).ok
    records = History(history).records(limit=1000)
    assert records
    assert records[0].after is not None
    assert all(r.command == "create" for r in records)


def test_stale_temp_files_of_crashed_writers_are_swept(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    folder = root / "memory/writer"
    old = folder / ".journal.md.0123456789ab.tmp"
    fresh = folder / ".journal.md.ba9876543210.tmp"
    unrelated = folder / ".editor-swap.tmp"
    for path in (old, fresh, unrelated):
        path.write_text("partial")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    assert tool.create("writer", "/memories/x.md", "x\n").ok
    assert not old.exists()
    assert fresh.exists()
    assert unrelated.exists()


def test_a_write_keeps_the_file_mode(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    note = root / "memory/writer/house-style.md"
    note.chmod(0o600)
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    assert tool.str_replace("writer", "/memories/house-style.md", "Headline first", "Headline").ok
    assert note.stat().st_mode & 0o777 == 0o600
