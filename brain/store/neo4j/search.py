"""Search on Neo4j: its own full-text (Lucene BM25) and vector indexes, created with the schema.

The full-text index `memory_text` covers title (the name as words), description and body
with the same column weights as the embedded store's BM25 index; the vector index
`memory_embedding` holds each note's MiniLM vector. Neo4j keeps both in step with every
committed write. A memory upsert replaces all of a node's properties (`SET m = row.props`),
vector included, which is exactly the staleness rule: the search service re-puts the vector
from its cache (keyed by content) right after the write.

Neo4j's cosine score is (1 + cos) / 2; it is mapped back to the cosine so both stores
report, and threshold, the same number.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from neo4j import ManagedTransaction, Record

from brain.index.text import lucene_expression
from brain.store.base import Ranked, SearchWhere
from brain.store.memory.search import BODY_WEIGHT, DESCRIPTION_WEIGHT, NAME_WEIGHT
from brain.store.neo4j.generations.staged import live_labels, on

# Lucene's best `window` hits, each with whether the reader may see it. Without the limit,
# Lucene hands over every hit: a common word at 100,000 notes is tens of thousands of rows,
# seconds per query, to keep ten.
KEYWORD_SEARCH = """
CALL db.index.fulltext.queryNodes('memory_text', $text, {limit: $window}) YIELD node, score
RETURN node.id AS id, score,
       ($scopes IS NULL OR node.scope IN $scopes) AND ($type IS NULL OR node.type = $type) AS visible
"""

# The index's `k` nearest, each with whether the reader may see it: fewer than `k` rows
# means the index had no more, which is what a count of every vector (a scan of every
# memory, per query: most of a 100,000-note related query's Neo4j time) was asked for.
VECTOR_SEARCH = """
CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) YIELD node, score
RETURN node.id AS id, score,
       ($scopes IS NULL OR node.scope IN $scopes) AND ($type IS NULL OR node.type = $type) AS visible
"""

PUT_VECTORS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.hash = row.hash
CALL db.create.setNodeVectorProperty(m, 'embedding', row.vector)
SET m.embeddingHash = row.hash
"""

VECTOR_HASHES = """
MATCH (m:Memory) WHERE m.embeddingHash IS NOT NULL
RETURN m.id AS id, m.embeddingHash AS hash
"""


def keyword_query(terms: Sequence[str]) -> str:
    """One Lucene query over the three fields, weighted like the embedded index (4, 2, 1)."""
    anyof = lucene_expression(terms)
    return (
        f"title:({anyof})^{NAME_WEIGHT:g} OR description:({anyof})^{DESCRIPTION_WEIGHT:g} "
        f"OR body:({anyof})^{BODY_WEIGHT:g}"
    )


def put_vectors(tx: ManagedTransaction, rows: list[dict[str, Any]]) -> None:
    tx.run(on(PUT_VECTORS, live_labels(tx)), rows=rows).consume()


def settled_top(hits: list[tuple[str, float, bool]], window: int, limit: int) -> Ranked | None:
    """The best `limit` visible hits, best first and ties by id, when Lucene's best `window`
    hits settle them; None when a hit beyond the window could still be among them.

    Hits beyond a full window score at most the window's lowest score, so the answer is
    settled when the window held every hit or the last hit kept beats that score outright
    (an equal score beyond the window could sort before it by id).
    """
    ranked = sorted(((i, s) for i, s, visible in hits if visible), key=lambda hit: (-hit[1], hit[0]))
    top = ranked[:limit]
    if len(hits) < window:
        return top
    lowest = min(score for _, score, _ in hits)
    if len(top) == limit and top[-1][1] > lowest:
        return top
    return None


class Neo4jSearch:
    """The SearchIndex half of Neo4jStore (mixed in; uses its `_read` and `_commit`)."""

    # Vectors put while a rebuild stages a new generation: it copied the live vectors before,
    # so the switch would drop these; they are put again after it (`replaying_vectors`).
    _replay: list[dict[str, Any]] | None = None

    @contextmanager
    def replaying_vectors(self) -> Iterator[None]:
        """Vectors put (by this process's indexer) while the body runs are put again after it,
        on the generation it switched in; a body that fails left the old one live, with them."""
        self._replay = []
        try:
            yield
        except BaseException:
            self._replay = None
            raise
        replay, self._replay = self._replay, None
        if replay:
            self._write_vectors(replay)

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def keyword_search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked:
        if not terms or limit <= 0 or (where.scopes is not None and not where.scopes):
            return []
        scopes = None if where.scopes is None else sorted(where.scopes)
        text, window = keyword_query(terms), max(limit * 4, 100)
        while True:
            records = self._read(KEYWORD_SEARCH, text=text, scopes=scopes, type=where.type, window=window)
            found = settled_top(
                [(r["id"], float(r["score"]), bool(r["visible"])) for r in records], window, limit
            )
            if found is not None:
                return found
            window *= 4

    def vector_search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked:
        if limit <= 0 or (where.scopes is not None and not where.scopes):
            return []
        scopes = None if where.scopes is None else sorted(where.scopes)
        # The vector index filters after it ranks: ask for more neighbours until enough of
        # them are in reach, or the index gave fewer than asked (it has no more).
        k, vector = max(limit * 4, 100), list(vector)
        while True:
            records = self._read(VECTOR_SEARCH, k=k, vector=vector, scopes=scopes, type=where.type)
            hits = ((r["id"], float(r["score"])) for r in records if r["visible"])
            visible = sorted(hits, key=lambda hit: (-hit[1], hit[0]))
            if len(visible) >= limit or len(records) < k:
                return [(node_id, 2.0 * score - 1.0) for node_id, score in visible[:limit]]
            k *= 4

    def put_vectors(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        if not rows:
            return
        payload = [{"id": i, "hash": h, "vector": [float(x) for x in v]} for i, h, v in rows]
        replay = self._replay
        if replay is not None:
            replay.extend(payload)  # before the write: a switch may come between the two
        self._write_vectors(payload)

    def _write_vectors(self, rows: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def vector_hashes(self) -> dict[str, str]:
        return {r["id"]: r["hash"] for r in self._read(VECTOR_HASHES)}
