"""The embedded store's search indexes: SQLite FTS5 for keywords, a numpy matrix for vectors.

FTS5 ships with Python's sqlite3, ranks with BM25 in C, and updates a row in microseconds,
so the index is written in the same locked step as the graph (`MemoryStore.write`) and a
search never sees a note the graph does not have. Vectors are a dense float32 matrix scanned
by one matrix-vector product: 100,000 x 384 is 150 MB and ~10 ms a query, no ANN index needed
at this size. numpy is optional (the `semantic` extra): without it keyword search still works.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from brain.model import MemoryNode
from brain.search.text import fts5_expression, title_of
from brain.store.base import Ranked, SearchWhere, WriteBatch

# Column weights of BM25: a word in the name counts more than one in the description, which
# counts more than one in the body (measured on tests/fixtures/search; Neo4j uses the same).
NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 4.0, 2.0, 1.0


class KeywordIndex:
    """Contentless FTS5 (the index only: bodies are not kept twice), scope, type and id in a
    plain table beside it. Deleting from a contentless index needs the text it indexed: the
    store passes the nodes a batch replaces."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(
            "CREATE VIRTUAL TABLE notes USING fts5(name, description, body, content = '', "
            "tokenize = 'unicode61 remove_diacritics 0')"
        )
        self._db.execute("CREATE TABLE meta (rowid INTEGER PRIMARY KEY, scope TEXT, type TEXT, id TEXT)")
        # The weights as the table's own rank function: `ORDER BY rank LIMIT n` then keeps
        # only the best n while it scores (1.5x faster than sorting bm25() over every match).
        self._db.execute(
            "INSERT INTO notes(notes, rank) VALUES "
            f"('rank', 'bm25({NAME_WEIGHT}, {DESCRIPTION_WEIGHT}, {BODY_WEIGHT})')"
        )
        self._rowids: dict[str, int] = {}
        self._next = 1

    def apply(self, batch: WriteBatch, previous: Mapping[str, MemoryNode]) -> None:
        """`previous`: the stored nodes of the ids this batch deletes or replaces."""
        db = self._db
        db.execute("BEGIN")
        try:
            for node_id in [*batch.deletes, *(m.id for m in batch.memories)]:
                rowid = self._rowids.pop(node_id, None)
                old = previous.get(node_id)
                if rowid is not None and old is not None:
                    db.execute("INSERT INTO notes(notes, rowid, name, description, body) "
                               "VALUES ('delete', ?, ?, ?, ?)", _text(rowid, old))
                    db.execute("DELETE FROM meta WHERE rowid = ?", (rowid,))
            rows: list[tuple[Any, ...]] = []
            for memory in batch.memories:
                rowid = self._rowids[memory.id] = self._next
                self._next += 1
                rows.append(_text(rowid, memory))
            db.executemany("INSERT INTO notes(rowid, name, description, body) VALUES (?, ?, ?, ?)", rows)
            db.executemany(
                "INSERT INTO meta(rowid, scope, type, id) VALUES (?, ?, ?, ?)",
                [(self._rowids[m.id], m.scope, m.type or "", m.id) for m in batch.memories],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked:
        if not terms or limit <= 0 or (where.scopes is not None and not where.scopes):
            return []
        sql = ("SELECT meta.id, notes.rank FROM notes JOIN meta ON meta.rowid = notes.rowid "
               "WHERE notes MATCH ?")
        params: list[Any] = [fts5_expression(terms)]
        if where.scopes is not None:
            sql += f" AND meta.scope IN ({', '.join('?' * len(where.scopes))})"
            params += sorted(where.scopes)
        if where.type is not None:
            sql += " AND meta.type = ?"
            params.append(where.type)
        sql += " ORDER BY notes.rank LIMIT ?"
        params.append(limit)
        # bm25() is negative, lower is better: report it as a positive score, higher is better;
        # equal scores in id order, as on Neo4j.
        rows = [(node_id, -rank) for node_id, rank in self._db.execute(sql, params)]
        return sorted(rows, key=lambda row: (-row[1], row[0]))

    def clear(self) -> None:
        self._db.execute("DELETE FROM notes")
        self._db.execute("DELETE FROM meta")
        self._rowids.clear()

    def image(self) -> bytes:
        """The whole index as bytes (SQLite's own file format), for a snapshot."""
        return self._db.serialize()

    def load_image(self, image: bytes) -> None:
        """Replace the index by an `image()`: far faster than inserting every note again."""
        self._db.deserialize(image)
        self._rowids = {node_id: rowid for rowid, node_id in self._db.execute("SELECT rowid, id FROM meta")}
        self._next = max(self._rowids.values(), default=0) + 1

    def __len__(self) -> int:
        return len(self._rowids)


def _text(rowid: int, memory: MemoryNode) -> tuple[Any, ...]:
    return (rowid, title_of(memory.name), memory.description, memory.body)


class VectorIndex:
    """Unit vectors by memory id, with the scope and type each search filters on.

    Scope and type are small integer codes in arrays beside the matrix, so a filtered search
    is one `isin` and one matrix-vector product, not a Python loop over 100,000 rows.
    """

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._hashes: list[str] = []
        self._codes: dict[str | None, int] = {}  # scope or type -> code
        self._matrix: Any = None  # numpy float32 (capacity x dims), created with the first vector
        self._scopes: Any = None  # numpy int32 (capacity,): code of each row's scope
        self._types: Any = None  # numpy int32 (capacity,): code of each row's type
        self._current: dict[str, tuple[str, str, str | None]] = {}  # id -> (hash, scope, type)

    def _code(self, value: str | None) -> int:
        return self._codes.setdefault(value, len(self._codes))

    def apply(self, batch: WriteBatch) -> None:
        for node_id in batch.deletes:
            self._current.pop(node_id, None)
            self._remove(node_id)
        for memory in batch.memories:
            self._current[memory.id] = (memory.hash, memory.scope, memory.type)
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
            current = self._current.get(node_id)
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
