"""The embedded store's search indexes: brain's BM25 index for keywords, a numpy matrix for vectors.

The keyword index (brain/index/bm25.py) ranks as SQLite FTS5 did, several times faster, and
updates a note in microseconds, so it is written in the same locked step as the graph
(`MemoryStore.write`) and a search never sees a note the graph does not have. Vectors are a
dense float32 matrix scanned by one matrix-vector product: 100,000 x 384 is 150 MB and ~10 ms
a query, no ANN index needed at this size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

# The column weights of BM25 (name 4, description 2, body 1) are brain/index/bm25.py's, and
# Neo4j's full-text query uses the same.
from brain.index.bm25 import BODY_WEIGHT, DESCRIPTION_WEIGHT, NAME_WEIGHT, BM25Index, KeywordImage
from brain.index.text import title_of
from brain.store.base import Ranked, SearchWhere, WriteBatch

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


#: A memory's (hash, scope, type) as its store holds it now; None: no such memory.
MemoryFacts = Callable[[str], "tuple[str, str, str | None] | None"]


class VectorIndex:
    """Unit vectors by memory id, with the scope and type each search filters on.

    Scope and type are small integer codes in arrays beside the matrix, so a filtered search
    is one `isin` and one matrix-vector product, not a Python loop over 100,000 rows.
    Whether a vector is still wanted (its note there, with the hash it was computed from)
    is asked of the store (`facts`): a copy of every memory's hash, scope and type here was
    16 MB at 100,000 notes, and was empty after a snapshot's restore, which then refused
    every vector of an unchanged note.
    """

    def __init__(self, facts: MemoryFacts) -> None:
        self._facts = facts
        self.clear()

    def clear(self) -> None:
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._hashes: list[str] = []
        self._codes: dict[str | None, int] = {}  # scope or type -> code
        self._matrix: Any = None  # numpy float32 (capacity x dims), created with the first vector
        self._scopes: Any = None  # numpy int32 (capacity,): code of each row's scope
        self._types: Any = None  # numpy int32 (capacity,): code of each row's type

    def _code(self, value: str | None) -> int:
        return self._codes.setdefault(value, len(self._codes))

    def apply(self, batch: WriteBatch) -> None:
        for node_id in batch.deletes:
            self._remove(node_id)
        for memory in batch.memories:
            row = self._rows.get(memory.id)
            if row is None:
                continue
            if self._hashes[row] != memory.hash:
                self._remove(memory.id)
            else:
                self._types[row] = self._code(memory.type)

    def put(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        import numpy as np

        for node_id, content_hash, vector in rows:
            current = self._facts(node_id)
            if current is None or current[0] != content_hash:
                continue  # the note changed or went while its vector was computed
            values = np.asarray(vector, dtype=np.float32)
            if self._matrix is None:
                self._matrix = np.zeros((1024, values.shape[0]), dtype=np.float32)
                self._scopes = np.zeros(1024, dtype=np.int32)
                self._types = np.zeros(1024, dtype=np.int32)
            row = self._rows.get(node_id)
            if row is None:
                row = len(self._ids)
                if row >= self._matrix.shape[0]:
                    self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)])
                    self._scopes = np.concatenate([self._scopes, np.zeros_like(self._scopes)])
                    self._types = np.concatenate([self._types, np.zeros_like(self._types)])
                self._ids.append(node_id)
                self._hashes.append(content_hash)
                self._rows[node_id] = row
            self._matrix[row] = values
            self._hashes[row] = content_hash
            self._scopes[row] = self._code(current[1])
            self._types[row] = self._code(current[2])

    def _remove(self, node_id: str) -> None:
        row = self._rows.pop(node_id, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if row != last:  # move the last row into the hole
            moved = self._ids[last]
            for array in (self._matrix, self._scopes, self._types):
                array[row] = array[last]
            self._ids[row], self._hashes[row] = moved, self._hashes[last]
            self._rows[moved] = row
        self._ids.pop()
        self._hashes.pop()

    def hashes(self) -> dict[str, str]:
        return {node_id: self._hashes[row] for node_id, row in self._rows.items()}

    def search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked:
        import numpy as np

        count = len(self._ids)
        if not count or limit <= 0:
            return []
        scores = self._matrix[:count] @ np.asarray(vector, dtype=np.float32)
        keep = np.ones(count, dtype=bool)
        if where.scopes is not None:
            allowed = [self._codes[s] for s in where.scopes if s in self._codes]
            keep &= np.isin(self._scopes[:count], allowed)
        if where.type is not None:
            keep &= self._types[:count] == self._codes.get(where.type, -1)
        candidates = np.flatnonzero(keep)
        if not len(candidates):
            return []
        k = min(limit, len(candidates))
        chosen = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
        ranked = sorted(((float(scores[i]), self._ids[i]) for i in chosen), key=lambda p: (-p[0], p[1]))
        return [(node_id, score) for score, node_id in ranked]

    def __len__(self) -> int:
        return len(self._ids)


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
