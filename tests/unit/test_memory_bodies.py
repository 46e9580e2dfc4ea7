"""The embedded store keeps bodies compressed: every way a memory leaves it has its body."""

from __future__ import annotations

from dataclasses import replace

import pytest

from brain.model import MemoryNode
from brain.store.base import MemoryFilter, WriteBatch
from brain.store.memory.rows import memory_of
from brain.store.memory.store import MemoryStore

BODIES = {
    "plain": "# Title\n\nSome text [[other]].\n",
    "empty": "",
    "unicode": "Grüße, 東京, emoji 🧠\n",
    "long": "line of text that repeats\n" * 5000,
}


def memory(name: str, body: str) -> MemoryNode:
    return MemoryNode(
        scope="shared", name=name, path=f"memory/shared/{name}.md", description=f"about {name}",
        type=None, hash=f"h-{name}", size=len(body), modified_at=0.0, body=body,
    )


@pytest.fixture
def store() -> MemoryStore:
    store = MemoryStore()
    store.write(WriteBatch(memories=[memory(name, body) for name, body in BODIES.items()]))
    return store


@pytest.mark.parametrize("name", list(BODIES))
def test_every_read_gives_the_body_back(store: MemoryStore, name: str) -> None:
    expected = memory(name, BODIES[name])
    assert store.get_nodes([expected.id]) == {expected.id: expected}
    assert store.find_memory("shared", name) == expected
    assert store.memory_by_path(expected.path) == expected
    assert expected in store.list_memories(MemoryFilter())
    # A neighbourhood's notes come without bodies (GraphStore.neighborhood): a graph view shows none.
    assert replace(expected, body="") in store.neighborhood(expected.id, 1, 10).nodes
    assert store.get_nodes([expected.id], bodies=False) == {expected.id: replace(expected, body="")}
    assert any(row[0] == expected.id and ("body", BODIES[name]) in row[2] for row in store.export().nodes)


def test_bodies_are_held_compressed_and_follow_updates_and_deletes(store: MemoryStore) -> None:
    held = [memory_of(m) if type(m) is tuple else m for m in store._memories.values()]  # rows or nodes
    assert held
    assert all(not m.body for m in held)  # held without them
    assert sum(map(len, store._bodies.held.values())) < sum(len(b) for b in BODIES.values()) / 3
    store.write(WriteBatch(memories=[memory("plain", "rewritten")], deletes=["memory:shared/long"]))
    assert store.memory_by_path("memory/shared/plain.md") == memory("plain", "rewritten")
    assert "memory:shared/long" not in store._bodies.held
    assert store.count_memories(MemoryFilter()) == 3
