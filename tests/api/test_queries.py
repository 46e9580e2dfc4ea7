"""Queries over real HTTP against a small workspace: what each field answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.store.memory.store import MemoryStore
from tests.api.client import post
from tests.api.conftest import ServerFactory
from tests.api.files import make_workspace, write
from tests.api.live import live_server


async def ask(url: str, query: str, **variables: object) -> Any:
    async with httpx.AsyncClient(timeout=10) as client:
        return await post(client, url, query, variables)


def data(body: Any) -> Any:
    assert "errors" not in body, body
    return body["data"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The GraphQL URL of one served small workspace for the tests that only read it (they
    ask queries, and nothing follows the files): one start a module, not one a test. The
    tests that add files before serving keep a server of their own."""
    root = make_workspace(tmp_path_factory.mktemp("queries") / "ws")
    with live_server(root, MemoryStore(), watch=False) as live:
        yield live.graphql


MEMORY = """
query($path: String, $scope: String, $name: String) {
  memory(path: $path, scope: $scope, name: $name) {
    id scope name path virtualPath description type size hash
    headings { text level line }
    owner { name }
    links { text target { __typename ... on Node { id } } status anchor label line column }
    backlinks { text source { id } }
    problems { code line column }
  }
}
"""


async def test_memory_by_path_and_by_scope_and_name(served: str) -> None:
    by_path = data(await ask(served, MEMORY, path="memory/bot/notes.md"))["memory"]
    by_name = data(await ask(served, MEMORY, scope="bot", name="NOTES"))["memory"]
    assert by_path == by_name
    assert by_path["id"] == "memory:bot/notes"
    assert by_path["virtualPath"] == "/memories/notes.md"
    assert by_path["type"] == "PROJECT"
    assert by_path["owner"] == {"name": "bot"}
    assert by_path["headings"] == [{"text": "Top", "level": 1, "line": 5}]
    assert [(link["text"], link["status"], link["target"]["id"]) for link in by_path["links"]] == [
        ("[[glossary]]", "RESOLVED", "memory:shared/glossary"),
        ("[[missing-thing]]", "BROKEN", "unresolved:missing-thing"),
        ("[[writer/style#Tone]]", "RESOLVED", "memory:writer/style"),
    ]
    assert by_path["links"][1]["target"]["__typename"] == "Unresolved"
    assert by_path["links"][0]["line"] == 6
    assert by_path["links"][0]["column"] == 8
    assert by_path["backlinks"] == []
    assert [p["code"] for p in by_path["problems"]] == ["broken-link"]


async def test_backlinks_name_the_linking_note(served: str) -> None:
    memory = data(await ask(served, MEMORY, path="memory/writer/style.md"))["memory"]
    assert memory["backlinks"] == [{"text": "[[writer/style#Tone]]", "source": {"id": "memory:bot/notes"}}]


async def test_memory_needs_path_or_scope_and_name(served: str) -> None:
    body = await ask(served, "{ memory(scope: \"bot\") { id } }")
    (error,) = body["errors"]
    assert "either `path`" in error["message"]
    assert data(await ask(served, MEMORY, path="memory/bot/nothing.md"))["memory"] is None


