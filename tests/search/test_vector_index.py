"""The embedded store's vector index: filters, swap-removal, stale vectors refused, and
vectors taken for the notes a snapshot's restore brought back."""

from __future__ import annotations

import pytest

from brain.model import MemoryNode
from brain.store.base import SearchWhere, WriteBatch
from brain.store.memory.store import MemoryStore

pytest.importorskip("numpy")


def memory(scope: str, name: str, content: str = "x", type: str | None = None) -> MemoryNode:
    return MemoryNode(scope=scope, name=name, path=f"memory/{scope}/{name}.md", description="",
                      type=type, hash=content, size=1, modified_at=0.0, body=content)


def found(store: MemoryStore, where: SearchWhere) -> list[str]:
    return [node_id for node_id, _ in store.vector_search([0.0, 1.0], where, 10)]


def test_filters_removal_and_staleness() -> None:
    store = MemoryStore()
    notes = [memory("a", "one", type="user"), memory("b", "two"), memory("shared", "three"),
             memory("a", "four")]
    store.write(WriteBatch(memories=notes))
    store.put_vectors([(m.id, m.hash, [1.0, float(i)]) for i, m in enumerate(notes)])
    store.put_vectors([("memory:a/one", "old-hash", [0.0, 0.0])])  # stale: ignored
    store.put_vectors([("memory:a/gone", "x", [0.0, 9.0])])  # no such note: ignored
    everything = found(store, SearchWhere())
    assert everything == ["memory:a/four", "memory:shared/three", "memory:b/two", "memory:a/one"]
    as_a = SearchWhere(frozenset({"a", "shared"}))
    assert found(store, as_a) == ["memory:a/four", "memory:shared/three", "memory:a/one"]
    assert found(store, SearchWhere(None, "user")) == ["memory:a/one"]
    store.write(WriteBatch(deletes=["memory:a/one"]))  # the last row moves into its place
    store.write(WriteBatch(memories=[memory("b", "two", content="edited")]))  # new content: no vector
    assert store.vector_hashes() == {"memory:a/four": "x", "memory:shared/three": "x"}
    assert found(store, as_a) == ["memory:a/four", "memory:shared/three"]
    assert found(store, SearchWhere(frozenset({"nobody"}))) == []
    store.write(WriteBatch(memories=[memory("a", "four", type="project")]))  # same content, new type
    assert found(store, SearchWhere(None, "project")) == ["memory:a/four"]


def test_a_restored_store_takes_the_vectors_of_its_unchanged_notes() -> None:
    """A warm start restores the notes, not their vectors: the search indexer computes them
    again, and the store takes them for notes that are still there, unchanged."""
    live = MemoryStore()
    notes = [memory("a", "one", type="user"), memory("b", "two")]
    live.write(WriteBatch(memories=notes))
    restored = MemoryStore()
    restored.restore(live.contents())
    assert restored.vector_hashes() == {}
    restored.put_vectors([(m.id, m.hash, [1.0, float(i)]) for i, m in enumerate(notes)])
    restored.put_vectors([("memory:a/one", "old-hash", [0.0, 5.0])])  # stale: still refused
    assert restored.vector_hashes() == {"memory:a/one": "x", "memory:b/two": "x"}
    assert found(restored, SearchWhere(None, "user")) == ["memory:a/one"]
    assert found(restored, SearchWhere(frozenset({"b"}))) == ["memory:b/two"]
