"""The store cuts a page of backlinks itself (brain/store/backlink_pages.py), on both stores.

Before, GraphQL and MCP paged a hub note's backlinks after the store had loaded, built and
sorted every one of them: a page of 100 of a note with 450,000 backlinks cost the 450,000.
Here a hub has backlinks from shared notes, from the caller's own and from another agent's
private notes (interleaved in id order); each page asked of the store must be the next cut of
what the caller may see, and the store may build or ship only about a page of rows for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.mcp.tools import graph as mcp_graph
from brain.mcp.tools.graph import AgentView
from brain.model import Link
from brain.service.brain import Brain
from brain.store.backlink_pages import LinkAfter, link_order
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore
from brain.store.visibility import EVERYTHING, Reach
from tests.api.live import live_server
from tests.tool.conftest import make_workspace

HUB = "memory:shared/hub"
FM = "---\ndescription: {}\n---\n"
# Sources whose ids sort around each other: bob's private notes lie between alice's and
# shared ones (`memory:alice/` < `memory:bob/` < `memory:shared/`), and `writer`'s after them.
SOURCES = {
    "memory/alice/a{}.md": (3, 40),
    "memory/bob/b{}.md": (4, 60),
    "memory/shared/s{}.md": (3, 30),
    "memory/writer/w{}.md": (2, 26),
}


def hub_workspace(root: Path) -> Path:
    make_workspace(root)
    for agent in ("alice", "bob"):
        (root / "agents" / f"{agent}.md").write_text(f"---\ndescription: {agent}\nmemory: true\n---\n")
    (root / "memory" / "shared" / "hub.md").write_text(FM.format("the zebrahub"))
    for pattern, (notes, links) in SOURCES.items():
        for n in range(notes):
            path = root / pattern.format(n)
            path.parent.mkdir(parents=True, exist_ok=True)
            # Two links a line: a cursor must tell links of one line apart by column.
            body = "".join("[[shared/hub]] and [[shared/hub]]\n" for _ in range(links // 2))
            path.write_text(FM.format(path.stem) + body)
    return root


@pytest.fixture
def synced(tmp_path: Path, store: GraphStore) -> Brain:
    brain = Brain(hub_workspace(tmp_path / "ws"), store)
    brain.sync()
    return brain


@pytest.fixture
def rows_built(store: GraphStore) -> list[int]:
    """How many link rows the store builds (embedded) or ships (Neo4j) per call: counted at
    the one place each store makes them, so a store that loads every backlink shows it."""
    counts: list[int] = []
    if isinstance(store, MemoryStore):
        table = store._out  # the store's own row builder, counted, not replaced
        original: Callable[..., Any] = table.row

        def row(*args: Any) -> Any:
            counts.append(1)
            return original(*args)

        table.row = row  # type: ignore[method-assign]
    else:
        assert isinstance(store, Neo4jStore)
        read: Callable[..., Any] = store._read

        def counted(query: str, **params: Any) -> Any:
            found = read(query, **params)
            counts.append(len(found))
            return found

        store._read = counted  # type: ignore[method-assign]
    return counts


def expected(store: GraphStore, reach: Reach) -> list[Link]:
    every = store.links_to([HUB])[HUB]
    return sorted((lk for lk in every if reach.sees(lk.source)), key=link_order)


@pytest.mark.parametrize("reach", [EVERYTHING, Reach.of_agent("alice")], ids=["admin", "alice"])
def test_pages_are_cut_in_the_store_from_what_the_caller_sees(
    synced: Brain, store: GraphStore, rows_built: list[int], reach: Reach
) -> None:
    want = expected(store, reach)
    assert len(want) == (120 + 240 + 90 + 52 if reach.everything else 120 + 90)
    rows_built.clear()
    got: list[Link] = []
    after: LinkAfter | None = None
    while True:
        page = store.backlinks([HUB], 37, after, reach)[HUB]
        # One page's rows (and, at most, the rest of the cursor's own source).
        assert sum(rows_built) <= 37 + 60, "the store built or shipped more than a page"
        rows_built.clear()
        got += page
        if len(page) < 37:
            break
        after = link_order(page[-1])
    assert [link_order(lk) for lk in got] == [link_order(lk) for lk in want]
    none = "memory:shared/none"
    assert store.backlink_counts([HUB, none], reach) == {HUB: len(want), none: 0}
    assert store.backlinks([HUB], 0, None, reach) == {HUB: []}
    # Many nodes in one call (a GraphQL page of memories): each gets its own page.
    both = store.backlinks([HUB, "memory:shared/s0", "agent:alice"], 3, None, reach)
    assert {k: [link_order(lk) for lk in v] for k, v in both.items()} == {
        HUB: [link_order(lk) for lk in want[:3]], "memory:shared/s0": [], "agent:alice": [],
    }


def test_a_page_starts_after_a_cursor_that_no_longer_exists(synced: Brain, store: GraphStore) -> None:
    want = expected(store, EVERYTHING)
    gone = link_order(want[10])
    between = (gone[0], gone[1], gone[2])  # the link may be deleted: its key still orders
    assert store.backlinks([HUB], 5, between)[HUB]  # a hub's sorted keys, kept until a write changes them
    (synced.root / "memory" / "alice" / "a0.md").write_text(FM.format("a0"))
    synced.sync(["memory/alice/a0.md"])
    page = store.backlinks([HUB], 5, between)[HUB]
    assert page
    assert all(link_order(lk) > between for lk in page)
    later = [link_order(lk) for lk in store.links_to([HUB])[HUB] if link_order(lk) > between]
    assert link_order(page[0]) == min(later)


def test_graphql_agent_pages_skip_other_agents_notes(tmp_path: Path, store: GraphStore) -> None:
    root = hub_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"alice-token": "alice"}')
    # An agent reaches a node through a search hit (`memory(...)` is an admin's field).
    query = """query($after: String) { search(query: "zebrahub", mode: KEYWORD) { nodes { memory {
        backlinkCount backlinks(first: 50, after: $after) { source { id } line column cursor } } } } }"""
    seen: list[tuple[str, int, int]] = []
    with live_server(root, store, tokens=TokenRegistry(tokens_file=tokens)) as live, httpx.Client(
        base_url=live.base, timeout=60, headers={"Authorization": "Bearer alice-token"}
    ) as http:
        after = None
        while True:
            body = http.post("/graphql", json={"query": query, "variables": {"after": after}}).json()
            assert "errors" not in body, body
            memory = body["data"]["search"]["nodes"][0]["memory"]
            page = memory["backlinks"]
            seen += [(lk["source"]["id"], lk["line"], lk["column"]) for lk in page]
            if len(page) < 50:
                break
            after = page[-1]["cursor"]
    assert memory["backlinkCount"] == 120 + 90
    assert len(seen) == len(set(seen)) == 120 + 90
    assert seen == sorted(seen)
    assert {s.split("/")[0] for s, _, _ in seen} == {"memory:alice", "memory:shared"}


def test_mcp_backlinks_count_and_list_only_the_agents_reach(synced: Brain) -> None:
    back = mcp_graph.backlinks(AgentView(synced, "writer"), "/memories/shared/hub.md")
    assert (back["total"], back["truncated"], len(back["backlinks"])) == (90 + 52, False, 142)
    assert {b["source"].split("/")[2] for b in back["backlinks"]} <= {"shared", "w0.md", "w1.md"}
