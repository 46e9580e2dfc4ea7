"""Notes' bodies are read only where a query shows them, and shown the same on both stores.

The dashboard's entities document names every entity's backlink sources by id and path
(~1,650 notes at 10,000): reading each of their bodies back from its file (embedded) or
shipping it over bolt (Neo4j) took seconds a request (issue 43). So get_nodes(bodies=False)
gives notes with "" for a body, the GraphQL loaders and neighbourhoods read nodes that way,
and `Memory.body` is read when a query asks for it. These tests hold both halves: the
entities and neighbourhood documents read no body, and a body asked through any path (a
link's source or target, a neighbourhood, a node by id, a page) is the file's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.model import MemoryNode
from brain.store.base import BodySource, GraphStore
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.counting import RoundTrips
from brain.store.neo4j.cypher import MEMORY_PROPS, MEMORY_PROPS_NO_BODY
from brain.store.neo4j.store import Neo4jStore
from tests.api.client import post
from tests.api.live import LiveServer, live_server
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note, reference

REPO = Path(__file__).resolve().parents[2]
ENTITIES = (REPO / "graphql" / "entities.graphql").read_text(encoding="utf-8")
NEIGHBORHOOD = (REPO / "graphql" / "neighborhood.graphql").read_text(encoding="utf-8")
MEMORIES_PAGE = (REPO / "graphql" / "memories-page.graphql").read_text(encoding="utf-8")
BODIES = {
    "memory/bot/a.md": "A links [[b]] and [[flow]].",
    "memory/bot/b.md": "B links [[shared/c]] and [[chat:standup]].",
    "memory/shared/c.md": "C links [[flow]] — with ünïcode.",
    "memory/bot/d.md": "D links [[a]].",
}

# A body through every road that leads to a note: a link's source and target, a neighbourhood's
# nodes, a node by id, a page of memories, and an entity's backlinks.
EVERY_ROAD = """
query($id: ID!) {
  memory(path: "memory/bot/a.md") {
    body
    links { target { ... on Memory { id body } } }
    backlinks { source { id body } }
  }
  node(id: $id) { ... on Memory { body } }
  neighborhood(id: $id, depth: 2) { nodes { id ... on Memory { body } } }
  memories(first: 2) { nodes { id body } }
  workflows { backlinks { source { id body } } }
}
"""


def written(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    for rel, body in BODIES.items():
        ws.write(rel, note(rel.rsplit("/", 1)[1], body))
    ws.write("workflows/flow.yaml", "title: Flow\n")
    ws.write("chats/standup.md", "# Standup\n")
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return written(tmp_path)


@pytest.fixture(scope="module")
def on_neo4j(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[LiveServer, Workspace]]:
    """The Neo4j leg's one served ingest of the workspace, for the module: the tests only read
    it, and each cleared the database and ingested the same files again (a first sync, with its
    generation switch: about 50 of a test's 70-90 statements). The files are checked unchanged
    at the end. The embedded leg keeps a store a test: two of its tests count the reads of it."""
    ws = written(tmp_path_factory.mktemp("bodies"))
    before = files_of(ws.root)
    store = open_neo4j(request.getfixturevalue("neo4j_login"))
    try:
        with live_server(ws.root, store, watch=False) as live:
            yield live, ws
    finally:
        store.close()
    assert files_of(ws.root) == before, "a test changed the shared workspace"


def files_of(root: Path) -> dict[str, bytes]:
    """The workspace's files but brain's own state (.brain/)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".brain" not in p.relative_to(root).parts}


@contextmanager
def served(store_kind: str, request: pytest.FixtureRequest) -> Iterator[tuple[LiveServer, Workspace]]:
    """The store under test, served with the workspace synced: the module's Neo4j one, or a
    fresh embedded one of the test's own workspace."""
    if store_kind == "neo4j":
        yield request.getfixturevalue("on_neo4j")
        return
    ws: Workspace = request.getfixturevalue("workspace")
    with live_server(ws.root, MemoryStore(), watch=False) as live:
        yield live, ws


