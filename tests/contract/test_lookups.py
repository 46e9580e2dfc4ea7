"""Lookups by id, name, path and filter: the reads every front end builds on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from brain.model import AgentNode, EntityNode, Kind, MemoryNode, UnresolvedNode
from brain.resolve import NameEntry
from brain.store.base import GraphStore, MemoryFilter
from tests.contract.helpers import Workspace, note


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path)
    ws.write("agents/bot.md", "---\ndescription: Helps\nmemory: true\n---\n")
    retry = note("How we retry", "# Backoff\n## Limits\n[[Deploy]]", "feedback")
    ws.write("memory/bot/Retry Policy.md", retry)
    ws.write("memory/bot/deploy.md", note("Deploy steps", "[[release-flow]] [[ghost]]", "project"))
    ws.write("memory/bot/untyped.md", "Just a first line\n\nbody\n")
    ws.write("memory/shared/deploy.md", note("Shared deploy notes", "", "reference"))
    ws.write("memory/shared/Ünïcode.md", note("Ünïcode notes", "", "user"))
    ws.write("memory/old-bot/left.md", note("left behind", ""))
    ws.write("workflows/release-flow.yaml", "title: Release flow\n")
    ws.write("chats/standup.md", "---\ntitle: Standup\n---\nhi\n")
    ws.write("work-items/T-1.yaml", "title: Fix it\n")
    return ws


def test_get_nodes_returns_each_kind_and_skips_unknown_ids(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    ids = [
        "memory:bot/deploy", "agent:bot", "workflow:release-flow", "chat:standup",
        "work-item:T-1", "unresolved:ghost", "memory:bot/nothing", "agent:nobody", "no-kind", "",
    ]
    found = store.get_nodes(ids)
    assert sorted(found) == sorted(ids[:6])
    memory = found["memory:bot/deploy"]
    assert isinstance(memory, MemoryNode)
    assert (memory.scope, memory.name, memory.path, memory.type) == (
        "bot", "deploy", "memory/bot/deploy.md", "project",
    )
    assert found["agent:bot"] == AgentNode("bot", "Helps", True, False, "agents/bot.md")
    assert found["workflow:release-flow"] == EntityNode(
        Kind.WORKFLOW, "release-flow", "Release flow", "workflows/release-flow.yaml",
    )
    assert found["chat:standup"] == EntityNode(Kind.CHAT, "standup", "Standup", "chats/standup.md")
    assert found["unresolved:ghost"] == UnresolvedNode("ghost")
    assert store.get_nodes([]) == {}


def test_find_memory_exact_then_by_name_key(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    exact = store.find_memory("bot", "Retry Policy")
    assert exact is not None
    assert exact.id == "memory:bot/Retry Policy"
    folded = store.find_memory("BOT", "retry policy.md")
    assert folded == exact
    unicode = store.find_memory("shared", "ünïcode")
    assert unicode is not None
    assert unicode.name == "Ünïcode"
    assert store.find_memory("bot", "ghost") is None
    assert store.find_memory("nobody", "deploy") is None


def test_memory_by_path(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    found = store.memory_by_path("memory/shared/deploy.md")
    assert found is not None
    assert found.id == "memory:shared/deploy"
    assert store.memory_by_path("memory/shared/missing.md") is None
    assert store.memory_by_path("workflows/release-flow.yaml") is None


def test_list_memories_filters(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)

    def ids(where: MemoryFilter) -> list[str]:
        return [m.id for m in store.list_memories(where)]

    assert ids(MemoryFilter()) == [
        "memory:bot/Retry Policy", "memory:bot/deploy", "memory:bot/untyped",
        "memory:old-bot/left", "memory:shared/deploy", "memory:shared/Ünïcode",
    ]
    assert ids(MemoryFilter(scope="shared")) == ["memory:shared/deploy", "memory:shared/Ünïcode"]
    assert ids(MemoryFilter(agent="old-bot")) == ["memory:old-bot/left"]
    assert ids(MemoryFilter(scope="bot", agent="shared")) == []
    assert ids(MemoryFilter(type="feedback")) == ["memory:bot/Retry Policy"]
    assert ids(MemoryFilter(text="DEPLOY")) == ["memory:bot/deploy", "memory:shared/deploy"]
    assert ids(MemoryFilter(text="we retry")) == ["memory:bot/Retry Policy"]
    assert ids(MemoryFilter(text="ÜNÏ")) == ["memory:shared/Ünïcode"]
    assert ids(MemoryFilter(text="")) == ids(MemoryFilter())
    assert ids(MemoryFilter(has_problems=True)) == ["memory:bot/deploy"]
    assert len(ids(MemoryFilter(has_problems=False))) == 5
    assert store.count_memories(MemoryFilter(scope="bot")) == 3
    assert store.count_memories(MemoryFilter(has_problems=True, scope="shared")) == 0


def test_list_memories_pages_by_id(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    every = [m.id for m in store.list_memories(MemoryFilter())]
    pages: list[str] = []
    after: str | None = None
    while page := store.list_memories(MemoryFilter(), after=after, limit=4):
        pages += [m.id for m in page]
        after = page[-1].id
    assert pages == every
    assert [m.id for m in store.list_memories(MemoryFilter(scope="bot"), after="memory:bot/deploy")] == [
        "memory:bot/untyped",
    ]
    assert store.list_memories(MemoryFilter(), after="memory:zzz") == []


def test_list_memories_without_bodies_is_the_same_list_with_empty_bodies(
    store: GraphStore, workspace: Workspace
) -> None:
    workspace.brain(store)
    full = store.list_memories(MemoryFilter(scope="bot"), limit=2)
    bare = store.list_memories(MemoryFilter(scope="bot"), limit=2, bodies=False)
    assert any(m.body for m in full)
    assert bare == [replace(m, body="") for m in full]


def test_order_is_by_code_point_past_the_basic_plane(store: GraphStore, tmp_path: Path) -> None:
    # Neo4j compares some strings by UTF-16 units, Python by code points: they disagree
    # between U+E000..U+FFFF and characters past U+FFFF. Both stores must page alike.
    ws = Workspace(tmp_path)
    names = ["a", "z", "é", "\ufb01x", "\U0001f680-launch", "\uff21wide", "\U00020000"]
    for name in names:
        ws.write(f"memory/shared/{name}.md", note(name))
    ws.brain(store)
    expected = sorted(f"memory:shared/{name}" for name in names)
    assert [m.id for m in store.list_memories(MemoryFilter())] == expected
    paged = [m.id for m in store.list_memories(MemoryFilter(), after=expected[3], limit=2)]
    assert paged == expected[4:6]


def test_agents_entities_and_type_counts(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    assert [(a.name, a.memory_enabled, a.memory_off) for a in store.list_agents()] == [
        ("bot", True, False), ("old-bot", False, True),
    ]
    assert [e.id for e in store.list_entities(Kind.WORKFLOW)] == ["workflow:release-flow"]
    assert [e.title for e in store.list_entities(Kind.WORK_ITEM)] == ["Fix it"]
    assert store.list_entities(Kind.MEMORY) == []
    assert store.memory_type_counts(["bot", "shared", "nobody"]) == {
        "bot": {"feedback": 1, "project": 1, None: 1},
        "shared": {"reference": 1, "user": 1},
        "nobody": {},
    }
    assert store.memory_type_counts([]) == {}
    assert store.memory_scopes() == {"bot": 3, "old-bot": 1, "shared": 2}
    assert [m.id for m in store.list_memories(MemoryFilter(scope="shared"), bodies=False)] == [
        m.id for m in store.list_memories(MemoryFilter()) if m.scope == "shared"
    ]


def test_name_entries_and_headings(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    entries = store.name_entries(["deploy", "release-flow", "bot", "nothing"])
    assert {k: sorted(v, key=lambda e: e.id) for k, v in entries.items()} == {
        "deploy": [
            NameEntry("memory:bot/deploy", Kind.MEMORY, "deploy", "bot"),
            NameEntry("memory:shared/deploy", Kind.MEMORY, "deploy", "shared"),
        ],
        "release-flow": [NameEntry("workflow:release-flow", Kind.WORKFLOW, "release-flow")],
        "bot": [NameEntry("agent:bot", Kind.AGENT, "bot")],
    }
    found = store.anchors(["memory:bot/Retry Policy", "memory:bot/deploy", "memory:none/x"])
    assert {k: [h.text for h in v.headings] for k, v in found.items()} == {
        "memory:bot/Retry Policy": ["Backoff", "Limits"],
        "memory:bot/deploy": [],
    }
