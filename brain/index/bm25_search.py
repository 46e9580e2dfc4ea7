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
from typing import Any

import numpy as np

from brain.index.held_postings import slots_of, values_of

K1, B = 1.2, 0.75
# `common` applies past this many notes in reach: below it every query is cheap, and a
# small workspace keeps its weakest matches (a word in most of ten notes still relates two).
COMMON_FROM = 2_000


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
        for word in dict.fromkeys(terms):
            term = self._terms.get(word)
            if term is None:
                continue
            if common is not None and self._surely_common(scopes, term, common * count):
                continue
            docs = slots_of(self._docs[term], self._bases[term])
            keep = alive[docs] if has_dead else None
            hits = len(docs) if keep is None else int(np.count_nonzero(keep))
            if common is not None:
                self._saw_hits(scopes, term, hits)
                if hits > common * count:
                    continue
            if not hits:
                continue
            freqs = values_of(self._freqs[term]).astype(np.float64)
            if keep is not None:
                docs, freqs = docs[keep], freqs[keep]
            idf = math.log((count - hits + 0.5) / (hits + 0.5))
            idf = idf if idf > 0 else 1e-6
            scores[docs] += idf * (K1 + 1) * freqs / (freqs + norm[docs])
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
