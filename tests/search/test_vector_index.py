"""The embedded vector index: filters, swap-removal, stale vectors refused."""

from __future__ import annotations

import pytest

from brain.model import MemoryNode
from brain.store.base import SearchWhere, WriteBatch
from brain.store.memory_search import VectorIndex

pytest.importorskip("numpy")


def memory(scope: str, name: str, content: str = "x", type: str | None = None) -> MemoryNode:
    return MemoryNode(scope=scope, name=name, path=f"memory/{scope}/{name}.md", description="",
                      type=type, hash=content, size=1, modified_at=0.0, body=content)


def test_filters_removal_and_staleness() -> None:
    index = VectorIndex()
    notes = [memory("a", "one", type="user"), memory("b", "two"), memory("shared", "three"),
             memory("a", "four")]
    index.apply(WriteBatch(memories=notes))
    index.put([(m.id, m.hash, [1.0, float(i)]) for i, m in enumerate(notes)])
    index.put([("memory:a/one", "old-hash", [0.0, 0.0])])  # stale: ignored
    assert len(index) == 4
    everything = [i for i, _ in index.search([0.0, 1.0], SearchWhere(), 10)]
    assert everything == ["memory:a/four", "memory:shared/three", "memory:b/two", "memory:a/one"]
    as_a = SearchWhere(frozenset({"a", "shared"}))
    assert [i for i, _ in index.search([0.0, 1.0], as_a, 10)] == [
        "memory:a/four", "memory:shared/three", "memory:a/one",
    ]
    assert [i for i, _ in index.search([0.0, 1.0], SearchWhere(None, "user"), 10)] == ["memory:a/one"]
    index.apply(WriteBatch(deletes=["memory:a/one"]))  # the last row moves into its place
    index.apply(WriteBatch(memories=[memory("b", "two", content="edited")]))  # new content: no vector
    assert index.hashes() == {"memory:a/four": "x", "memory:shared/three": "x"}
    assert [i for i, _ in index.search([0.0, 1.0], as_a, 10)] == ["memory:a/four", "memory:shared/three"]
    assert index.search([0.0, 1.0], SearchWhere(frozenset({"nobody"})), 10) == []
