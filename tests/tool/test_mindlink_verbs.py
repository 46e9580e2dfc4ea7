"""mindlink's memory tools (seeds/003) on real files: memory_get / memory_write / memory_delete
tables with their refusals, and memory_search's confinement to the agent's own tree."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.calls.refusal import Refusal
from brain.tool.history.log import History
from brain.tool.layouts.mindlink import Mindlink
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW

ENTRY = (
    "---\nname: prefers-short-answers\ndescription: Maya wants answers in three sentences or fewer.\n"
    "type: user\n---\n\nConclusion first.\n"
)
FEEDBACK = (
    "---\nname: no-emoji\ndescription: No emoji in release notes.\ntype: feedback\n---\n\n"
    "Never use emoji in release notes.\n\nWhy: the changelog renders them as boxes.\n"
    "How to apply: write the word instead.\n"
)
OPEN = Actor.open("python")
ALICE = Actor.of_agent("alice", "mcp")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "alice/memory/entries").mkdir(parents=True)
    (root / "alice/memory/entries/prefers-short-answers.md").write_text(ENTRY)
    (root / "alice/memory/2026-11-30.md").write_text("Worked on the release notes.\n")
    (root / "bob/memory/entries").mkdir(parents=True)
    (root / "bob/memory/entries/bobs.md").write_text(ENTRY)
    (root / "brain.toml").write_text('layout = "mindlink"\n')
    return root


class Recorded:
    """A search that answers what the index would, including another agent's hit, so the
    tool's own confinement is what keeps it out."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int]] = []

    def __call__(self, query: str, agent: str, limit: int) -> Sequence[dict[str, Any]]:
        self.asked.append((query, agent, limit))
        return [
            {"path": "alice/memory/entries/prefers-short-answers.md", "score": 0.9, "snippet": "short"},
            {"path": "bob/memory/entries/bobs.md", "score": 0.8, "snippet": "bob"},
        ]


@pytest.fixture
def search() -> Recorded:
    return Recorded()


@pytest.fixture
def mindlink(root: Path, tmp_path: Path, search: Recorded) -> Mindlink:
    service = MemoryService(root, history=History(tmp_path / "history.jsonl"), clock=lambda: NOW)
    return Mindlink(AgentMemory(service), search)