async def test_memories_pages_follow_cursors_and_count_on_demand(
    serve: ServerFactory, workspace: Path
) -> None:
    for i in range(7):
        write(workspace, f"memory/bot/extra-{i}.md", f"---\ndescription: extra {i}\ntype: user\n---\n")
    live = serve(workspace, watch=False)
    query = """query($after: String, $filter: MemoryFilterInput) {
      memories(first: 3, after: $after, filter: $filter) {
        totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } }
      }
    }"""
    seen: list[str] = []
    after = None
    while True:
        page = data(await ask(live.graphql, query, after=after, filter={"agent": "bot"}))["memories"]
        assert isinstance(page, dict)
        assert page["totalCount"] == 8
        seen += [edge["node"]["id"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == sorted(seen)
    assert len(seen) == 8
    typed = data(await ask(live.graphql, query, filter={"type": "USER", "text": "EXTRA 3"}))["memories"]
    assert [e["node"]["id"] for e in typed["edges"]] == ["memory:bot/extra-3"]
    broken = data(await ask(live.graphql, query, filter={"hasProblems": True}))["memories"]
    assert {e["node"]["id"] for e in broken["edges"]} == {
        "memory:bot/notes", "memory:old-bot/leftover", "memory:shared/glossary"
    }


async def test_a_bad_cursor_is_a_clear_error(served: str) -> None:
    body = await ask(served, '{ memories(after: "nonsense") { edges { cursor } } }')
    (error,) = body["errors"]
    assert "not a cursor of this list" in error["message"]


async def test_agents_with_counts_and_their_own_memories(served: str) -> None:
    body = data(await ask(served, """{
      agents { name memoryEnabled memoryOff path memoryCounts { total untyped byType { type count } } }
      agent(name: "writer") { memories { edges { node { id } } } backlinks { text } }
    }"""))
    agents = {a["name"]: a for a in body["agents"]}
    assert sorted(agents) == ["bot", "old-bot", "writer"]
    assert agents["old-bot"]["memoryOff"] is True
    assert agents["old-bot"]["path"] is None
    assert agents["old-bot"]["memoryCounts"] == {
        "total": 1, "untyped": 1,
        "byType": [{"type": t, "count": 0} for t in ("USER", "FEEDBACK", "PROJECT", "REFERENCE")],
    }
    assert agents["bot"]["memoryCounts"]["byType"][2] == {"type": "PROJECT", "count": 1}
    assert body["agent"] == {
        "memories": {"edges": [{"node": {"id": "memory:writer/style"}}]}, "backlinks": []
    }


async def test_node_by_id_for_every_kind(served: str) -> None:
    query = "query($id: ID!) { node(id: $id) { __typename id ... on Entity { name title } } }"
    expected = {
        "memory:shared/glossary": "Memory",
        "agent:bot": "Agent",
        "workflow:release": "Workflow",
        "chat:c1": "Chat",
        "work-item:BRN-1": "WorkItem",
        "unresolved:missing-thing": "Unresolved",
    }
    for node_id, typename in expected.items():
        node = data(await ask(served, query, id=node_id))["node"]
        assert isinstance(node, dict)
        assert (node["__typename"], node["id"]) == (typename, node_id)
    release = data(await ask(served, query, id="workflow:release"))["node"]
    assert release == {
        "__typename": "Workflow", "id": "workflow:release", "name": "release", "title": "Release train"
    }
    assert data(await ask(served, query, id="memory:nope/nope"))["node"] is None


async def test_unresolved_node_lists_who_wants_it(served: str) -> None:
    body = data(await ask(served, """{
      node(id: "unresolved:missing-thing") { ... on Unresolved { target wantedBy { source { id } } } }
      linkReport { total errors warnings byStatus { status count } byCode { code count }
                   mostWanted(first: 1) { count target { id } } }
    }"""))
    assert body["node"] == {
        "target": "missing-thing",
        "wantedBy": [{"source": {"id": "memory:bot/notes"}}, {"source": {"id": "memory:old-bot/leftover"}}],
    }
    report = body["linkReport"]
    assert report["mostWanted"] == [{"count": 2, "target": {"id": "unresolved:missing-thing"}}]
    by_status = {s["status"]: s["count"] for s in report["byStatus"]}
    assert by_status == {"RESOLVED": 4, "BROKEN": 3, "AMBIGUOUS": 0, "MISSING_ANCHOR": 0}
    assert report["total"] == 7
    assert {c["code"]: c["count"] for c in report["byCode"]} == {"broken-link": 3, "memory-off": 1}
    assert (report["errors"], report["warnings"]) == (3, 1)


async def test_neighborhood_returns_nodes_and_edges(served: str) -> None:
    query = """query($depth: Int!, $limit: Int!) {
      neighborhood(id: "memory:bot/notes", depth: $depth, limit: $limit) {
        truncated nodes { id } edges { type source target link { status } }
      }
    }"""
    one = data(await ask(served, query, depth=1, limit=100))["neighborhood"]
    ids = {n["id"] for n in one["nodes"]}
    assert ids == {
        "memory:bot/notes", "agent:bot", "memory:shared/glossary", "unresolved:missing-thing",
        "memory:writer/style",
    }
    remembers = {"type": "REMEMBERS", "source": "agent:bot", "target": "memory:bot/notes", "link": None}
    assert remembers in one["edges"]
    assert all(e["source"] in ids and e["target"] in ids for e in one["edges"])
    small = data(await ask(served, query, depth=3, limit=2))["neighborhood"]
    assert small["truncated"] is True
    assert len(small["nodes"]) == 2
    missing = await ask(served, '{ neighborhood(id: "agent:nobody") { truncated } }')
    assert data(missing)["neighborhood"] is None


@pytest.mark.parametrize("first", [1, 2, 3])
async def test_problem_pages_cover_every_problem_once(
    served: str, first: int
) -> None:
    query = """query($first: Int!, $after: String) {
      problems(first: $first, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { code path line } }
      }
    }"""
    seen: list[tuple[str, str, int | None]] = []
    after = None
    while True:
        page = data(await ask(served, query, first=first, after=after))["problems"]
        assert isinstance(page, dict)
        assert page["totalCount"] == 4
        seen += [(e["node"]["code"], e["node"]["path"], e["node"]["line"]) for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == sorted(seen, key=lambda p: (p[1], p[2] or 0))
    assert len(set(seen)) == 4
    warnings = data(await ask(served, '{ problems(severity: WARNING) { nodes { code path } } }'))
    assert warnings["problems"] == {"nodes": [{"code": "memory-off", "path": "memory/old-bot"}]}


async def test_entities_and_stats(served: str) -> None:
    body = data(await ask(served, """{
      workflows { id title path backlinks { source { id } } }
      chats { id title }
      workItems { id name title }
      stats { agents memories links broken unresolved workflows chats workItems }
    }"""))
    assert body["workflows"] == [{
        "id": "workflow:release", "title": "Release train", "path": "workflows/release.yaml",
        "backlinks": [{"source": {"id": "memory:shared/glossary"}}],
    }]
    assert body["chats"] == [{"id": "chat:c1", "title": "Chat one"}]
    assert body["workItems"] == [{"id": "work-item:BRN-1", "name": "BRN-1", "title": "Fix it"}]
    assert body["stats"] == {
        "agents": 3, "memories": 4, "links": 7, "broken": 3, "unresolved": 2,
        "workflows": 1, "chats": 1, "workItems": 1,
    }


async def test_ambiguous_link_lists_its_candidates(serve: ServerFactory, workspace: Path) -> None:
    write(workspace, "workflows/dup.yaml", "title: A workflow\n")
    write(workspace, "chats/dup.json", '{"title": "A chat"}\n')
    write(workspace, "memory/bot/amb.md", "Which one? [[dup]]\n")
    live = serve(workspace, watch=False)
    query = """{ memory(path: "memory/bot/amb.md") {
      links { status target { __typename } candidates { __typename ... on Node { id } } }
      problems { code message fix }
    } }"""
    memory = data(await ask(live.graphql, query))["memory"]
    (link,) = memory["links"]
    assert link["status"] == "AMBIGUOUS"
    assert link["target"] == {"__typename": "Unresolved"}
    assert link["candidates"] == [
        {"__typename": "Chat", "id": "chat:dup"}, {"__typename": "Workflow", "id": "workflow:dup"},
    ]
    (problem,) = memory["problems"]
    assert problem["code"] == "ambiguous-link"
    assert "chat:dup" in problem["message"]
    assert problem["fix"]


ANCHORS = """
query($path: String) {
  memory(path: $path) {
    headings { text written level line }
    blocks { id line startLine }
    links { anchor status }
    problems { code line column message }
  }
}
"""


async def test_anchors_as_obsidian_writes_them(serve: ServerFactory, workspace: Path) -> None:
    write(workspace, "memory/bot/anchored.md", (
        "# The `date` field\n\nSome text,\nmore ^b-1\n\n"
        "[[#The date field]] [[#The `date` field]] [[#^B-1]] [[#^nope]] $[[math]]$ [[|empty]]\n"
    ))
    live = serve(workspace, watch=False)
    memory = data(await ask(live.graphql, ANCHORS, path="memory/bot/anchored.md"))["memory"]
    assert memory["headings"] == [
        {"text": "The date field", "written": "The `date` field", "level": 1, "line": 1},
    ]
    assert memory["blocks"] == [{"id": "b-1", "line": 4, "startLine": 3}]
    assert memory["links"] == [
        {"anchor": "The date field", "status": "RESOLVED"},
        {"anchor": "The `date` field", "status": "RESOLVED"},
        {"anchor": "^B-1", "status": "RESOLVED"},
        {"anchor": "^nope", "status": "MISSING_ANCHOR"},
    ]
    assert [(p["code"], p["line"], p["column"]) for p in memory["problems"]] == [
        ("missing-anchor", 6, 53), ("empty-link", 6, 75),
    ]
    assert memory["problems"][0]["message"] == "`[[#^nope]]`: the target has no block `^nope`"
