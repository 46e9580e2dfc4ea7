"""The whole-workspace summary's clusters (brain/service/clusters.py), table-tested: which
cluster a note falls in, how a big flat folder is split, and the counts and weighted edges."""

from __future__ import annotations

import pytest

from brain.model import Link, LinkStatus
from brain.service import clusters
from brain.service.clusters import Note, assign, first_word, members_of, scope_of_cluster, summarize


def n(scope: str, name: str, folder: str | None = None) -> Note:
    return Note(
        id=f"memory:{scope}/{name}",
        scope=scope,
        name=name,
        path=f"{folder if folder is not None else f'memory/{scope}'}/{name}.md",
    )


def link(source: str, target: str, status: LinkStatus = LinkStatus.RESOLVED) -> Link:
    return Link(source, 0, target, status, f"[[{target}]]", target, target, None, None, False, 1, 1)


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("deploy-rollback-notes", "deploy"),
        ("Release Checklist", "release"),
        ("feedback_retry_rules", "feedback"),
        ("東京-failover-runbook", "東京"),
        ("topic/sub-note", "sub"),  # a space layout's name holds its folders: the last segment's word
        ("--odd", "odd"),
        ("x", "x"),
    ],
)
def test_first_word(name: str, word: str) -> None:
    assert first_word(name) == word


@pytest.mark.parametrize(
    ("cluster", "scope"),
    [
        ("cluster:alice/memory/alice", "alice"),
        ("cluster:alice/memory/alice/deploy", "alice"),
        ("scope:bob", "bob"),
        ("cluster:@workflow", None),
        ("memory:alice/x", None),
        ("scope:", None),
    ],
)
def test_scope_of_a_cluster_id(cluster: str, scope: str | None) -> None:
    assert scope_of_cluster(cluster) == scope


def test_a_small_folder_is_one_cluster_and_subfolders_are_their_own() -> None:
    notes = [n("alice", "a"), n("alice", "b"), n("alice", "c", "alice/memory/ops"), n("shared", "s")]
    where = {k: v[0] for k, v in assign(notes).items()}
    assert where == {
        "memory:alice/a": "cluster:alice/memory/alice",
        "memory:alice/b": "cluster:alice/memory/alice",
        "memory:alice/c": "cluster:alice/alice/memory/ops",
        "memory:shared/s": "cluster:shared/memory/shared",
    }
    labels = {v[0]: v[2] for v in assign(notes).values()}
    assert labels["cluster:alice/memory/alice"] == "alice"
    assert labels["cluster:alice/alice/memory/ops"] == "alice · ops"


def test_a_big_flat_folder_splits_by_first_word_the_rare_words_are_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clusters, "SPLIT_AT", 10)
    monkeypatch.setattr(clusters, "MIN_WORD", 3)
    monkeypatch.setattr(clusters, "MAX_WORDS", 2)
    names = (
        [f"deploy-{i}" for i in range(6)]
        + [f"retry-{i}" for i in range(4)]
        + [f"queue-{i}" for i in range(3)]
    )
    names += ["lone-1", "lone-2", "other-x"]  # under MIN_WORD; "other" is no word of its own
    notes = [n("a", x) for x in names]
    where = {
        k.removeprefix("memory:a/"): v[0].removeprefix("cluster:a/memory/a/")
        for k, v in assign(notes).items()
    }
    # The two largest words (MAX_WORDS); queue (3) is past the cap, lone (2) under MIN_WORD.
    assert {where[x] for x in names if x.startswith("deploy")} == {"deploy"}
    assert {where[x] for x in names if x.startswith("retry")} == {"retry"}
    # The rest in alphabetical runs: "lone", "other", "queue" make one.
    assert {where[x] for x in names if x.startswith(("queue", "lone", "other"))} == {"~lone"}
    labels = {v[0].removeprefix("cluster:a/memory/a/"): v[2] for v in assign(notes).values()}
    assert labels == {"deploy": "a · deploy-*", "retry": "a · retry-*", "~lone": "a · other: lone … queue"}
    # The same clusters whatever order the store lists the notes in.
    assert assign(list(reversed(notes))) == assign(notes)
    assert len(members_of(notes, "cluster:a/memory/a/~lone")) == 6
    # Runs hold at most REST notes: lone (2) and other (1) fill one, queue (3) its own.
    monkeypatch.setattr(clusters, "REST", 3)
    runs = {v[0] for v in assign(notes).values()} - {"cluster:a/memory/a/deploy", "cluster:a/memory/a/retry"}
    assert runs == {"cluster:a/memory/a/~lone", "cluster:a/memory/a/~queue"}
    assert len(members_of(notes, "scope:a")) == len(names)


