"""DataLoaders: a page of memories with owners and backlinks costs a constant number of store calls."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.api.client import post
from tests.api.conftest import ServerFactory
from tests.api.counting import CountingStore
from tests.api.files import write

PAGE = """query($first: Int!) {
  memories(first: $first) {
    edges { node {
      id
      owner { name memoryCounts { total } }
      links { status target { __typename ... on Node { id } } }
      backlinks { text source { id description owner { name } } }
    } }
  }
}"""


def many_notes(root: Path, per_scope: int = 40) -> Path:
    scopes = ["alpha", "beta", "gamma", "shared"]
    for s, scope in enumerate(scopes):
        for i in range(per_scope):
            # Each note links to two notes of the next scope and to a shared one.
            other = scopes[(s + 1) % len(scopes)]
            body = f"[[{other}/n{(i + 1) % per_scope}]] [[{other}/n{(i + 2) % per_scope}]] [[shared/n{i}]]"
            text = f"---\ndescription: {scope} {i}\ntype: user\n---\n{body}\n"
            write(root, f"memory/{scope}/n{i}.md", text)
    return root


@pytest.mark.parametrize("first", [10, 100])
async def test_a_page_costs_a_constant_number_of_store_calls(
    serve: ServerFactory, tmp_path: Path, first: int
) -> None:
    store = CountingStore()
    live = serve(many_notes(tmp_path), store, watch=False)
    store.reset()
    async with httpx.AsyncClient(timeout=10) as client:
        body = await post(client, live.graphql, PAGE, {"first": first})
    edges = body["data"]["memories"]["edges"]
    assert len(edges) == first
    assert sum(len(e["node"]["backlinks"]) for e in edges) >= 2 * first
    # list_memories once; per level one batched call: owners and link targets and backlink
    # sources (nodes), links, backlinks, and the owners' counts.
    assert store.calls["list_memories"] == 1
    assert store.calls["links_from"] == 1
    assert store.calls["backlinks"] == 1  # cut in the store (brain/store/backlink_pages.py)
    assert store.calls["links_to"] == 0
    assert store.calls["memory_type_counts"] == 1
    assert store.calls["get_nodes"] <= 3
    assert store.total <= 7


async def test_agents_overview_costs_two_store_calls(serve: ServerFactory, tmp_path: Path) -> None:
    store = CountingStore()
    live = serve(many_notes(tmp_path, per_scope=5), store, watch=False)
    store.reset()
    async with httpx.AsyncClient(timeout=10) as client:
        body = await post(client, live.graphql, (Path("graphql") / "agents-overview.graphql").read_text())
    assert [a["memoryCounts"]["total"] for a in body["data"]["agents"]] == [5, 5, 5]
    assert store.calls == {"list_agents": 1, "memory_type_counts": 1, "stats": 1}
