"""A list of links hands each link its source, fetched for the whole list at once.

The dashboard's entities document resolves every entity's backlinks with their sources
(~8,300 links at 10,000 notes): each `source` awaited its own DataLoader load, a future and
an awaitable path of graphql-core per link, 1.5 s of CPU a request on Neo4j (issue 43). Now
`backlinks` loads every source at once when the query asks for `source`
(brain/api/graph/selection.py finds it through fragments), and `Link.source` answers from it
without an await. The answers stay the embedded store's, on both stores; a link whose
source is gone still says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.graph.links import Link
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.api.client import post
from tests.api.live import live_server
from tests.contract.helpers import Workspace, note

ENTITIES = (Path(__file__).resolve().parents[2] / "graphql" / "entities.graphql").read_text(encoding="utf-8")

# `source` asked in every way a document can: directly, in an inline fragment, through a
# fragment spread, through a fragment inside a fragment; and not at all (no source loaded).
SHAPES = {
    "direct": "{ workflows { backlinks { source { id path } } } }",
    "inline": "{ workflows { backlinks { ... on Link { source { id } } } } }",
    "spread": "{ workflows { backlinks { ...L } } } fragment L on Link { source { id } }",
    "nested": "{ workflows { backlinks { ...A } } } fragment A on Link { ...B } "
              "fragment B on Link { source { id } }",
    "memory": '{ memory(path: "memory/bot/hub.md") { backlinks { source { path } } } }',
}


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path)
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("workflows/ship.md", "---\ntitle: Ship it\n---\n")
    ws.write("chats/standup.md", "# Standup\n")
    for n in range(6):
        chat = " [[chat:standup]]" * (n % 2)
        ws.write(f"memory/bot/n{n}.md", note(f"n{n}", "[[workflow:ship]] [[hub]]" + chat))
    ws.write("memory/shared/s.md", note("s", "[[workflow:ship]] twice [[workflow:ship]] [[bot/hub]]"))
    ws.write("memory/bot/hub.md", note("hub", "the hub"))
    return ws


def _answers(store: GraphStore, root: Path, awaited: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with live_server(root, store, watch=False) as server, httpx.Client(timeout=60) as http:
        for name, query in {"entities": ENTITIES, **SHAPES}.items():
            awaited.clear()
            body = http.post(server.graphql, json={"query": query}).json()
            assert "errors" not in body, (name, body)
            out[name] = (body["data"], len(awaited))
    return out


def test_sources_come_with_the_list_on_both_stores(
    store: GraphStore, workspace: Workspace, monkeypatch: pytest.MonkeyPatch,
) -> None:
    awaited: list[str] = []  # links whose source was awaited one by one
    one_by_one = Link._source

    async def counted(self: Link, info: Any) -> Any:
        awaited.append(self.record.source)
        return await one_by_one(self, info)

    monkeypatch.setattr(Link, "_source", counted)
    got = _answers(store, workspace.root, awaited)
    expected = _answers(MemoryStore(), workspace.root, awaited)
    assert {k: v[0] for k, v in got.items()} == {k: v[0] for k, v in expected.items()}
    sources = [link["source"]["path"] for w in got["entities"][0]["workflows"] for link in w["backlinks"]]
    assert len(sources) == 8  # the case is what it says: six notes and one twice
    for name, (_, one_by_one_count) in got.items():
        assert one_by_one_count == 0, f"{name}: {one_by_one_count} sources awaited one by one"


async def test_a_gone_source_is_still_said(store: GraphStore, workspace: Workspace) -> None:
    """A source the list could not find (removed meanwhile) goes the loader's way and says so."""
    with live_server(workspace.root, store, watch=False) as server:
        removed = workspace.root / "memory" / "bot" / "n0.md"
        loaders_get = server.brain.store.get_nodes

        def without_n0(ids: Any, *, bodies: bool = True) -> Any:
            return {i: n for i, n in loaders_get(ids, bodies=bodies).items() if i != "memory:bot/n0"}

        server.brain.store.get_nodes = without_n0  # type: ignore[method-assign]
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await post(client, server.graphql, SHAPES["direct"])
        assert removed.exists()
    assert any("memory:bot/n0" in e["message"] and "removed while this query ran" in e["message"]
               for e in answer["errors"]), answer
