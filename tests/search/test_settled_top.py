"""`settled_top`: when Lucene's best hits settle the top of a Neo4j keyword search.

Neo4j's keyword search asks Lucene for a window of its best hits instead of every hit and
widens the window until the answer cannot change. These cases pin when it may stop: the
answer must equal sorting every hit (best first, ties by id) and cutting at the limit.
"""

from __future__ import annotations

import pytest

from brain.store.neo4j.search import settled_top

Hit = tuple[str, float, bool]

CASES: dict[str, tuple[list[Hit], int, int, list[tuple[str, float]] | None]] = {
    "fewer hits than the window: every hit was seen": (
        [("b", 2.0, True), ("a", 1.0, True), ("c", 0.5, False)], 4, 10, [("b", 2.0), ("a", 1.0)],
    ),
    "a full window whose last kept hit beats its floor": (
        [("a", 3.0, True), ("b", 2.0, True), ("c", 1.0, True)], 3, 2, [("a", 3.0), ("b", 2.0)],
    ),
    "a tie at the floor could hide a smaller id beyond the window": (
        [("a", 3.0, True), ("c", 1.0, True), ("d", 1.0, True)], 3, 2, None,
    ),
    "hidden hits fill the window: too few kept": (
        [("a", 3.0, True), ("x", 2.0, False), ("y", 1.0, False)], 3, 2, None,
    ),
    "hidden hits are never answered, even the best": (
        [("x", 9.0, False), ("b", 2.0, True), ("a", 2.0, True), ("c", 1.0, True)], 4, 2,
        [("a", 2.0), ("b", 2.0)],
    ),
    "no hit at all": ([], 100, 10, []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_settled_top(case: str) -> None:
    hits, window, limit, expected = CASES[case]
    assert settled_top(hits, window, limit) == expected
