"""The embedded store's search indexes: brain's BM25 index for keywords, numpy matrices for vectors.

The keyword index (brain/index/bm25.py) ranks as SQLite FTS5 did, several times faster, and
updates a note in microseconds, so it is written in the same locked step as the graph
(`MemoryStore.write`) and a search never sees a note the graph does not have. Vectors are
dense float32 matrices, one per scope, scanned by matrix-vector products over the scopes the
reader sees (brain/store/memory/vectors.py): no ANN index needed at 100,000 notes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

# The column weights of BM25 (name 4, description 2, body 1) are brain/index/bm25.py's, and
# Neo4j's full-text query uses the same.
from brain.index.bm25 import BODY_WEIGHT, DESCRIPTION_WEIGHT, NAME_WEIGHT, BM25Index, KeywordImage
from brain.index.text import title_of
from brain.store.base import Ranked, SearchWhere, WriteBatch
from brain.store.memory.vectors import VectorIndex

__all__ = ["BODY_WEIGHT", "DESCRIPTION_WEIGHT", "NAME_WEIGHT", "KeywordIndex", "VectorIndex"]


class KeywordIndex:
    """The store's side of brain's keyword index (brain/index/bm25.py): kept in step with the
    graph by `MemoryStore.write`, in the same locked step."""

    def __init__(self) -> None:
        self._index = BM25Index()

    def apply(self, batch: WriteBatch) -> None:
        """A changed note's old postings are dropped by its slot: the old text is not needed.
        Notes a parse helper counted (`batch.keywords`) are not counted again."""
        index = self._index
        for node_id in batch.deletes:
            index.remove(node_id)
        counted = batch.keywords
        index.add_counted(
            (m.id, m.scope, m.type or "", *counted[m.id]) for m in batch.memories if m.id in counted
        )
        index.add_many(
            (m.id, m.scope, m.type or "", title_of(m.name), m.description, m.body)
            for m in batch.memories if m.id not in counted
        )

    def search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked:
        if not terms or limit <= 0 or (where.scopes is not None and not where.scopes):
            return []
        return self._index.search(terms, where.scopes, where.type, limit, common=where.common)

    def clear(self) -> None:
        self._index = BM25Index()

    def image(self) -> KeywordImage:
        """The whole index, for a snapshot: pieces written one after another."""
        return self._index.image_parts()

    def load_image(self, image: bytes | KeywordImage) -> None:
        """Replace the index by an `image()`: far faster than indexing every note again."""
        self._index.load_image(image if isinstance(image, bytes) else image.join())

    def __len__(self) -> int:
        return len(self._index)


class MemorySearch:
    """The SearchIndex half of MemoryStore (mixed in; uses its lock and the two indexes)."""

    _lock: threading.RLock
    _keywords: KeywordIndex
    _vectors: VectorIndex

    def keyword_search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked:
        with self._lock:
            return self._keywords.search(terms, where, limit)

    def vector_search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked:
        with self._lock:
            return self._vectors.search(vector, where, limit)

    def put_vectors(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        with self._lock:
            self._vectors.put(rows)

    def vector_hashes(self) -> dict[str, str]:
        with self._lock:
            return self._vectors.hashes()
