"""Problems (all, or those of some files) and the neighbourhood of a node."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import pytest

from brain.model import Severity
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.conftest import STORES, open_neo4j
from tests.contract.helpers import Workspace, note, reference


def write(ws: Workspace) -> Workspace:
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[ghost]]\n[[b#Nowhere]]"))
    ws.write("memory/bot/b.md", note("b", "[[shared/c]] [[flow]]"))
    ws.write("memory/bot/bad.md", "---\ntype: diary\ndescription: [unclosed\n---\n[[ghost]]\n")
    ws.write("memory/shared/c.md", note("c", "[[flow]]"))
    ws.write("memory/ghost-bot/x.md", note("x", "[[a]]"))
    ws.write("workflows/flow.yaml", "title: Flow\n")
    return ws


class Ingested(NamedTuple):
    store: GraphStore  # the store under test, the workspace ingested
    expected: GraphStore  # a full ingest of the same files into the embedded store


@pytest.fixture(scope="module", params=STORES)
def ingested(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ingested]:
    """The workspace ingested once a store for the module: its tests only read (problems and
    neighbourhoods), each from the same ingest that each made again before. It fails at the
    end if a test changed the graph."""
    ws = write(Workspace(tmp_path_factory.mktemp("ws")))
    store: GraphStore = (MemoryStore() if request.param == "memory"
                         else open_neo4j(request.getfixturevalue("neo4j_login")))
    try:
        ws.brain(store)
        before = store.export()
        yield Ingested(store, reference(ws.root).store)
        assert store.export() == before, "a reading test changed the shared graph"
    finally:
        store.close()


def test_problems_match_the_embedded_store_record_for_record(ingested: Ingested) -> None:
    problems = ingested.store.problems()
    assert problems == ingested.expected.problems()
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


def test_problems_of_some_paths(ingested: Ingested) -> None:
    store = ingested.store
    every = store.problems()
    for paths in (["memory/bot/a.md"], ["memory/ghost-bot", "memory/bot/bad.md"], ["memory/bot/b.md"], []):
        assert store.problems(paths) == [p for p in every if p.path in paths]


def test_neighborhood_depth_and_edges(ingested: Ingested) -> None:
    store = ingested.store
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
    expected = ingested.expected
    for node_id in ("memory:bot/b", "agent:bot", "unresolved:ghost", "workflow:flow", "agent:ghost-bot"):
        for depth, limit in ((0, 10), (1, 3), (2, 5), (3, 100)):
            assert store.neighborhood(node_id, depth, limit) == expected.neighborhood(node_id, depth, limit)


def test_neighborhood_truncates_at_the_limit(ingested: Ingested) -> None:
    store = ingested.store
    cut = store.neighborhood("agent:bot", depth=2, limit=3)
    assert cut.truncated
    assert [n.id for n in cut.nodes] == ["agent:bot", "memory:bot/a", "memory:bot/b"]
    assert store.neighborhood("memory:none/x", 2, 10).nodes == ()


def test_neighborhood_at_every_depth_and_limit_as_the_embedded_store_walks_it(ingested: Ingested) -> None:
    """Neo4j answers a caller who sees everything with one read for all levels
    (brain/store/neo4j/reads/around.py): the same nodes, edges and `truncated` as the embedded
    store's walk, at each depth it serves and at each limit (below, at and past the number
    of nodes a level reaches: at exactly the limit the next level still says if it cut)."""
    store, embedded = ingested.store, ingested.expected
    starts = ["memory:bot/a", "memory:bot/b", "memory:shared/c", "agent:bot", "workflow:flow",
              "unresolved:ghost", "memory:ghost-bot/x"]
    for start in starts:
        for depth in (1, 2, 3):
            for limit in range(1, 11):
                expected = embedded.neighborhood(start, depth, limit)
                assert store.neighborhood(start, depth, limit) == expected, (start, depth, limit)
