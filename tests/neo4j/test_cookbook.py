"""Every query of docs/cypher.md runs on real Neo4j and answers what GraphQL answers.

The cookbook is for people who explore the graph by hand, so each query is taken from the
document as written (every fenced `cypher` block, named by its first line), run with its
parameters on a driver of its own (as Neo4j Browser runs it: no generation lookup) against
Neo4j loaded with examples/workspace, and compared with the same answer derived from brain's
GraphQL API on the embedded store. A block without a derivation here, or a derivation
without its block, fails the test: the document and the test cannot drift apart.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections import deque
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore
from tests.api.client import post
from tests.api.live import live_server
from tests.neo4j.conftest import Login, driver_for

pytestmark = pytest.mark.neo4j

REPO = Path(__file__).resolve().parents[2]
COOKBOOK = REPO / "docs" / "cypher.md"
EXAMPLE = REPO / "examples" / "workspace"  # the Makefile's `make serve` workspace

LINK = "status line text targetText target { __typename ... on Memory { path } ... on Node { id } }"
EVERYTHING = f"""{{
  stats {{ memories agents workflows chats workItems unresolved }}
  agents {{ name memories(first: 100) {{ nodes {{ path description }} }} }}
  memories(first: 100) {{ pageInfo {{ hasNextPage }}
    nodes {{ path scope backlinkCount links {{ {LINK} }} backlinks {{ line status source {{ path }} }} }} }}
  chats {{ id backlinks {{ source {{ path }} }} }}
  workflows {{ id backlinks {{ source {{ path }} }} }}
}}"""

Rows = list[dict[str, Any]]


def blocks() -> dict[str, str]:
    """The cookbook's queries by name (`// name: what it does` on the first line)."""
    found: dict[str, str] = {}
    for block in re.findall(r"```cypher\n(.*?)```", COOKBOOK.read_text(encoding="utf-8"), re.DOTALL):
        head = re.match(r"// ([a-z-]+): ", block)
        assert head, f"a cypher block of docs/cypher.md has no `// name: ...` first line:\n{block}"
        assert head.group(1) not in found, f"two blocks are named {head.group(1)}"
        found[head.group(1)] = block
    return found


def documented_params() -> dict[str, str]:
    """The `:param x => '...'` lines the cookbook tells Browser users to set."""
    text = COOKBOOK.read_text(encoding="utf-8")
    return dict(re.findall(r"^:param (\w+) => '([^']*)'$", text, re.MULTILINE))


class Graph:
    """The example workspace as GraphQL on the embedded store tells it."""

    def __init__(self, data: dict[str, Any]) -> None:
        assert not data["memories"]["pageInfo"]["hasNextPage"]
        self.data = data
        self.memories: list[dict[str, Any]] = data["memories"]["nodes"]
        self.by_path = {m["path"]: m for m in self.memories}
        self.agents = sorted(a["name"] for a in data["agents"])
        # Links between notes, as written (any status that lands on a note).
        self.edges = {m["path"]: [link["target"]["path"] for link in m["links"]
                                  if link["target"]["__typename"] == "Memory"] for m in self.memories}

    def distance(self, start: str, end: str, most: int = 10) -> int | None:
        seen, queue = {start: 0}, deque([start])
        while queue:
            here = queue.popleft()
            if here == end:
                return seen[here]
            for there in self.edges.get(here, ()):
                if there not in seen and seen[here] < most:
                    seen[there] = seen[here] + 1
                    queue.append(there)
        return None


def status(value: str) -> str:
    return value.lower().replace("_", "-")  # GraphQL's enum as the graph stores it


def count_by_kind(g: Graph, _: dict[str, str]) -> Rows:
    s = g.data["stats"]
    counts = {"Agent": s["agents"], "Chat": s["chats"], "Memory": s["memories"],
              "Unresolved": s["unresolved"], "WorkItem": s["workItems"], "Workflow": s["workflows"]}
    return [{"kind": k, "nodes": n} for k, n in sorted(counts.items()) if n]


def agent_notes(g: Graph, p: dict[str, str]) -> Rows:
    agent = next(a for a in g.data["agents"] if a["name"] == p["agent"])
    return sorted(({"path": m["path"], "description": m["description"]} for m in agent["memories"]["nodes"]),
                  key=lambda r: r["path"])


def agent_reach(g: Graph, p: dict[str, str]) -> Rows:
    return [{"scope": m["scope"], "path": m["path"]} for m in sorted(g.memories, key=lambda m: m["path"])
            if m["scope"] in (p["agent"], "shared")]


def backlinks(g: Graph, p: dict[str, str]) -> Rows:
    rows = [{"source": b["source"]["path"], "line": b["line"], "status": status(b["status"])}
            for b in g.by_path[p["note"]]["backlinks"]]
    return sorted(rows, key=lambda r: (r["source"], r["line"]))


def broken_links(g: Graph, _: dict[str, str]) -> Rows:
    rows = [{"path": m["path"], "line": x["line"], "link": x["text"], "wants": x["targetText"]}
            for m in g.memories for x in m["links"] if x["status"] == "BROKEN"]
    return sorted(rows, key=lambda r: (r["path"], r["line"]))


