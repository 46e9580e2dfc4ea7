"""A consolidation of one scope cannot change another, whatever the model asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.maintain.consolidation.run import Consolidation
from brain.maintain.scoped_tool import ScopedMemoryTool
from brain.tool.access import Actor
from tests.maintain.chat_server import calls, chat_server, final
from tests.maintain.conftest import note, open_brain, workspace_with
from tests.maintain.test_consolidate import config_for

SHARED = note("Tone of every answer.", "Plain words.", "user")
FILES: dict[str, str | tuple[str, float]] = {
    "memory/writer/own.md": note("Mine.", "Own words."),
    "memory/shared/tone.md": SHARED,
    "memory/shared/facts.md": note("Facts.", "The sky is blue.", "reference"),
    "memory/reviewer/private.md": note("Reviewer's.", "Secret plan."),
}

# Everything a model might try on the shared folder (or another agent's) from writer's run.
HOSTILE: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories/shared"},
    {"command": "view", "path": "/memories/shared/tone.md"},
    {"command": "create", "path": "/memories/shared/new.md", "file_text": "injected"},
    {"command": "create", "path": "/memories/shared/tone.md", "file_text": "overwritten"},
    {"command": "str_replace", "path": "/memories/shared/tone.md", "old_str": "Plain", "new_str": "Fancy"},
    {"command": "insert", "path": "/memories/shared/tone.md", "insert_line": 0, "insert_text": "x\n"},
    {"command": "delete", "path": "/memories/shared/tone.md"},
    {"command": "delete", "path": "/memories/shared/facts.md"},
    {"command": "rename", "old_path": "/memories/shared/tone.md", "new_path": "/memories/tone.md"},
    {"command": "rename", "old_path": "/memories/own.md", "new_path": "/memories/shared/own.md"},
    {"command": "rename", "old_path": "/memories/own.md", "new_path": "/memories/shared/tone.md"},
    {"command": "delete", "path": "/memories/../memories/shared/tone.md"},
    {"command": "delete", "path": "/memories/./shared/tone.md"},
    {"command": "delete", "path": "/memories/shared//tone.md"},
    {"command": "delete", "path": "/memories/%73hared/tone.md"},
    {"command": "delete", "path": "/memories\\shared\\tone.md"},
    {"command": "delete", "path": "/memories/Shared/tone.md"},
    {"command": "delete", "path": "/memories/ｓhared/tone.md"},
    {"command": "delete", "path": "/memories/shared/tone.md\u0000"},
    {"command": "delete", "path": "/memories/reviewer/private.md"},
    {"command": "delete", "path": "../shared/tone.md"},
    {"command": "delete", "path": "memory/shared/tone.md"},
    {"command": "create", "path": "/memories/../../etc/x.md", "file_text": "x"},
    {"command": "delete", "path": "/memories/shared/"},
    {"command": "view", "path": ["/memories/shared/tone.md"]},
]


def _files(root: Path, *scopes: str) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for scope in scopes
        for p in sorted((root / "memory" / scope).rglob("*"))
        if p.is_file()
    }


def test_a_private_run_cannot_change_shared_whatever_the_model_asks(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    brain, service = open_brain(root, tmp_path / "history.jsonl")
    before = _files(root, "shared", "reviewer")
    script = [calls(*HOSTILE[i : i + 8]) for i in range(0, len(HOSTILE), 8)]
    script.append(final("Changed:\n- nothing"))
    with chat_server(script) as server:
        consolidation = Consolidation.for_brain(brain, "writer", config_for(server.url), {}, service=service)
        report = consolidation.run()

    assert _files(root, "shared", "reviewer") == before
    assert sorted(p.name for p in (root / "memory" / "shared").iterdir()) == ["facts.md", "tone.md"]
    assert (root / "memory/writer/own.md").exists()  # the rename to shared did not happen either
    answered = [m["content"] for r in server.requests[1:] for m in r["messages"] if m["role"] == "tool"]
    assert len(answered) >= len(HOSTILE)
    assert all(text.startswith("Refused: ") for text in answered[: len(HOSTILE)])
    assert not any("Plain words" in text or "sky is blue" in text for text in answered)  # not even read
    assert report.changes == []
    assert len(report.refused) == len(HOSTILE)
    assert all(r.scope == "writer" for r in service.history.records())


@pytest.mark.parametrize("payload", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_every_hostile_call_is_refused_by_the_scoped_tool(tmp_path: Path, payload: dict[str, Any]) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    _brain, service = open_brain(root, tmp_path / "history.jsonl")
    before = _files(root, "shared", "reviewer", "writer")
    result = ScopedMemoryTool(service, "writer", Actor.admin(via="consolidate")).run(payload)
    assert not result.ok
    assert _files(root, "shared", "reviewer", "writer") == before


@pytest.mark.parametrize(
    "payload",
    [
        {"command": "view", "path": "/memories"},
        {"command": "view", "path": "/memories/own.md"},
        {"command": "delete", "path": "/memories/own.md"},
        {"command": "create", "path": "/memories/new.md", "file_text": "x"},
        {"command": "rename", "old_path": "/memories/shared/tone.md", "new_path": "/memories/own.md"},
    ],
)
def test_a_shared_run_cannot_reach_an_agents_scope(tmp_path: Path, payload: dict[str, Any]) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    _brain, service = open_brain(root, tmp_path / "history.jsonl")
    before = _files(root, "shared", "reviewer", "writer")
    result = ScopedMemoryTool(service, "shared", Actor.admin(via="consolidate")).run(payload)
    assert not result.ok
    assert result.refusal is not None
    assert "outside the scope being consolidated (`shared`)" in result.refusal.message
    assert _files(root, "shared", "reviewer", "writer") == before


def test_a_shared_run_works_on_shared(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    _brain, service = open_brain(root, tmp_path / "history.jsonl")
    tool = ScopedMemoryTool(service, "shared", Actor.admin(via="consolidate"))
    listing = tool.run({"command": "view", "path": "/memories/shared"})
    assert listing.ok
    assert "/memories/shared/tone.md" in listing.text
    assert "own.md" not in listing.text
    deleted = tool.run({"command": "delete", "path": "/memories/shared/facts.md"})
    assert deleted.ok, deleted.text
    assert not (root / "memory/shared/facts.md").exists()
