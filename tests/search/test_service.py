"""The search service: scope rules, filters, paging, errors, keyword-only until ready."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.search.fusion import fuse
from brain.search.indexer import EmbeddingIndexer
from brain.search.service import Mode, SearchError, SearchService, visible_scopes
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.search.workspace import SECRET_WORD, private_workspace


@pytest.fixture
def brain(store: GraphStore, tmp_path: Path) -> Iterator[Brain]:
    ws = private_workspace(tmp_path)
    made = ws.brain(store)
    made.search.indexer.wait(timeout=600)
    yield made
    made.close()


@pytest.mark.parametrize(
    ("agent", "scope", "expected"),
    [
        (None, None, None),
        (None, "alice", {"alice"}),
        ("bob", None, {"bob", "shared"}),
        ("bob", "shared", {"shared"}),
        ("bob", "alice", set()),
    ],
)
def test_visible_scopes_follow_the_resolution_rules(
    agent: str | None, scope: str | None, expected: set[str] | None
) -> None:
    got = visible_scopes(agent, scope)
    assert (None if got is None else set(got)) == expected


@pytest.mark.parametrize("mode", list(Mode))
def test_an_agent_never_finds_another_agents_private_notes(brain: Brain, mode: Mode) -> None:
    for query in (SECRET_WORD, "rollout ships on Friday", "night deployment plan"):
        answer = brain.search.search(query, agent="bob", mode=mode, limit=100)
        assert all(h.scope in ("bob", "shared") for h in answer.hits), answer.hits
        assert SECRET_WORD not in repr(answer)
    asked_for_it = brain.search.search(SECRET_WORD, agent="bob", scope="alice", mode=mode)
    assert asked_for_it.hits == []
    assert not asked_for_it.has_more


def test_the_owner_and_an_admin_find_the_private_note(brain: Brain) -> None:
    for agent in ("alice", None):
        hits = brain.search.search(SECRET_WORD, agent=agent, mode=Mode.KEYWORD).hits
        assert [h.id for h in hits] == ["memory:alice/launch-codes"]
        assert f"**{SECRET_WORD}**" in hits[0].snippet
        assert hits[0].path == "memory/alice/launch-codes.md"


def test_type_and_scope_filters(brain: Brain) -> None:
    hits = brain.search.search("friday", type="reference", mode=Mode.KEYWORD).hits
    assert [h.id for h in hits] == ["memory:shared/release-calendar"]
    hits = brain.search.search("friday", scope="shared", mode=Mode.KEYWORD).hits
    assert [h.scope for h in hits] == ["shared"]


def test_pages_do_not_overlap(brain: Brain) -> None:
    first = brain.search.search("friday deploy", limit=1, mode=Mode.KEYWORD)
    second = brain.search.search("friday deploy", limit=1, offset=1, mode=Mode.KEYWORD)
    assert first.has_more
    assert first.hits[0].id != second.hits[0].id


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "diary"}, "unknown type"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"offset": 5000}, "deep"),
    ],
)
def test_usage_errors_say_what_to_change(brain: Brain, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SearchError, match=message):
        brain.search.search("x", **kwargs)  # type: ignore[arg-type]


def test_query_syntax_means_nothing_special(brain: Brain) -> None:
    for query in ('"', "AND OR NOT", "body:*", "(((", "NEAR(a b)", "-friday", "\\", ""):
        brain.search.search(query, mode=Mode.KEYWORD)  # no error, whatever it finds


def test_keyword_only_until_the_embeddings_are_ready(tmp_path: Path) -> None:
    ws = private_workspace(tmp_path)
    store = MemoryStore()
    brain = Brain(ws.root, store)
    brain.sync()

    class Never:
        name = "never"

        def encode_texts(self, texts: object) -> list[list[float]]:
            raise AssertionError("not started")

    service = SearchService(store, EmbeddingIndexer(store, store, Never()))  # not started
    answer = service.search("friday")
    assert answer.mode is Mode.KEYWORD
    assert answer.notice is not None
    assert "keyword only until embeddings are ready" in answer.notice
    assert answer.hits  # keyword still answers


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = fuse([("a", 9.0), ("b", 5.0)], [("b", 0.9), ("c", 0.9)])
    assert [(i, m) for i, _, m in fused] == [
        ("b", ("keyword", "semantic")), ("a", ("keyword",)), ("c", ("semantic",)),
    ]


def test_fusion_weighs_each_ranker_by_what_it_knows_of_the_query() -> None:
    keyword = [("back-off", 9.0), ("refund", 1.0)]
    # The meaning ranker's clear winner beats a keyword hit holding one query word in four.
    fused = fuse(keyword, [("refund", 0.6), ("back-off", 0.3)], {"back-off": 0.25, "refund": 0.0})
    assert [i for i, _, _ in fused] == ["refund", "back-off"]
    # A note holding every query word comes first, whatever the meaning ranker thinks.
    fused = fuse(keyword, [("refund", 0.6), ("back-off", 0.3)], {"back-off": 1.0, "refund": 0.0})
    assert [i for i, _, _ in fused] == ["back-off", "refund"]
    assert fused[0][1] > fused[1][1]  # and its score says so: scores fall down the list
    # A flat meaning ranking (no margin) adds what plain reciprocal rank fusion adds.
    flat = fuse([("a", 1.0)], [("b", 0.4), ("c", 0.4)], {"a": 0.5})
    assert [i for i, _, _ in flat] == ["b", "c", "a"]
    assert flat[0][1] == 1 / 61


def test_a_warm_start_finds_unchanged_notes_by_meaning(tmp_path: Path) -> None:
    """A warm start restores the graph from the snapshot, not the vectors: the indexer
    computes them again and the store has to take them for the notes it restored."""
    ws = private_workspace(tmp_path)
    first = Brain(ws.root, cache=True)
    first.sync()
    first.close()  # writes the snapshot
    warm = Brain(ws.root, cache=True)
    try:
        warm.sync()
        assert warm.snapshots is not None
        assert warm.snapshots.loaded
        assert warm.search.indexer.wait(timeout=600)
        answer = warm.search.search("blue-green switch", agent="bob", mode=Mode.SEMANTIC)
        assert answer.mode is Mode.SEMANTIC
        assert "memory:bob/deploy-notes" in [h.id for h in answer.hits]
    finally:
        warm.close()
