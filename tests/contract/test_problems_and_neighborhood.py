"""Problems (all, or those of some files) and the neighbourhood of a node."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.model import Severity
from brain.store.base import GraphStore
from tests.contract.helpers import Workspace, note, reference


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path)
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[ghost]]\n[[b#Nowhere]]"))
    ws.write("memory/bot/b.md", note("b", "[[shared/c]] [[flow]]"))
    ws.write("memory/bot/bad.md", "---\ntype: diary\ndescription: [unclosed\n---\n[[ghost]]\n")
    ws.write("memory/shared/c.md", note("c", "[[flow]]"))
    ws.write("memory/ghost-bot/x.md", note("x", "[[a]]"))
    ws.write("workflows/flow.yaml", "title: Flow\n")
    return ws


def test_problems_match_the_embedded_store_record_for_record(
    store: GraphStore, workspace: Workspace
) -> None:
    workspace.brain(store)
    problems = store.problems()
    assert problems == reference(workspace.root).store.problems()
    codes = [(p.path, p.code) for p in problems]
    assert codes == [
        ("memory/bot/a.md", "broken-link"),
        ("memory/bot/a.md", "missing-anchor"),
        ("memory/bot/bad.md", "invalid-frontmatter"),
        ("memory/bot/bad.md", "broken-link"),
        ("memory/ghost-bot", "memory-off"),
        ("memory/ghost-bot/x.md", "broken-link"),
    ]
    assert problems[0].severity is Severity.ERROR
    assert problems[0].fix


def test_problems_of_some_paths(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    every = store.problems()
    for paths in (["memory/bot/a.md"], ["memory/ghost-bot", "memory/bot/bad.md"], ["memory/bot/b.md"], []):
        assert store.problems(paths) == [p for p in every if p.path in paths]


def test_neighborhood_depth_and_edges(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    one = store.neighborhood("memory:bot/b", depth=1, limit=50)
    assert [n.id for n in one.nodes] == [
        "agent:bot", "memory:bot/a", "memory:bot/b", "memory:shared/c", "workflow:flow",
    ]
    assert [(e.type, e.source, e.target) for e in one.edges] == [
        ("LINKS_TO", "memory:bot/a", "memory:bot/b"),
        ("LINKS_TO", "memory:bot/a", "memory:bot/b"),
        ("REMEMBERS", "agent:bot", "memory:bot/a"),
        ("LINKS_TO", "memory:bot/b", "memory:shared/c"),
        ("LINKS_TO", "memory:bot/b", "workflow:flow"),
        ("REMEMBERS", "agent:bot", "memory:bot/b"),
        ("LINKS_TO", "memory:shared/c", "workflow:flow"),
    ]
    assert not one.truncated
    expected = reference(workspace.root).store
    for node_id in ("memory:bot/b", "agent:bot", "unresolved:ghost", "workflow:flow", "agent:ghost-bot"):
        for depth, limit in ((0, 10), (1, 3), (2, 5), (3, 100)):
            assert store.neighborhood(node_id, depth, limit) == expected.neighborhood(node_id, depth, limit)


def test_neighborhood_truncates_at_the_limit(store: GraphStore, workspace: Workspace) -> None:
    workspace.brain(store)
    cut = store.neighborhood("agent:bot", depth=2, limit=3)
    assert cut.truncated
    assert [n.id for n in cut.nodes] == ["agent:bot", "memory:bot/a", "memory:bot/b"]
    assert store.neighborhood("memory:none/x", 2, 10).nodes == ()


def test_neighborhood_at_every_depth_and_limit_as_the_embedded_store_walks_it(
    store: GraphStore, workspace: Workspace
) -> None:
    """Neo4j answers a caller who sees everything with one read for all levels
    (brain/store/neo4j/reads/around.py): the same nodes, edges and `truncated` as the embedded
    store's walk, at each depth it serves and at each limit (below, at and past the number
    of nodes a level reaches: at exactly the limit the next level still says if it cut)."""
    workspace.brain(store)
    embedded = reference(workspace.root).store
    starts = ["memory:bot/a", "memory:bot/b", "memory:shared/c", "agent:bot", "workflow:flow",
              "unresolved:ghost", "memory:ghost-bot/x"]
    for start in starts:
        for depth in (1, 2, 3):
            for limit in range(1, 11):
                expected = embedded.neighborhood(start, depth, limit)
                assert store.neighborhood(start, depth, limit) == expected, (start, depth, limit)
