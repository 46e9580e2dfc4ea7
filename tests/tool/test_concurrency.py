"""Concurrent writers: with expectedHash no update is lost, across threads and processes."""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

from brain.tool.calls.tool import MemoryTool
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import make_workspace

PATH = "/memories/shared/tally.md"


def add_line(
    tool: MemoryTool, agent: str, line: str, after_first_read: Callable[[], object] = lambda: None
) -> int:
    """Read, change the text in memory, write it whole with expectedHash; retry on conflict.
    Returns how many conflicts it met. `after_first_read` runs once, between the first read
    and its write (the tests hold every writer there, so all but one write a stale hash)."""
    conflicts = 0
    while True:
        seen = tool.view(agent, PATH)
        assert seen.ok, seen.text
        current = (tool.service.root / "memory/shared/tally.md").read_text()
        if conflicts == 0:
            after_first_read()
            after_first_read = lambda: None  # noqa: E731
        result = tool.create(agent, PATH, current + line + "\n", expected_hash=seen.hash)
        if result.ok:
            return conflicts
        assert result.refusal is not None
        assert result.refusal.code.value == "conflict", result.text
        conflicts += 1


def test_threads_with_expected_hash_lose_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    (root / "memory/shared/tally.md").write_text("# tally\n")
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    conflicts: list[int] = []
    all_read = threading.Barrier(8)

    def work(worker: int) -> None:
        agent = "writer" if worker % 2 else "reviewer"
        conflicts.append(add_line(tool, agent, f"thread {worker} line 0", all_read.wait))
        conflicts.extend(add_line(tool, agent, f"thread {worker} line {i}") for i in range(1, 20))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (root / "memory/shared/tally.md").read_text().splitlines()
    assert sorted(lines[1:]) == sorted(f"thread {w} line {i}" for w in range(8) for i in range(20))
    assert len(tool.service.history.records(limit=1000)) == 160
    # All eight read the same version before any wrote: seven writes met a conflict at least.
    assert sum(conflicts) >= 7


def process_worker(root: str, history: str, worker: int, all_read: Barrier, conflicts: Queue[int]) -> None:
    tool = MemoryTool(MemoryService(Path(root), history=History(Path(history))))
    met = add_line(tool, "writer", f"process {worker} line 0", all_read.wait)
    for i in range(1, 15):
        met += add_line(tool, "writer", f"process {worker} line {i}")
    conflicts.put(met)


def test_processes_with_expected_hash_lose_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    (root / "memory/shared/tally.md").write_text("# tally\n")
    history = tmp_path / "h.jsonl"
    fork = multiprocessing.get_context("fork")
    all_read, conflicts = fork.Barrier(4), fork.Queue()
    workers = [
        fork.Process(target=process_worker, args=(str(root), str(history), w, all_read, conflicts))
        for w in range(4)
    ]
    for p in workers:
        p.start()
    met = [conflicts.get(timeout=60) for _ in workers]
    for p in workers:
        p.join(60)
        assert p.exitcode == 0
    assert sum(met) >= 3  # all four read the same version before any wrote
    lines = (root / "memory/shared/tally.md").read_text().splitlines()
    assert sorted(lines[1:]) == sorted(f"process {w} line {i}" for w in range(4) for i in range(15))
    records = History(history).records(limit=1000)
    assert len(records) == 60
    # The history chains: each write's `before` is the previous write's `after`.
    chain = list(reversed(records))
    assert all(a.after == b.before for a, b in itertools.pairwise(chain))


def test_a_stale_expected_hash_is_refused_and_the_other_edit_survives(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    seen = tool.view("writer", "/memories/house-style.md")
    assert tool.str_replace("writer", "/memories/house-style.md", "Headline first.", "Lead first.").ok
    late = tool.str_replace(
        "writer", "/memories/house-style.md", "No exclamation marks.", "Calm.", expected_hash=seen.hash
    )
    assert late.refusal is not None
    assert late.refusal.code.value == "conflict"
    assert late.text.startswith(
        "Refused: /memories/house-style.md changed since you read it (its hash is now "
    )
    assert late.text.endswith(
        "read it again and redo the edit on the current text\n"
        'Try: {"command": "view", "path": "/memories/house-style.md"}'
    )
    text = (root / "memory/writer/house-style.md").read_text()
    assert "Lead first." in text
    assert "No exclamation marks." in text


def test_expected_hash_empty_means_the_file_must_not_exist(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    assert tool.create("writer", "/memories/new.md", "first\n", expected_hash="").ok
    again = tool.create("writer", "/memories/new.md", "second\n", expected_hash="")
    assert again.text == (
        "Refused: /memories/new.md already exists (the call expected it not to): read it, then decide\n"
        'Try: {"command": "view", "path": "/memories/new.md"}'
    )
    gone = tool.delete("writer", "/memories/missing.md", expected_hash="0" * 64)
    assert gone.refusal is not None
    assert gone.refusal.code.value == "conflict"
    assert "no longer exists" in gone.text
