"""The search half of brain's keyword index (brain/index/bm25.py, mixed into BM25Index).

An agent's statistics (N, the average length, each term's document count) are its reach's:
its shared and own notes only. Computed over the whole index, a word's rarity counted other
agents' private notes, so an agent's scores shifted when a rare word appeared in a note it
cannot see: a side channel (docs/security.md). The reach's mask of slots is one vectorized
pass over the slots, built once per reach until the index changes.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from brain.index.bounded import Bound, found_in
from brain.index.held_postings import slots_of, values_of

K1, B = 1.2, 0.75
# `common` applies past this many notes in reach: below it every query is cheap, and a
# small workspace keeps its weakest matches (a word in most of ten notes still relates two).
COMMON_FROM = 2_000


class _Term(NamedTuple):
    idf: float
    term: int
    docs: Any  # its slots, ascending (None: not decoded yet)


class BM25Search:
    _terms: dict[str, int]
    _docs: list[array[int]]
    _freqs: list[array[int]]
    _bases: array[int]
    _ids: list[str | None]
    _slot: dict[str, int]
    _codes: dict[str, int]
    _lengths: Any
    _scopes: Any
    _types: Any
    _alive: Any
    _tokens: int
    _dead_postings: int
    _generation: int
    _reaches: dict[frozenset[str], tuple[int, Any, int, int]]
    _changed: int
    _hits_seen: dict[tuple[frozenset[str] | None, int], tuple[int, int]]
    bounded = True  # stop gathering a term's whole postings once the top cannot change (tests: False)

    def search(
        self, terms: Sequence[str], scopes: frozenset[str] | None, type: str | None, limit: int,
        *, common: float | None = None,
    ) -> list[tuple[str, float]]:
        """The best `limit` notes with any of `terms`, best first, equal scores in id order;
        `common`: leave out the terms in more than that share of the notes in reach (their
        postings are counted, not scored: SearchWhere.common)."""
        count, tokens = len(self._slot), self._tokens
        if not count or limit <= 0:
            return []
        size = len(self._ids)
        alive = self._alive[:size]
        has_dead = self._dead_postings > 0
        if scopes is not None:
            # Statistics over what the caller may see: N, avgdl and each term's document count
            # as if other agents' private notes did not exist, so no score tells of them.
            alive, count, tokens = self._reach(scopes, size)
            has_dead = True
            if not count:
                return []
        avgdl = tokens / count
        common = common if count > COMMON_FROM else None
        norm = K1 * (1 - B) + (K1 * B / avgdl) * self._lengths[:size]  # per slot, float64
        scores = np.zeros(size)
        asked: list[_Term] = []
        for word in dict.fromkeys(terms):
            term = self._terms.get(word)
            if term is None:
                continue
            if common is not None and self._surely_common(scopes, term, common * count):
                continue
            seen = self._hits_seen.get((scopes, term)) if common is not None else None
            if seen is not None and seen[0] == self._changed:  # no note added or dropped since
                hits, docs = seen[1], None  # decoded if it is added (bounded: to a few notes)
            else:
                docs = slots_of(self._docs[term], self._bases[term])
                hits = len(docs) if not has_dead else int(np.count_nonzero(alive[docs]))
                if common is not None:
                    self._saw_hits(scopes, term, hits)
            if (common is not None and hits > common * count) or not hits:
                continue
            idf = math.log((count - hits + 0.5) / (hits + 0.5))
            asked.append(_Term(idf if idf > 0 else 1e-6, term, docs))
        # The rarest terms first (the highest idf: the most a term can add to a note is
        # idf * (K1 + 1)); once the notes outside the `limit` best so far could not reach them
        # with every term left, the terms left are added to the best notes alone (bounded.py).
        asked.sort(key=lambda t: -t.idf)
        eligible = None if type is None else self._types[:size] == self._codes.get(type, -1)
        bound = Bound(scores, eligible, limit, [t.idf * (K1 + 1) for t in asked]) if self.bounded else None
        for i, t in enumerate(asked):
            freqs = values_of(self._freqs[t.term])
            docs = t.docs if t.docs is not None else slots_of(self._docs[t.term], self._bases[t.term])
            within = bound.within if bound is not None else None
            if within is None:
                f = freqs.astype(np.float64)
                if has_dead:
                    keep = alive[docs]
                    docs, f = docs[keep], f[keep]
            else:
                docs, at = found_in(docs, within)
                f = freqs[at].astype(np.float64)
            scores[docs] += t.idf * (K1 + 1) * f / (f + norm[docs])
            if bound is not None and within is None:
                bound.after(i)
        found = np.flatnonzero(scores)
        if scopes is not None:
            allowed = [self._codes[s] for s in scopes if s in self._codes]
            found = found[np.isin(self._scopes[found], allowed)]
        if type is not None:
            found = found[self._types[found] == self._codes.get(type, -1)]
        if not len(found):
            return []
        ranked = scores[found]
        if len(found) > limit:
            # Every note scoring at least the limit-th best: ties at the cut go by id below.
            cut = -np.partition(-ranked, limit - 1)[limit - 1]
            keep = ranked >= cut
            found, ranked = found[keep], ranked[keep]
        ids = self._ids
        best = sorted(zip((-ranked).tolist(), [ids[s] for s in found.tolist()], strict=True))
        return [(str(node_id), -score) for score, node_id in best[:limit]]

    def _surely_common(self, scopes: frozenset[str] | None, term: int, most: float) -> bool:
        """Whether `term` is in more than `most` notes of the reach, from a document count seen
        before: each note added or dropped since moves it by one at most, so it answers
        exactly while those changes are fewer than its distance from `most` (a related-notes
        query then skips decoding the longest postings: the words of most notes)."""
        seen = self._hits_seen.get((scopes, term))
        return seen is not None and seen[1] - (self._changed - seen[0]) > most

    def _saw_hits(self, scopes: frozenset[str] | None, term: int, hits: int) -> None:
        if len(self._hits_seen) >= 200_000:  # many reaches times many words: start again
            self._hits_seen.clear()
        self._hits_seen[(scopes, term)] = (self._changed, hits)

    def _reach(self, scopes: frozenset[str], size: int) -> tuple[Any, int, int]:
        """The live slots of `scopes` (a mask), how many and their words: computed once per
        reach until the index changes (one vectorized pass over the slots)."""
        found = self._reaches.get(scopes)
        if found is not None and found[0] == self._generation:
            return found[1], found[2], found[3]
        allowed = [self._codes[s] for s in scopes if s in self._codes]
        mask = self._alive[:size] & np.isin(self._scopes[:size], allowed)
        count = int(np.count_nonzero(mask))
        tokens = int(self._lengths[:size][mask].sum())
        if len(self._reaches) >= 64:  # agents come and go: keep the cache small
            self._reaches.clear()
        self._reaches[scopes] = (self._generation, mask, count, tokens)
        return mask, count, tokens
