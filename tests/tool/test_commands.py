"""Every command's answers, word for word: the outputs, and the refusals with their fixes.

Each row runs on a fresh copy of the small workspace (tests/tool/conftest.py) with the
clock at 2026-11-01. A refusal must leave every file as it was and record no history, and
the call it suggests must work when made as it stands: every refusal teaches the next call.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from brain.tool.calls.tool import MemoryTool
from brain.tool.service import MemoryService
from tests.tool.command_rows import ANSWERS, Row
from tests.tool.refusal_rows import REFUSALS

ROWS = ANSWERS + REFUSALS


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_command_answer(row: Row, tool: MemoryTool, workspace: Path) -> None:
    before = tree_digest(workspace)
    result = tool.run(row.agent, row.payload)
    assert result.text == row.text
    assert (result.refusal.code.value if result.refusal else None) == row.code
    if row.code is not None:
        assert tree_digest(workspace) == before
        assert tool.service.history.records() == []


@pytest.mark.parametrize("row", [r for r in REFUSALS if r.text.count("\nTry: ")], ids=str)
def test_the_suggested_call_works(row: Row, tool: MemoryTool) -> None:
    refusal = tool.run(row.agent, row.payload).refusal
    assert refusal is not None
    assert refusal.suggestion is not None
    args = dict(refusal.suggestion.args)
    agent = args.pop("agent", row.agent)
    assert agent is None or isinstance(agent, str)
    retry = tool.run(agent, {"command": refusal.suggestion.command, **args})
    assert retry.ok, retry.text


def test_every_refusal_code_is_in_the_table() -> None:
    from brain.tool.calls.refusal import RefusalCode

    covered = {row.code for row in REFUSALS}
    # Exercised elsewhere: forbidden (test_access), conflict (test_concurrency), symlink and
    # unsafe-folder (test_attacks), not-text (test_text_content), read-only (a replica on
    # Neo4j: tests/neo4j/test_replicas.py); the layouts' verbs' own codes (path-too-long,
    # path-too-deep, not-a-folder: test_space_verbs; not-a-memory: test_mindlink_verbs),
    # history-full (tests/hostile/test_history_cap.py, on every front end), history-unwritable
    # (tests/hostile/test_history_race.py: a history file that cannot grow), not-kept (a moment
    # past the history's retention: tests/tool/test_as_of_retention.py).
    elsewhere = {
        "forbidden", "conflict", "symlink", "unsafe-folder", "not-text", "read-only",
        "path-too-long", "path-too-deep", "not-a-folder", "not-a-memory", "history-full",
        "history-unwritable", "not-kept",
    }
    assert {c.value for c in RefusalCode} - covered == elsewhere


def test_writes_are_recorded_with_hashes(tool: MemoryTool, service: MemoryService) -> None:
    created = tool.create("writer", "/memories/tone.md", "Calm.\n")
    edited = tool.str_replace("writer", "/memories/tone.md", "Calm.", "Calm and brief.")
    moved = tool.rename("writer", "/memories/tone.md", "/memories/shared/tone.md")
    gone = tool.delete("writer", "/memories/shared/tone.md")
    assert all(r.ok for r in (created, edited, moved, gone))
    records = service.history.records(agent="writer")
    assert [(r.command, r.path, r.new_path) for r in records] == [
        ("delete", "memory/shared/tone.md", None),
        ("rename", "memory/writer/tone.md", "memory/shared/tone.md"),
        ("str_replace", "memory/writer/tone.md", None),
        ("create", "memory/writer/tone.md", None),
    ]
    assert records[3].before is None
    assert records[3].after == created.hash
    assert (records[2].before, records[2].after) == (created.hash, edited.hash)
    assert records[1].before == records[1].after == edited.hash
    assert (records[0].before, records[0].after) == (edited.hash, None)
    assert {r.actor for r in records} == {"agent:writer"}
    assert records[0].at == "2026-11-01T00:00:00.000000Z"


def test_an_identical_create_changes_nothing(tool: MemoryTool, workspace: Path) -> None:
    text = (workspace / "memory/writer/house-style.md").read_text()
    result = tool.create("writer", "/memories/house-style.md", text)
    assert result.text == "Unchanged: /memories/house-style.md already has exactly this text (10 lines)."
    assert tool.service.history.records() == []
