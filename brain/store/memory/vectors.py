"""The embedded store's vector index: one contiguous float32 matrix per scope.

A reader's search multiplies only the matrices of the scopes it may see. One matrix for
every scope, masked after the product, multiplied all 100,000 rows for an agent who sees a
fifth of them (its own scope and `shared`): the product is the search's cost, and it read
five times the memory it needed. The filter is the choice of blocks, so a vector out of
reach is never scored at all, and each block's best `limit` rows are merged by score.
Without numpy nothing is created (numpy is imported on the first vector).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brain.store.base import Ranked, SearchWhere, WriteBatch

#: A memory's (hash, scope, type) as its store holds it now; None: no such memory.
MemoryFacts = Callable[[str], "tuple[str, str, str | None] | None"]

FIRST_ROWS = 64  # a block's first capacity; it doubles when full


class _Block:
    """One scope's rows: ids, content hashes, the vectors' matrix and each row's type code."""

    __slots__ = ("hashes", "ids", "matrix", "types")

    def __init__(self, dims: int) -> None:
        import numpy as np

        self.ids: list[str] = []
        self.hashes: list[str] = []
        self.matrix: Any = np.zeros((FIRST_ROWS, dims), dtype=np.float32)
        self.types: Any = np.zeros(FIRST_ROWS, dtype=np.int32)

    def append(self, node_id: str, content_hash: str) -> int:
        import numpy as np

        row = len(self.ids)
        if row >= self.matrix.shape[0]:
            self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
            self.types = np.concatenate([self.types, np.zeros_like(self.types)])
        self.ids.append(node_id)
        self.hashes.append(content_hash)
        return row

    def remove(self, row: int) -> str | None:
        """Drop `row` by moving the last row into it; the moved row's id, if one moved."""
        last = len(self.ids) - 1
        moved = None
        if row != last:
            moved = self.ids[last]
            self.matrix[row] = self.matrix[last]
            self.types[row] = self.types[last]
            self.ids[row], self.hashes[row] = moved, self.hashes[last]
        self.ids.pop()
        self.hashes.pop()
        return moved

    def best(self, query: Any, type_code: int | None, limit: int) -> list[tuple[float, str]]:
        """This block's best `limit` rows (of `type_code`, when given), unordered."""
        import numpy as np

        count = len(self.ids)
        if not count:
            return []
        scores = self.matrix[:count] @ query
        rows = None
        if type_code is not None:
            rows = np.flatnonzero(self.types[:count] == type_code)
            if not len(rows):
                return []
            scores = scores[rows]
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        ids = self.ids
        if rows is None:
            return [(float(scores[i]), ids[i]) for i in top]
        return [(float(scores[i]), ids[rows[i]]) for i in top]


class VectorIndex:
    """Unit vectors by memory id, in one block per scope, with the type each search filters on.

    Whether a vector is still wanted (its note there, with the hash it was computed from)
    is asked of the store (`facts`): a copy of every memory's hash, scope and type here was
    16 MB at 100,000 notes, and was empty after a snapshot's restore, which then refused
    every vector of an unchanged note.
    """

    def __init__(self, facts: MemoryFacts) -> None:
        self._facts = facts
        self.clear()

    def clear(self) -> None:
        self._blocks: dict[str, _Block] = {}
        self._rows: dict[str, tuple[str, int]] = {}  # id -> (scope, row in its block)
        self._types: dict[str | None, int] = {}  # type -> code

    def _type(self, value: str | None) -> int:
        return self._types.setdefault(value, len(self._types))

    def apply(self, batch: WriteBatch) -> None:
        for node_id in batch.deletes:
            self._remove(node_id)
        for memory in batch.memories:
            at = self._rows.get(memory.id)
            if at is None:
                continue
            block = self._blocks[at[0]]
            if block.hashes[at[1]] != memory.hash:
                self._remove(memory.id)
            else:
                block.types[at[1]] = self._type(memory.type)

    def put(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        import numpy as np

        for node_id, content_hash, vector in rows:
            current = self._facts(node_id)
            if current is None or current[0] != content_hash:
                continue  # the note changed or went while its vector was computed
            values = np.asarray(vector, dtype=np.float32)
            scope = current[1]
            at = self._rows.get(node_id)
            if at is not None and at[0] != scope:
                self._remove(node_id)
                at = None
            block = self._blocks.get(scope)
            if block is None:
                block = self._blocks[scope] = _Block(values.shape[0])
            row = block.append(node_id, content_hash) if at is None else at[1]
            self._rows[node_id] = (scope, row)
            block.matrix[row] = values
            block.hashes[row] = content_hash
            block.types[row] = self._type(current[2])

    def _remove(self, node_id: str) -> None:
        at = self._rows.pop(node_id, None)
        if at is None:
            return
        scope, row = at
        moved = self._blocks[scope].remove(row)
        if moved is not None:
            self._rows[moved] = (scope, row)

    def hashes(self) -> dict[str, str]:
        blocks = self._blocks
        return {node_id: blocks[scope].hashes[row] for node_id, (scope, row) in self._rows.items()}

    def search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked:
        import numpy as np

        if not self._rows or limit <= 0:
            return []
        scopes = self._blocks.keys() if where.scopes is None else where.scopes
        type_code = None
        if where.type is not None:
            type_code = self._types.get(where.type)
            if type_code is None:
                return []
        query = np.asarray(vector, dtype=np.float32)
        found: list[tuple[float, str]] = []
        for scope in scopes:
            block = self._blocks.get(scope)
            if block is not None:
                found += block.best(query, type_code, limit)
        found.sort(key=lambda p: (-p[0], p[1]))
        return [(node_id, score) for score, node_id in found[:limit]]

    def __len__(self) -> int:
        return len(self._rows)
