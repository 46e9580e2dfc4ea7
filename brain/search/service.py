"""The search use-case every front end calls: scope rules, ranking, fusion, snippets.

Scope rules are the resolution rules (design.md sections 3 and 9): an agent reaches its own
notes and the shared ones, never another agent's; without an agent (an admin) every scope.
The rule is applied inside the index query, before ranking and counting, so another agent's
notes cannot show up in results, snippets, totals or as a gap in the ranks.

Fusion is reciprocal rank fusion weighted by each ranker's confidence in this query
(brain/search/fusion.py), measured on tests/fixtures/search against each ranker alone.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from brain.index.text import MAX_QUERY_CHARS, flat_text, matched_terms, query_terms, snippet, title_of
from brain.model import MEMORY_TYPES, SHARED_SCOPE, MemoryNode
from brain.search.fusion import COVERAGE_DEPTH, fuse
from brain.search.indexer import EmbeddingIndexer, SemanticStatus
from brain.store.base import GraphStore, Ranked, SearchIndex, SearchWhere, WriteBatch

if TYPE_CHECKING:  # prometheus_client is imported by `brain serve` alone, not by every command
    from brain.metrics import Metrics

MAX_LIMIT = 100
MAX_DEPTH = 1_000  # candidates each ranker contributes: bounds the cost of a deep page
# Cosine similarity under which a semantic neighbour is noise, not a match (all-MiniLM-L6-v2:
# paraphrases score 0.35-0.8, unrelated notes 0-0.2; chosen on tests/fixtures/search).
SEMANTIC_FLOOR = 0.25


class SearchError(ValueError):
    """A usage error: the message says what to change."""


class Mode(enum.Enum):
    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


@dataclass(frozen=True, slots=True)
class SearchHit:
    id: str
    path: str
    scope: str
    name: str
    type: str | None
    description: str
    score: float
    snippet: str
    matched: tuple[str, ...]  # the rankers that found it: "keyword", "semantic"
    terms: tuple[str, ...]  # the query words the note contains


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    hits: list[SearchHit]
    has_more: bool
    mode: Mode  # what ran: HYBRID or SEMANTIC asked before the embeddings are ready runs KEYWORD
    asked: Mode
    semantic: SemanticStatus

    @property
    def notice(self) -> str | None:
        """Why the answer is keyword only, if it is and the caller asked for more."""
        if self.asked is Mode.KEYWORD or self.mode is self.asked:
            return None
        return self.semantic.describe()


def visible_scopes(agent: str | None, scope: str | None) -> frozenset[str] | None:
    """The scopes a search may reach; None is every scope."""
    if agent is None:
        return None if scope is None else frozenset({scope})
    own = frozenset({agent, SHARED_SCOPE})
    return own if scope is None else own & {scope}


class SearchService:
    def __init__(self, store: GraphStore, indexer: EmbeddingIndexer) -> None:
        self.store = store
        self.index = cast(SearchIndex, store)
        self.indexer = indexer
        self.metrics: Metrics | None = None  # the Brain's, when it counts (brain/metrics.py)

    def on_batch(self, batch: WriteBatch, _before: object = None) -> None:
        """Ingest listener: changed notes get new vectors, deleted ones none."""
        self.indexer.forget(batch.deletes)
        self.indexer.schedule(batch.memories)

    def status(self) -> SemanticStatus:
        return self.indexer.status()

    def search(
        self,
        query: str,
        *,
        agent: str | None = None,
        scope: str | None = None,
        type: str | None = None,
        limit: int = 10,
        offset: int = 0,
        mode: Mode = Mode.HYBRID,
    ) -> SearchAnswer:
        started = time.perf_counter()
        answer = self._answer(query, agent, scope, type, limit, offset, mode)
        if self.metrics is not None:  # asked and ran: keyword stands in until embeddings are ready
            self.metrics.search_queries.labels(answer.asked.value, answer.mode.value).inc()
            self.metrics.search_seconds.labels(answer.mode.value).observe(time.perf_counter() - started)
        return answer

    def _answer(
        self, query: str, agent: str | None, scope: str | None, type: str | None, limit: int,
        offset: int, mode: Mode,
    ) -> SearchAnswer:
        _unicode_name(agent, "agent")
        _unicode_name(scope, "scope")
        if len(query) > MAX_QUERY_CHARS:
            raise SearchError(f"the query is {len(query)} characters long: at most {MAX_QUERY_CHARS}")
        if type is not None and type not in MEMORY_TYPES:
            raise SearchError(f"unknown type `{type}`: one of {', '.join(MEMORY_TYPES)}")
        if not 1 <= limit <= MAX_LIMIT:
            raise SearchError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
        if offset < 0 or offset + limit > MAX_DEPTH:
            raise SearchError(f"results go {MAX_DEPTH} deep: narrow the query instead of paging further")
        status = self.indexer.status()
        terms = query_terms(query)
        where = SearchWhere(visible_scopes(agent, scope), type)
        ran = mode if status.ready or mode is Mode.KEYWORD else Mode.KEYWORD
        if not terms or (where.scopes is not None and not where.scopes):
            return SearchAnswer([], False, ran, mode, status)
        depth = min(MAX_DEPTH, max(50, 2 * (offset + limit)))
        keyword = self.index.keyword_search(terms, where, depth) if ran is not Mode.SEMANTIC else []
        semantic = self._semantic(query, where, depth) if ran is not Mode.KEYWORD else []
        fused = fuse(keyword, semantic, self._coverage(keyword, terms)) if ran is Mode.HYBRID else [
            (i, s, ("keyword",) if ran is Mode.KEYWORD else ("semantic",)) for i, s in keyword or semantic
        ]
        page = fused[offset : offset + limit]
        nodes = self.store.get_nodes([node_id for node_id, _, _ in page])
        hits = [
            _hit(node, score, matched, terms)
            for node_id, score, matched in page
            if isinstance(node := nodes.get(node_id), MemoryNode)
        ]
        return SearchAnswer(hits, len(fused) > offset + limit, ran, mode, status)

    def ids(self, query: str) -> list[str]:
        """The ids `search` finds for a query as an admin, best first ([] for a bad query): for
        the language server's workspace symbols, which see the whole workspace."""
        try:
            return [hit.id for hit in self.search(query, limit=MAX_LIMIT).hits]
        except SearchError:
            return []

    def _coverage(self, keyword: Ranked, terms: Sequence[str]) -> dict[str, float]:
        """The share of the query's words each of the best keyword hits holds (its name as
        words, description and body, as the hit's `terms` count them)."""
        nodes = self.store.get_nodes([node_id for node_id, _ in keyword[:COVERAGE_DEPTH]])
        return {
            node_id: len(_present(node, terms)) / len(terms)
            for node_id, node in nodes.items()
            if isinstance(node, MemoryNode)
        }

    def _semantic(self, query: str, where: SearchWhere, depth: int) -> Ranked:
        vector = self.indexer.query_vector(query)
        if vector is None:
            return []
        return [(i, s) for i, s in self.index.vector_search(vector, where, depth) if s >= SEMANTIC_FLOOR]


