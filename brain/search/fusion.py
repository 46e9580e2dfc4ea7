"""Fusion of the keyword and the meaning rankings, weighted by what each knows about this query.

Plain reciprocal rank fusion (k = 60) ranked worse than the better of its two halves on each kind
of query: a paraphrase's note came second behind a note that shares one common word with it
("money back for a cancelled subscription" found a note about "back-off"), and a name only the
keyword ranker knows (`test_lease_expiry`, `BRN-88`) lost its first place to the meaning
ranker's noise. Each ranker says how far it can be trusted, per query, at no extra index query:

- keyword: a note's share of the query's words (`coverage`). Its keyword vote is weighted by
  the square of that share, so one common word in four counts a sixteenth; and notes holding
  every word of the query (the exact words, the name asked for) come first.
- meaning: the margin between the best note's cosine and the next one's (the semantic floor
  where there is none). A clear winner (0.49 against 0.29) is worth up to several keyword
  votes; a flat list (0.32, 0.32, 0.32) adds what plain fusion adds.

On the labelled set (tests/fixtures/search/queries.json) the fused MRR is at least the better
ranker's on every class: exact words, names, paraphrases, queries that share no rare word with
their note, and queries where a common word misleads (docs/search.md has the figures);
tests/search/test_relevance.py keeps it so.
"""

from __future__ import annotations

from collections.abc import Mapping

from brain.store.base import Ranked

RRF_K = 60
MARGIN_WEIGHT = 10.0  # a semantic margin of 0.1 doubles the meaning ranker's vote
COVERAGE_DEPTH = 100  # keyword hits whose words are counted (one fetch of their text)
NO_SECOND = 0.25  # the margin of a lone semantic hit is over the semantic floor


def fuse(
    keyword: Ranked, semantic: Ranked, coverage: Mapping[str, float] | None = None, k: int = RRF_K
) -> list[tuple[str, float, tuple[str, ...]]]:
    """Ids best first, with their score and the rankers that found them. `coverage`: a keyword
    hit's share of the query's words (0-1); a hit it does not name counts as plain fusion does."""
    coverage = coverage or {}
    scores: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    for rank, (node_id, _score) in enumerate(keyword, start=1):
        share = coverage.get(node_id, 1.0)
        scores[node_id] = scores.get(node_id, 0.0) + share * share / (k + rank)
        matched.setdefault(node_id, []).append("keyword")
    margin = 0.0
    if semantic:
        second = semantic[1][1] if len(semantic) > 1 else NO_SECOND
        margin = max(0.0, semantic[0][1] - second)
    weight = 1.0 + MARGIN_WEIGHT * margin
    for rank, (node_id, _score) in enumerate(semantic, start=1):
        scores[node_id] = scores.get(node_id, 0.0) + weight / (k + rank)
        matched.setdefault(node_id, []).append("semantic")
    # Notes holding every word of the query first, then the rest, each group by score: the
    # first group's scores are lifted over the second's, so scores still fall down the list.
    whole = {i for i in scores if coverage.get(i, 0.0) >= 1.0}
    lift = max((score for i, score in scores.items() if i not in whole), default=0.0)
    for node_id in whole:
        scores[node_id] += lift
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return [(i, scores[i], tuple(matched[i])) for i in order]