@pytest.fixture
def synced(store_kind: str, request: pytest.FixtureRequest) -> tuple[GraphStore, Workspace]:
    """The store under test holding the workspace (not served, for the embedded leg)."""
    if store_kind == "neo4j":
        live, ws = request.getfixturevalue("on_neo4j")
        return live.brain.store, ws
    ws = request.getfixturevalue("workspace")
    return ws.brain(MemoryStore()).store, ws


class CountedReads:
    """The workspace's files as the embedded store reads bodies back, counting the reads."""

    def __init__(self, source: BodySource) -> None:
        self.source = source
        self.read_paths: list[str] = []

    def on_disk(self, memory: MemoryNode) -> bool:
        return self.source.on_disk(memory)

    def read(self, memory: MemoryNode) -> str:
        self.read_paths.append(memory.path)
        return self.source.read(memory)


def test_get_nodes_without_bodies_is_get_nodes_with_empty_bodies(
    synced: tuple[GraphStore, Workspace],
) -> None:
    store, workspace = synced
    ids = ["memory:bot/a", "memory:bot/b", "memory:bot/d", "memory:shared/c", "agent:bot", "workflow:flow",
           "chat:standup", "memory:bot/none"]
    full = store.get_nodes(ids)
    bare = store.get_nodes(ids, bodies=False)
    assert set(bare) == set(full) == set(ids) - {"memory:bot/none"}
    for node_id, node in full.items():
        expected = replace(node, body="") if isinstance(node, MemoryNode) else node
        assert bare[node_id] == expected, node_id
    assert {n.path: n.body.strip() for n in full.values() if isinstance(n, MemoryNode)} == BODIES
    # the same nodes on both stores, either way
    embedded = reference(workspace.root).store
    assert embedded.get_nodes(ids, bodies=False) == bare
    assert embedded.get_nodes(ids) == full
    # and a neighbourhood's notes come without bodies, on both stores alike
    around = store.neighborhood("memory:bot/b", depth=2, limit=50)
    assert around == embedded.neighborhood("memory:bot/b", depth=2, limit=50)
    assert all(n.body == "" for n in around.nodes if isinstance(n, MemoryNode))


