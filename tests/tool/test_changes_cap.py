"""An edit made outside brain when the history is at its cap: applied all the same, and said.

Planted bug, seen to fail: `_keep` storing the blob without asking the cap (the record
then claims the content is kept and the blob store passes the cap).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from brain.budgets import HISTORY_WORKSPACE_ENV
from brain.ingest.memory_files import content_hash
from brain.service.brain import Brain
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.diff.query import memory_changes
from brain.tool.history.external import NOT_KEPT_CAP
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW


def test_an_outside_edit_past_the_cap_is_applied_and_marked_not_kept(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(HISTORY_WORKSPACE_ENV, "1024")  # the least cap there is: the edit is past it
    brain = Brain(workspace)
    brain.sync()
    service = MemoryService(workspace, brain, history=History(tmp_path / "h.jsonl"), clock=lambda: NOW)
    attach_memory_service(brain, service)
    rel = "memory/shared/prefers-short-answers.md"
    body = "---\ndescription: Changed outside.\n---\n\nNew.\n" + "word " * 400  # 2 KB
    (workspace / rel).write_text(body, encoding="utf-8")
    brain.sync([rel])
    node = brain.memory_at(rel)
    assert node is not None
    assert node.description == "Changed outside."  # the change reached the graph
    [record] = service.history.all()
    assert (record.origin, record.kept, record.path) == ("external", NOT_KEPT_CAP, rel)
    assert service.blobs.get(record.after) is None
    found = memory_changes(service, Actor.admin(), "1h")
    assert found["notes"]["changed"][0]["path"] == rel
    assert {"path": rel, "side": "after", "hash": record.after} in found["notKept"]


def test_a_write_another_process_recorded_is_not_recorded_again(workspace: Path, tmp_path: Path) -> None:
    """`brain memory` or `brain maintain --apply` beside a server: the CLI's process records
    its write; the server's watcher then sees the file change and must not add an `external`
    duplicate. Planted bug, seen to fail: `_not_yet_recorded` returning every change."""
    history = tmp_path / "h.jsonl"
    brain = Brain(workspace)
    brain.sync()
    attach_memory_service(brain, MemoryService(workspace, brain, history=History(history), clock=lambda: NOW))
    cli = MemoryService(workspace, history=History(history), clock=lambda: NOW)  # no graph: another process
    result = MemoryTool(cli).run("writer", {
        "command": "create", "path": "/memories/from-cli.md", "file_text": "# From the CLI\n",
    })
    assert result.ok, result.text
    brain.sync(["memory/writer/from-cli.md"])
    assert brain.memory_at("memory/writer/from-cli.md") is not None
    assert [(r.path, r.origin) for r in History(history).all()] == [("memory/writer/from-cli.md", None)]


def test_a_write_seen_between_its_file_and_its_record_is_not_taken_for_an_outside_edit(
    workspace: Path, tmp_path: Path,
) -> None:
    """The watcher's sync can see a memory-tool write's file before the write has appended its
    record (another process, or this one's tool between its file and its record): it waits
    for the history's lock, then finds the record. Planted bug, seen to fail: the recorder
    checking without the lock (the change was recorded a second time, as `external`)."""
    history = tmp_path / "h.jsonl"
    brain = Brain(workspace)
    brain.sync()
    attach_memory_service(brain, MemoryService(workspace, brain, history=History(history), clock=lambda: NOW))
    cli = MemoryService(workspace, history=History(history), clock=lambda: NOW)  # another process
    rel = "memory/writer/between.md"
    data = b"---\ndescription: Written by the tool.\n---\n\nText.\n"
    written, recorded = threading.Event(), threading.Event()

    def tool_write() -> None:  # what the tool does under its lock: the file, then its record
        with cli.history_step("between.md"):
            (workspace / rel).write_bytes(data)
            written.set()
            time.sleep(0.5)  # the window in which the sync below looks at the file
            cli.record(Actor.admin(via="cli"), "create", "writer", rel, None, content_hash(data))
        recorded.set()

    writer = threading.Thread(target=tool_write)
    writer.start()
    assert written.wait(10)
    brain.sync([rel])  # the watcher's sync, while the write is between its file and its record
    writer.join(10)
    assert recorded.is_set()
    assert brain.memory_at(rel) is not None
    assert [(r.path, r.origin) for r in History(history).all()] == [(rel, None)]
