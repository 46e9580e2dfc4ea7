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


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_answers_what_a_scan_of_every_vector_in_reach_does(seed: int) -> None:
    """One matrix per scope, searched for the reader's scopes only: the same notes, order and
    scores as scoring every vector and then keeping those in reach, through puts, re-puts
    (a new vector for the same content), deletes that move rows, and type filters."""
    import numpy as np

    rng = np.random.default_rng(seed)
    store = MemoryStore()
    scopes, types = ["a", "b", "c", "shared"], [None, "user", "project"]
    notes = [memory(scopes[i % 4], f"n{i}", type=types[i % 3]) for i in range(300)]
    store.write(WriteBatch(memories=notes))

    def unit(n: int) -> list[list[float]]:
        raw = rng.normal(size=(n, 16)).astype(np.float32)
        rows: list[list[float]] = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).tolist()
        return rows

    vectors = dict(zip((m.id for m in notes), unit(len(notes)), strict=True))
    store.put_vectors([(m.id, m.hash, vectors[m.id]) for m in notes])
    again = notes[::7]
    vectors.update(zip((m.id for m in again), unit(len(again)), strict=True))
    store.put_vectors([(m.id, m.hash, vectors[m.id]) for m in again])
    gone = {m.id for m in notes[::5]}
    store.write(WriteBatch(deletes=sorted(gone)))
    kept = [m for m in notes if m.id not in gone]
    for query in unit(4):
        for where in (SearchWhere(), SearchWhere(frozenset({"a", "shared"})), SearchWhere(frozenset({"b"})),
                      SearchWhere(frozenset({"c", "nobody"}), "user"), SearchWhere(None, "project")):
            scored = sorted(
                ((m.id, float(np.dot(vectors[m.id], query))) for m in kept
                 if (where.scopes is None or m.scope in where.scopes) and where.type in (None, m.type)),
                key=lambda hit: (-hit[1], hit[0]),
            )
            for limit in (1, 10, 500):
                got = store.vector_search(query, where, limit)
                assert [i for i, _ in got] == [i for i, _ in scored[:limit]], (where, limit)
                assert [s for _, s in got] == pytest.approx([s for _, s in scored[:limit]], abs=1e-5)