def refused(mindlink: Mindlink, actor: Actor, verb: str, agent: str = "alice", **args: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        mindlink.call(actor, agent, verb, args)
    return caught.value


@pytest.mark.parametrize(("path", "expected"), [
    ("entries/prefers-short-answers.md", {"kind": "entry", "content": ENTRY,
                                          "path": "entries/prefers-short-answers.md"}),
    ("memory/entries/prefers-short-answers.md", {"kind": "entry"}),
    ("2026-11-30.md", {"kind": "daily", "content": "Worked on the release notes.\n"}),
    ("entries", {"kind": "folder", "path": "entries/"}),
    ("", {"kind": "folder", "path": ""}),
])
def test_memory_get(mindlink: Mindlink, path: str, expected: dict[str, Any]) -> None:
    answer = mindlink.call(ALICE, "alice", "memory_get", {"path": path})
    assert {k: answer[k] for k in expected} == expected


def test_memory_get_lists_relative_paths(mindlink: Mindlink) -> None:
    answer = mindlink.call(ALICE, "alice", "memory_get", {})
    assert [(e["path"], e["kind"]) for e in answer["entries"]] == [
        ("2026-11-30.md", "file"), ("entries/", "folder"),
    ]


@pytest.mark.parametrize(("path", "content", "kind"), [
    ("entries/no-emoji.md", FEEDBACK, "entry"),
    ("entries/prefers-short-answers.md", ENTRY.replace("three", "two"), "entry"),
    ("2026-12-01.md", "Today: the release. Whatever shape.\n", "daily"),
])
def test_memory_write_creates_or_updates_by_path(
    mindlink: Mindlink, root: Path, path: str, content: str, kind: str
) -> None:
    existed = (root / "alice/memory" / path).exists()
    answer = mindlink.call(ALICE, "alice", "memory_write", {"path": path, "content": content})
    assert (answer["kind"], answer["created"], answer["path"]) == (kind, not existed, path)
    assert (root / "alice/memory" / path).read_text() == content
    record = mindlink.memory.memory.history.records()[0]
    assert (record.command, record.path, record.scope) == ("memory_write", f"alice/memory/{path}", "alice")


NO_WHY = FEEDBACK.replace("Why: the changelog renders them as boxes.\n", "")


@pytest.mark.parametrize(("args", "code", "says"), [
    ({"path": "notes/x.md", "content": ENTRY}, "not-a-memory", "entries/<name>.md"),
    ({"path": "2026-02-30.md", "content": "x"}, "not-a-memory", "a real date"),
    ({"path": "entries/deep/x.md", "content": ENTRY}, "not-a-memory", "not a memory"),
    ({"path": "entries/x.md", "content": "no frontmatter\n"}, "invalid-argument", "description"),
    ({"path": "entries/x.md", "content": ENTRY.replace("type: user", "type: musing")},
     "invalid-argument", "not `musing`"),
    ({"path": "entries/x.md", "content": NO_WHY}, "invalid-argument", "feedback-incomplete"),
    ({"path": "entries/x.md", "content": "---\ndescription: [unclosed\n---\n"}, "invalid-argument",
     "frontmatter"),
    ({"path": "2026-12-01.md", "content": "key AKIAABCDEFGHIJKLMNOP\n"}, "secret", "AWS access key"),
    ({"path": "entries/x.md"}, "invalid-argument", "`content` must be a string"),
    ({"path": "2026-12-01.md", "content": "a\x00b"}, "not-text", "NUL character on line 1"),
    ({"path": "2026-12-01.md", "content": "a\ud800b"}, "not-text", "unpaired surrogate"),
    ({"path": "../bob/memory/entries/bobs.md", "content": ENTRY}, "invalid-path", "not a path inside"),
    ({"path": "entries/Bad Name?.md", "content": ENTRY}, "invalid-path", ""),
])
def test_memory_write_refusals_change_nothing(
    mindlink: Mindlink, root: Path, args: dict[str, Any], code: str, says: str
) -> None:
    before = sorted(p.read_bytes() for p in root.rglob("*.md"))
    refusal = refused(mindlink, ALICE, "memory_write", **args)
    assert (refusal.code.value, says in refusal.message) == (code, True), refusal.message
    assert sorted(p.read_bytes() for p in root.rglob("*.md")) == before
    assert mindlink.memory.memory.history.records() == []


def test_a_feedback_refusal_suggests_a_write_that_is_accepted(mindlink: Mindlink, root: Path) -> None:
    refusal = refused(mindlink, ALICE, "memory_write", path="entries/no-emoji.md", content=NO_WHY)
    assert refusal.suggestion is not None
    assert "Why:" in str(refusal.suggestion.args["content"])
    mindlink.call(ALICE, "alice", "memory_write", dict(refusal.suggestion.args))
    assert (root / "alice/memory/entries/no-emoji.md").exists()


def test_memory_write_to_another_agent_is_refused_as_missing(mindlink: Mindlink, root: Path) -> None:
    refusal = refused(mindlink, ALICE, "memory_write", agent="bob", path="entries/bobs.md", content=ENTRY)
    assert refusal.code.value == "not-found"
    assert (root / "bob/memory/entries/bobs.md").read_text() == ENTRY


def test_memory_delete(mindlink: Mindlink, root: Path) -> None:
    answer = mindlink.call(ALICE, "alice", "memory_delete", {"path": "entries/prefers-short-answers.md"})
    assert answer == {"path": "entries/prefers-short-answers.md", "deleted": "file",
                      "files": ["entries/prefers-short-answers.md"]}
    assert not (root / "alice/memory/entries/prefers-short-answers.md").exists()
    record = mindlink.memory.memory.history.records()[0]
    assert (record.command, record.after) == ("memory_delete", None)
    assert refused(mindlink, ALICE, "memory_delete", path="entries/prefers-short-answers.md").code.value == (
        "not-found"
    )
    assert refused(mindlink, ALICE, "memory_delete", agent="bob", path="entries/bobs.md").code.value == (
        "not-found"
    )


def test_memory_search_stays_in_the_agents_own_tree(mindlink: Mindlink, search: Recorded) -> None:
    answer = mindlink.call(ALICE, "alice", "memory_search", {"query": "short answers", "limit": 5})
    assert [h["path"] for h in answer["hits"]] == ["entries/prefers-short-answers.md"]
    assert search.asked == [("short answers", "alice", 5)]


@pytest.mark.parametrize(("args", "says"), [
    ({"query": ""}, "non-empty"),
    ({"query": "x" * 1001}, "at most 1000"),
    ({"query": "x", "limit": 0}, "from 1 to 50"),
    ({"query": "x", "limit": True}, "from 1 to 50"),
])
def test_memory_search_refusals(mindlink: Mindlink, args: dict[str, Any], says: str) -> None:
    assert says in refused(mindlink, ALICE, "memory_search", **args).message


def test_an_unknown_tool_names_the_four(mindlink: Mindlink) -> None:
    refusal = refused(mindlink, ALICE, "memory_append", path="2026-12-01.md")
    assert "memory_search, memory_get, memory_write, memory_delete" in refusal.message