def _unicode_name(value: str | None, what: str) -> None:
    """An agent or scope is a name: one with a lone surrogate (`\\ud800` in a caller's JSON)
    names nothing, and the Neo4j driver cannot even send it (UnicodeEncodeError). In the
    query text the same character is a separator, as in notes (brain/search/text.py)."""
    if value is None or value.isascii():
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SearchError(
            f"`{what}` holds a lone surrogate (U+{ord(value[exc.start]):04X} at character "
            f"{exc.start + 1}), which is not Unicode text: send the {what}'s name in UTF-8"
        ) from None


def _hit(memory: MemoryNode, score: float, matched: Sequence[str], terms: Sequence[str]) -> SearchHit:
    body = flat_text(memory.body)  # once: the words and the snippet both look at it
    body_terms = matched_terms(body, terms)
    description_terms = matched_terms(memory.description, terms)
    text = body if body_terms or not description_terms else flat_text(memory.description)
    found = _present(memory, terms, body_terms, description_terms)
    return SearchHit(
        id=memory.id,
        path=memory.path,
        scope=memory.scope,
        name=memory.name,
        type=memory.type,
        description=memory.description,
        score=round(score, 6),
        snippet=snippet(text, terms, flat=True),
        matched=tuple(matched),
        terms=tuple(found),
    )


def _present(
    memory: MemoryNode, terms: Sequence[str], body: Sequence[str] | None = None,
    description: Sequence[str] | None = None,
) -> list[str]:
    """The query words a note holds in its name, description or body, in the query's order."""
    if body is None:
        body = matched_terms(flat_text(memory.body), terms)
    if description is None:
        description = matched_terms(memory.description, terms)
    present = {*body, *description, *matched_terms(title_of(memory.name), terms)}
    return [t for t in terms if t in present]


class Embedding(enum.Enum):
    """Where notes are embedded (see brain/search/helper.py for why a server uses a helper)."""

    HELPER = "helper"  # a helper process at low priority: servers
    INLINE = "inline"  # this process: one-shot commands, which have nothing to compete with
    OFF = "off"  # keyword only


def open_search(
    store: GraphStore, embedding: Embedding = Embedding.INLINE, off_reason: str = ""
) -> SearchService:
    """Search over `store` with the packaged encoder if it is installed (keyword only if not)."""
    from brain.search.embedding import LazyEncoder, load_encoder, semantic_off

    if not isinstance(store, SearchIndex):
        raise TypeError(f"{type(store).__name__} keeps no search index")
    if embedding is Embedding.OFF:
        return SearchService(store, EmbeddingIndexer(store, store, None, off_reason or "keyword only"))
    if embedding is Embedding.INLINE:
        encoder, reason = load_encoder()
        return SearchService(store, EmbeddingIndexer(store, store, encoder, reason))
    from brain.search.remote import HelperEmbedder

    if off := semantic_off():
        return SearchService(store, EmbeddingIndexer(store, store, None, off))
    # The query encoder loads on the first semantic search; notes go to the helper.
    indexer = EmbeddingIndexer(store, store, LazyEncoder(), embedder=HelperEmbedder())
    return SearchService(store, indexer)


def hit_json(hit: SearchHit) -> dict[str, Any]:
    """A hit as the JSON every front end answers with (brain search --format json, GraphQL, REST)."""
    return {
        "id": hit.id, "path": hit.path, "scope": hit.scope, "name": hit.name,
        "score": hit.score, "snippet": hit.snippet, "matched": list(hit.matched),
    }
