"""The append-only history: records, filters, paging, and torn lines after a crash."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from brain.tool.history.log import History


def add(history: History, n: int, agent: str | None = "writer", scope: str = "writer") -> None:
    history.append(
        at=f"2026-11-01T00:00:{n:02d}.000000Z", actor=f"agent:{agent}" if agent else "admin",
        agent=agent, via="python", command="create", scope=scope, path=f"memory/{scope}/n{n}.md",
        before=None, after=f"{n:064x}",
    )


def test_records_newest_first_with_filters_and_paging(tmp_path: Path) -> None:
    history = History(tmp_path / "h.jsonl")
    for n in range(10):
        add(history, n, agent="writer" if n % 2 else None, scope="writer" if n % 2 else "shared")
    assert [r.path for r in history.records(agent="writer", limit=3)] == [
        "memory/writer/n9.md", "memory/writer/n7.md", "memory/writer/n5.md",
    ]
    page = history.records(limit=4)
    older = history.records(limit=4, before=page[-1].id)
    assert [r.path for r in page + older] == [f"memory/{'writer' if n % 2 else 'shared'}/n{n}.md"
                                              for n in range(9, 1, -1)]
    assert {r.scope for r in history.records(scope="shared")} == {"shared"}
    assert [r.path for r in history.records(path="memory/shared/n4.md")] == ["memory/shared/n4.md"]
    # A second reader of the same file sees the same records with the same ids.
    assert History(tmp_path / "h.jsonl").records(limit=100) == history.records(limit=100)


def test_a_torn_last_line_is_skipped_and_the_next_record_is_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "h.jsonl"
    history = History(path)
    add(history, 1)
    with open(path, "ab") as fh:
        fh.write(b'{"at": "2026-11-01T00:00:02Z", "actor": "agent:wri')  # a crash mid-append
    assert len(History(path).records()) == 1  # the unfinished line is not read yet
    add(history, 3)
    with caplog.at_level(logging.WARNING, logger="brain.tool.history.log"):
        records = History(path).records()
    assert [r.path for r in records] == ["memory/writer/n3.md", "memory/writer/n1.md"]
    assert "line 2 is not a history record" in caplog.text
    assert path.read_bytes().count(b"\n") == 3


def test_garbage_and_unknown_fields_are_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('not json\n{"unexpected": 1}\n\n')
    history = History(path)
    add(history, 4)
    assert [r.path for r in history.records()] == ["memory/writer/n4.md"]


def test_a_missing_history_is_empty(tmp_path: Path) -> None:
    assert History(tmp_path / "none" / "h.jsonl").records() == []


def test_a_history_replaced_by_a_longer_file_is_read_again(tmp_path: Path) -> None:
    """Another file renamed over the history (a restore from backup, a hand edit) is read
    from its start, even when it is longer than what was read: a reader that kept its
    offset took the new file's first records as the old ones and read on from the middle."""
    reader = History(tmp_path / "h.jsonl")
    for n in range(3):
        add(reader, n)
    assert [r.path for r in reader.all()] == [f"memory/writer/n{n}.md" for n in range(3)]
    other = History(tmp_path / "other.jsonl")
    for n in range(10, 15):
        add(other, n)
    (tmp_path / "other.jsonl").replace(tmp_path / "h.jsonl")
    assert [r.path for r in reader.all()] == [f"memory/writer/n{n}.md" for n in range(10, 15)]


def test_the_as_of_timeline_knows_a_replaced_history_however_long(tmp_path: Path) -> None:
    """The as-of timeline (brain/tool/asof/delta.py) indexes the records once; a history
    replaced by a longer one is indexed again, not read on from where the old one ended."""
    from brain.tool.asof.delta import Timeline

    reader = History(tmp_path / "h.jsonl")
    for n in range(3):
        add(reader, n)
    timeline = Timeline()
    at_end = 1_800_000_000.0  # after every record
    assert timeline.index_after(reader.all(), at_end) == 3
    assert timeline.first_from("memory/writer/n1.md", 0) == 1
    other = History(tmp_path / "other.jsonl")
    for n in range(10, 15):
        add(other, n)
    (tmp_path / "other.jsonl").replace(tmp_path / "h.jsonl")
    assert timeline.index_after(reader.all(), at_end) == 5
    assert timeline.first_from("memory/writer/n1.md", 0) is None
    assert timeline.first_from("memory/writer/n12.md", 0) == 2
    assert timeline.epoch == 1
