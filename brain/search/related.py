"""Related notes: the notes closest in meaning to one note that it does not link yet.

"More like this" over the search indexes both stores keep: the note's own top terms (its
most frequent content words, its name's words first) run as a keyword query, and, once the
embeddings are ready, the note's text as a semantic query; the two rankings are fused as
search fuses them (brain.search.fusion.fuse). The reader's reach is applied inside both
index queries (SearchWhere.scopes), before anything is ranked or cut, so a page is never
short of what the reader may see and a note out of reach cannot show up, even as a gap.
The note itself and the notes it links are asked for beyond the page and dropped.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from brain.index.text import STOP_WORDS, index_words, matched_terms, title_of, word_counts
from brain.model import MemoryNode
from brain.search.fusion import fuse
from brain.search.service import SEMANTIC_FLOOR, SearchService
from brain.store.base import SearchWhere

MAX_RELATED = 50
TOP_TERMS = 16  # the note's words a keyword query asks for: enough to find its neighbours
SHARED_TERMS = 8
# A word in more than half the notes the reader sees says nothing of what a note is about
# (BM25's idf is zero there) and its postings were most of the query's cost: at 10,000
# notes of the benchmark's workload, 12 of a note's 16 top words; the keyword half leaves
# them out (SearchWhere.common).
COMMON = 0.5
EMBED_CHARS = 2_000  # what the semantic query reads of the note (MiniLM reads 256 tokens anyway)


@dataclass(frozen=True, slots=True)
class Related:
    id: str
    path: str
    name: str
    score: float
    terms: tuple[str, ...]  # the source's top terms this note holds too


def top_terms(memory: MemoryNode, body: str) -> list[str]:
    """The note's name words, then its most frequent content words (longer than 2 characters)."""
    counts = word_counts(f"{memory.description}\n{body}")
    ranked = sorted(
        (w for w in counts if len(w) > 2 and w not in STOP_WORDS and not w.isdigit()),
        key=lambda w: (-counts[w], w),
    )
    terms = dict.fromkeys(w for w in index_words(title_of(memory.name)) if w not in STOP_WORDS)
    for word in ranked:
        if len(terms) >= TOP_TERMS:
            break
        terms.setdefault(word, None)
    return list(terms)


def related_notes(
    search: SearchService, memory: MemoryNode, body: str, *, scopes: frozenset[str] | None,
    linked: Collection[str], first: int = 10,
) -> list[Related]:
    """The `first` notes nearest `memory` among those in `scopes` (None: every scope), without
    the note itself and the notes in `linked`."""
    first = max(0, min(first, MAX_RELATED))
    if first == 0 or (scopes is not None and not scopes):
        return []
    terms = top_terms(memory, body)
    skip = {memory.id, *linked}
    where = SearchWhere(scopes, common=COMMON)
    depth = first + len(skip)  # what is dropped after the query is asked for on top of the page
    keyword = search.index.keyword_search(terms, where, depth) if terms else []
    semantic = _semantic(search, memory, body, where, depth)
    fused = fuse(keyword, semantic) if semantic else [(i, s, ("keyword",)) for i, s in keyword]
    page = [(i, s) for i, s, _ in fused if i not in skip][:first]
    nodes = search.store.get_nodes([i for i, _ in page])
    out: list[Related] = []
    for node_id, score in page:
        node = nodes.get(node_id)
        if isinstance(node, MemoryNode):
            shared = _shared(node, terms)
            out.append(Related(node.id, node.path, node.name, round(score, 6), shared))
    return out


def _semantic(search: SearchService, memory: MemoryNode, body: str, where: SearchWhere, depth: int) -> list[
    tuple[str, float]
]:
    if not search.status().ready:
        return []
    # The note's own vector (what search ranks it by), else its text encoded as a query.
    vector = search.indexer.note_vector(replace(memory, body=body))
    if vector is None:
        text = f"{title_of(memory.name)}. {memory.description}\n{body}"[:EMBED_CHARS]
        vector = search.indexer.query_vector(text)
    if vector is None:
        return []
    return [(i, s) for i, s in search.index.vector_search(vector, where, depth) if s >= SEMANTIC_FLOOR]


def _shared(node: MemoryNode, terms: Sequence[str]) -> tuple[str, ...]:
    text = f"{title_of(node.name)}\n{node.description}\n{node.body}"
    return tuple(matched_terms(text, terms)[:SHARED_TERMS])
