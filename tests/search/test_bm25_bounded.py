"""The keyword index's bound (brain/index/bounded.py): once the top `limit` cannot change,
the terms left are added to the candidates alone. The answer must be exactly the unbounded
one (ids, order and scores), on random indexes (edits and deletes leave dead postings),
random queries of 1-16 terms, as an admin and per reach, with a type filter and without,
and the bound must have taken effect in most of them (else this test could not fail)."""

from __future__ import annotations

import random

import pytest

from brain.index import bm25_search
from brain.index.bm25 import BM25Index

# Zipf-like: a few words in most notes, many rare ones (the shape related queries meet).
WORDS = [f"w{i}" for i in range(300)]
WEIGHTS = [1 / (i + 1) for i in range(len(WORDS))]
SCOPES = ["shared", "alice", "bob"]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, WEIGHTS, k=n))


def build(rng: random.Random, notes: int) -> BM25Index:
    index = BM25Index(compact_after=10**9)  # dead postings stay: the reach's masks apply
    for n in range(notes):
        index.add(f"memory:{rng.choice(SCOPES)}/n{n}", rng.choice(SCOPES), rng.choice(["", "project"]),
                  words(rng, 2), words(rng, 5), words(rng, rng.randint(5, 120)))
    for n in rng.sample(range(notes), notes // 10):
        index.remove(f"memory:{rng.choice(SCOPES)}/n{n}")
    return index


def both(index: BM25Index, terms: list[str], scopes: frozenset[str] | None, type: str | None,
         limit: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    index.bounded = False
    plain = index.search(terms, scopes, type, limit, common=0.5)
    index.bounded = True
    return plain, index.search(terms, scopes, type, limit, common=0.5)


@pytest.mark.parametrize("seed", range(4))
def test_the_bounded_top_is_the_unbounded_top(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25_search, "COMMON_FROM", 50)  # the common-word cut applies here too
    rng = random.Random(seed)
    index = build(rng, 1500)
    settled = 0
    calls = 0
    real = bm25_search.found_in

    def counting(*args: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bm25_search, "found_in", counting)
    for _ in range(150):
        terms = rng.sample(WORDS[:120], rng.randint(1, 16))
        scopes = rng.choice([None, frozenset({"shared", "alice"}), frozenset({"bob"})])
        type = rng.choice([None, None, "project"])
        limit = rng.choice([1, 5, 11, 20, 60])
        before = calls
        plain, bounded = both(index, terms, scopes, type, limit)
        assert bounded == plain, (terms, scopes, type, limit)
        settled += calls > before
    assert settled > 50  # the bound took effect in most queries: the comparison means something


def test_ties_at_the_cut_go_by_id_as_unbounded() -> None:
    """Notes of equal text tie: the bound must not cut one of them that wins by id."""
    index = BM25Index()
    for n in range(40):
        index.add(f"memory:shared/t{n:02}", "shared", "", "x", "", "rare common common")
    for n in range(200):
        index.add(f"memory:shared/o{n:03}", "shared", "", "y", "", "common filler")
    for limit in (1, 3, 39, 40, 41):
        plain, bounded = both(index, ["rare", "common", "filler"], None, None, limit)
        assert bounded == plain
