"""When a keyword query's best notes can no longer change (brain/index/bm25_search.py).

A related-notes query asks for a note's 16 top terms, and gathering each term's whole
postings (its notes' frequencies and lengths, scattered into the scores) was most of its
cost: at 100,000 notes a content word is in thousands of them. BM25 bounds what a term can
add to any note: idf * (K1 + 1) (tf / (tf + norm) < 1). The terms are added rarest first;
after each, if every term left together could not lift a note from its score now to the
`limit`-th best score now, no note outside the current candidates (those that could still
reach it) can end in the top `limit`, whatever the terms left hold. The terms left are then
added to those candidates alone: a binary search of each candidate in the term's slots,
not a pass over its postings. The candidates' scores are the same sums, in the same order,
as without the bound; every other note stays below the cut. So the answer is exactly the
unbounded one (tests/search/test_bm25_bounded.py compares them on random queries).

The comparison keeps a relative margin for rounding: a sum of floats in another order may
differ in its last bits, so a note is only left out when it is short by more than that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MARGIN = 1e-9  # relative: far above float64 rounding of a sum of 16 terms, far below a term's weight


class Bound:
    """The running bound of one query: `within` is None until the top is settled, then the
    candidate slots (ascending) the terms left are added to."""

    def __init__(self, scores: Any, eligible: Any, limit: int, most: Sequence[float]) -> None:
        self.scores = scores
        self.eligible = eligible  # a mask of the slots the answer may hold (a type), or None
        self.limit = limit
        # What the terms from i on can add at most to one note, for every i.
        self.left = [float(x) for x in np.cumsum(list(most)[::-1])[::-1]] + [0.0]
        self.within: Any = None

    def after(self, i: int) -> None:
        """Term i was added to every note it is in: settle the top if it can no longer change."""
        left = self.left[i + 1]
        reach = left * (1 + MARGIN) + MARGIN
        if left <= 0.0 or reach >= self.left[0] - left:  # no note has more than the terms added
            return
        found = np.flatnonzero(self.scores)
        if self.eligible is not None:
            found = found[self.eligible[found]]
        if len(found) < self.limit:
            return
        ranked = self.scores[found]
        kth = -np.partition(-ranked, self.limit - 1)[self.limit - 1]
        if reach < kth * (1 - MARGIN):  # a note not scored yet cannot get there either
            self.within = found[ranked + reach >= kth * (1 - MARGIN)]


def found_in(docs: Any, within: Any) -> tuple[Any, Any]:
    """Of the candidate slots `within`, those in the term's slots `docs` (ascending), and
    their positions in `docs`. (A candidate was scored, so it is alive and in reach: the
    term's mask of dead and out-of-reach slots has nothing to take away from it.)"""
    at = np.searchsorted(docs, within)
    inside = at < len(docs)
    hit = np.zeros(len(within), dtype=bool)
    hit[inside] = docs[at[inside]] == within[inside]
    return within[hit], at[hit]