def wanted(g: Graph, _: dict[str, str]) -> Rows:
    wanting: dict[str, set[str]] = {}
    for m in g.memories:
        for x in m["links"]:
            if x["target"]["__typename"] == "Unresolved":
                wanting.setdefault(x["targetText"], set()).add(m["path"])
    return sorted(({"wants": t, "notes": len(n)} for t, n in wanting.items()),
                  key=lambda r: (-r["notes"], r["wants"]))


def orphans(g: Graph, _: dict[str, str]) -> Rows:
    return [{"path": m["path"]} for m in sorted(g.memories, key=lambda m: m["path"])
            if not any(b["source"]["path"] != m["path"] for b in m["backlinks"])]


def hubs(g: Graph, _: dict[str, str]) -> Rows:
    ranked = sorted((m for m in g.memories if m["backlinkCount"]),
                    key=lambda m: (-m["backlinkCount"], m["path"]))
    return [{"path": m["path"], "backlinks": m["backlinkCount"]} for m in ranked[:10]]


def path_between(g: Graph, p: dict[str, str]) -> Rows:
    """Shortest paths are not unique: the rows say only how long it is (checked below)."""
    hops = g.distance(p["from"], p["to"])
    return [] if hops is None or p["from"] == p["to"] else [{"length": hops}]


def on_chats_and_workflows(g: Graph, _: dict[str, str]) -> Rows:
    rows = [{"about": e["id"], "notes": sorted({b["source"]["path"] for b in e["backlinks"]})}
            for e in [*g.data["chats"], *g.data["workflows"]] if e["backlinks"]]
    return sorted(rows, key=lambda r: r["about"])


def agent_link_reach(g: Graph, p: dict[str, str]) -> Rows:
    agent = next(a for a in g.data["agents"] if a["name"] == p["agent"])
    reached: set[str] = set()
    level = {m["path"] for m in agent["memories"]["nodes"]}
    for _ in range(3):
        level = {t for s in level for t in g.edges[s]}
        reached |= level
    return [{"path": path} for path in sorted(reached)]


Derivation = Callable[[Graph, dict[str, str]], Rows]
# Each block's answer from GraphQL, and the parameters it is asked with.
DERIVED: dict[str, Derivation] = {
    "count-by-kind": count_by_kind, "agent-notes": agent_notes, "agent-reach": agent_reach,
    "backlinks": backlinks, "broken-links": broken_links, "wanted": wanted, "orphans": orphans,
    "hubs": hubs, "path-between": path_between, "notes-on-chats-and-workflows": on_chats_and_workflows,
    "agent-link-reach": agent_link_reach,
}


def parameter_sets(query: str, g: Graph) -> Iterator[dict[str, str]]:
    """The documented parameters, then a spread over the whole example."""
    documented = documented_params()
    names = set(re.findall(r"\$(\w+)", query))
    assert names <= set(documented), f"parameters {names - set(documented)} are not set in docs/cypher.md"
    yield {n: documented[n] for n in names}
    if names == {"agent"}:
        yield from ({"agent": a} for a in g.agents)
    elif names == {"note"}:
        yield from ({"note": path} for path in sorted(g.by_path))
    elif names == {"from", "to"}:
        for path in sorted(g.by_path):
            yield {"from": documented["from"], "to": path}
            yield {"from": path, "to": documented["to"]}


@pytest.fixture(scope="module")
def loaded(neo4j_login: Login, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Graph, Login]]:
    root = Path(shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("cookbook") / "workspace"))
    store = Neo4jStore.connect(*neo4j_login)
    store.clear()
    brain = Brain(root, store)
    brain.sync()

    async def ask() -> dict[str, Any]:
        with live_server(root, MemoryStore(), watch=False) as server:
            async with httpx.AsyncClient(timeout=30) as client:
                body = await post(client, server.graphql, EVERYTHING)
        assert "errors" not in body, body
        data: dict[str, Any] = body["data"]
        return data

    data = asyncio.run(ask())
    yield Graph(data), neo4j_login
    brain.close()


def test_every_block_has_a_derivation_and_every_derivation_a_block() -> None:
    assert sorted(blocks()) == sorted(DERIVED)


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_the_query_answers_what_graphql_answers(name: str, loaded: tuple[Graph, Login]) -> None:
    g, login = loaded
    query = blocks()[name]
    driver = driver_for(login)
    try:
        answered = 0
        for params in parameter_sets(query, g):
            rows = [dict(r) for r in driver.execute_query(query, params, database_=login[3]).records]
            if name == "path-between":  # one shortest path of the right length, along real links
                for row in rows:
                    hops = row.pop("hops")
                    assert all(b in g.edges[a] for a, b in pairwise(hops)), hops
                    row["length"] = len(hops) - 1
            expected = DERIVED[name](g, params)
            assert rows == expected, (name, params)
            answered += bool(rows)
        assert answered, f"{name} found nothing on the example workspace: a test that cannot fail"
    finally:
        driver.close()