async def test_a_body_is_the_files_whichever_road_leads_to_the_note(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    answers = []
    with served(store_kind, request) as (server, workspace):
        async with httpx.AsyncClient(timeout=30) as client:
            answers.append(await post(client, server.graphql, EVERY_ROAD, {"id": "memory:bot/a"}))
    with live_server(workspace.root, MemoryStore(), watch=False) as server:
        async with httpx.AsyncClient(timeout=30) as client:
            answers.append(await post(client, server.graphql, EVERY_ROAD, {"id": "memory:bot/a"}))
    answer, embedded = answers
    assert "errors" not in answer, answer
    assert answer == embedded
    data = answer["data"]
    bodies = {rel.removeprefix("memory/").removesuffix(".md"): body for rel, body in BODIES.items()}

    def body_of(node_id: str) -> str:
        return bodies[node_id.removeprefix("memory:")]

    assert data["memory"]["body"].strip() == body_of("memory:bot/a")
    targets = [link["target"] for link in data["memory"]["links"] if "id" in link["target"]]
    assert [t["id"] for t in targets] == ["memory:bot/b"]
    sources = [link["source"] for link in data["memory"]["backlinks"]]
    assert [s["id"] for s in sources] == ["memory:bot/d"]
    assert data["node"]["body"].strip() == body_of("memory:bot/a")
    notes = [n for n in data["neighborhood"]["nodes"] if "body" in n]
    assert {n["id"] for n in notes} == {"memory:bot/a", "memory:bot/b", "memory:bot/d", "memory:shared/c"}
    flow_sources = [link["source"] for w in data["workflows"] for link in w["backlinks"]]
    assert {s["id"] for s in flow_sources} == {"memory:bot/a", "memory:shared/c"}
    for node in [*targets, *sources, *notes, *data["memories"]["nodes"], *flow_sources]:
        assert node["body"].strip() == body_of(node["id"]), node


async def test_the_entities_and_neighbourhood_documents_read_no_body(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    with served(store_kind, request) as (server, _):
        store = server.brain.store
        reads: CountedReads | None = None
        if isinstance(store, MemoryStore):
            source = store.body_source()
            assert source is not None  # brain reads bodies back from the workspace's files
            reads = CountedReads(source)
            store.read_bodies_from(reads)
        elif isinstance(store, Neo4jStore):
            full_reads = store._nodes.misses + store._nodes.hits  # the nodes kept with bodies
        async with httpx.AsyncClient(timeout=30) as client:
            entities = await post(client, server.graphql, ENTITIES)
            around = await post(client, server.graphql, NEIGHBORHOOD, {"id": "memory:bot/b", "depth": 2})
        assert "errors" not in entities, entities
        assert "errors" not in around, around
        sources = {link["source"]["path"] for kind in ("workflows", "chats")
                   for e in entities["data"][kind] for link in e["backlinks"]}
        assert sources == {"memory/bot/a.md", "memory/bot/b.md", "memory/shared/c.md"}
        assert {n["id"] for n in around["data"]["neighborhood"]["nodes"]} >= {
            "memory:bot/a", "memory:bot/b", "memory:bot/d", "memory:shared/c", "agent:bot", "workflow:flow",
        }
        if reads is not None:
            assert reads.read_paths == []
            # the counting is live: a body asked for is read through it
            assert (await _body(server.graphql, "memory:bot/b")).strip() == BODIES["memory/bot/b.md"]
            assert reads.read_paths == ["memory/bot/b.md"]
        elif isinstance(store, Neo4jStore):
            assert store._nodes.misses + store._nodes.hits == full_reads
            assert (await _body(server.graphql, "memory:bot/b")).strip() == BODIES["memory/bot/b.md"]
            assert store._nodes.misses + store._nodes.hits > full_reads


async def test_the_memories_page_reads_no_body(store_kind: str, request: pytest.FixtureRequest) -> None:
    """The dashboard's table of memories shows no text: at 10,000 notes a page of a hundred
    bodies was most of what Neo4j shipped for it (issue 43). A page that asks for `body`
    still gets each file's, on both stores alike."""
    answers = []
    with served(store_kind, request) as (server, workspace):
        answers.append(await _page_and_bodies(server))
    with live_server(workspace.root, MemoryStore(), watch=False) as server:
        answers.append(await _page_and_bodies(server))
    assert answers[0] == answers[1]
    bodies = [n["body"].strip() for n in answers[0][1]["data"]["memories"]["nodes"]]
    assert bodies == [BODIES["memory/bot/a.md"], BODIES["memory/bot/b.md"], BODIES["memory/bot/d.md"]]


async def _page_and_bodies(server: LiveServer) -> tuple[int, Any]:
    """A page of memories without bodies (no body read or shipped), then the same with them."""
    each = server.brain.store
    reads = CountedReads(_source(each)) if isinstance(each, MemoryStore) else None
    if reads is not None:
        each.read_bodies_from(reads)
    trips = RoundTrips.around(each) if isinstance(each, Neo4jStore) else None
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            page = await post(client, server.graphql, MEMORIES_PAGE, {"first": 3})
            assert "errors" not in page, page
            assert [e["node"]["name"] for e in page["data"]["memories"]["edges"]] == ["a", "b", "d"]
            assert reads is None or reads.read_paths == []
            if trips is not None:  # no statement of the page ships a body
                assert trips.sent
                assert all(MEMORY_PROPS not in q.replace(MEMORY_PROPS_NO_BODY, "")
                           for q in trips.sent), trips.sent
            with_bodies = await post(client, server.graphql, "{ memories(first: 3) { nodes { id body } } }")
    finally:
        if trips is not None and isinstance(each, Neo4jStore):  # the shared store's own driver again
            each._driver = trips.driver
    return page["data"]["memories"]["totalCount"], with_bodies


def _source(store: MemoryStore) -> BodySource:
    source = store.body_source()
    assert source is not None  # brain reads bodies back from the workspace's files
    return source


async def _body(url: str, node_id: str) -> str:
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await post(client, url, "query($id: ID!) { node(id: $id) { ... on Memory { body } } }",
                            {"id": node_id})
    body: str = answer["data"]["node"]["body"]
    return body