CASES = [
    # links as (source, target, status); clusters as {id: (notes, links, outside, problems)};
    # edges as {(a, b): links}
    pytest.param([], {"A": (2, 0, 0, 0), "B": (1, 0, 0, 0)}, {}, id="no links"),
    pytest.param(
        [("a1", "a2", "R"), ("a2", "a1", "R")], {"A": (2, 2, 0, 0), "B": (1, 0, 0, 0)}, {}, id="inside"
    ),
    pytest.param(
        [("a1", "b1", "R"), ("b1", "a2", "R"), ("a2", "b1", "R")],
        {"A": (2, 0, 3, 0), "B": (1, 0, 3, 0)},
        {("A", "B"): 3},
        id="between, either way",
    ),
    pytest.param(
        [("a1", "a1", "R")], {"A": (2, 0, 0, 0), "B": (1, 0, 0, 0)}, {}, id="a self-link counts nowhere"
    ),
    pytest.param(
        [("a1", "unresolved:x", "B"), ("b1", "unresolved:x", "B"), ("a2", "a1", "A")],
        {"A": (2, 0, 0, 2), "B": (1, 0, 0, 1)},
        {},
        id="problems are the source's",
    ),
    pytest.param(
        [("a1", "workflow:w", "R"), ("b1", "workflow:w", "R"), ("b1", "workflow:v", "R")],
        {"A": (2, 0, 1, 0), "B": (1, 0, 2, 0), "W": (2, 0, 3, 0)},
        {("A", "W"): 1, ("B", "W"): 2},
        id="entities are a cluster",
    ),
]
IDS = {"A": "cluster:a/memory/a", "B": "cluster:b/memory/b", "W": "cluster:@workflow"}
STATUS = {"R": LinkStatus.RESOLVED, "B": LinkStatus.BROKEN, "A": LinkStatus.AMBIGUOUS}


@pytest.mark.parametrize(("links", "want", "edges"), CASES)
def test_summary_counts_and_edges(
    links: list[tuple[str, str, str]],
    want: dict[str, tuple[int, int, int, int]],
    edges: dict[tuple[str, str], int],
) -> None:
    notes = [n("a", "a1"), n("a", "a2"), n("b", "b1")]
    ids = {"a1": "memory:a/a1", "a2": "memory:a/a2", "b1": "memory:b/b1"}
    by_source: dict[str, list[Link]] = {}
    for s, t, st in links:
        by_source.setdefault(ids[s], []).append(link(ids[s], ids.get(t, t), STATUS[st]))
    summary = summarize(notes, by_source)
    got = {c.id: (c.notes, c.links, c.outside, c.problems) for c in summary.clusters}
    assert got == {IDS[k]: v for k, v in want.items()}
    assert summary.notes == 3
    assert sum(c.notes for c in summary.clusters if c.kind == "notes") == summary.notes
    assert summary.problems == sum(c.problems for c in summary.clusters)
    named = {(summary.clusters[e.a].id, summary.clusters[e.b].id): e.links for e in summary.edges}
    assert named == {tuple(sorted((IDS[a], IDS[b]))): w for (a, b), w in edges.items()}
    assert summary.links == sum(c.links for c in summary.clusters) + sum(e.links for e in summary.edges)
    # Largest first, ties by id; each edge's lower end first.
    assert [c.notes for c in summary.clusters] == sorted((c.notes for c in summary.clusters), reverse=True)
    assert all(e.a < e.b for e in summary.edges)


def test_hubs_are_the_best_linked_notes() -> None:
    notes = [n("a", x) for x in ("p", "q", "r", "s")]
    links = {
        "memory:a/p": [link("memory:a/p", "memory:a/r"), link("memory:a/p", "memory:a/q")],
        "memory:a/q": [link("memory:a/q", "memory:a/r")],
        "memory:a/s": [link("memory:a/s", "memory:a/r")],
    }
    assert summarize(notes, links, hubs=2).clusters[0].hubs == ["r", "p"]
