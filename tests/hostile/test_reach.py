"""An agent cannot tell whether another agent's private note exists (design.md section 3).

Two workspaces differ only in bob's private notes; every graph answer alice gets (links,
backlinks, neighbourhood at every depth and limit, problems) must be the same in both, on
both stores, at the service the front ends share, over MCP (stdio and HTTP) and GraphQL's
`memoryFile` with alice's token. alice's note names bob's notes every way a link can: an
explicit scope (resolves in the operator's graph), with a heading (missing-anchor there), an
ambiguous pair, a bare name (only in bob's folder), a kind prefix. bob's notes link to what
alice reaches (her note, a shared note, a workflow, a missing target), so a walk that passed
through them, or a filter after the walk, would show.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.mcp.tools import graph
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from brain.store.visibility import EVERYTHING, Reach
from tests.api.live import LiveServer, live_server
from tests.conftest import STORES, open_neo4j
from tests.mcp.conftest import http_session, stdio_session
from tests.mcp.test_clients import ready
from tests.tool.conftest import write

ALICE = (
    "---\ndescription: Alice's plan.\ntype: project\n---\n\n# Plan\n\n"
    "See [[bob/zebra-secret]], [[bob/zebra-secret#Vault]], [[bob/twin]], [[zebra-secret]],\n"
    "[[memory:bob/zebra-secret]], [[bob/Zebra-Secret.md|label]], [[bob/nothing-here]],\n"
    "[[common]], [[workflow:release]] and [[missing-for-both]]. Walrus.\n"
)
BOB_PRIVATE = {
    "memory/bob/zebra-secret.md": "---\ndescription: Zebra.\n---\n# Vault\n[[alice/plan]] [[common]]\n",
    "memory/bob/twin.md": "twin one [[workflow:release]] [[missing-for-both]]\n",
    "memory/bob/Twin.md": "twin two [[common]]\n",
}
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


def build(root: Path, private: bool) -> Path:
    write(root, "agents/alice.md", "---\ndescription: A.\nmemory: true\n---\n")
    write(root, "agents/bob.md", "---\ndescription: B.\nmemory: true\n---\n")
    write(root, "memory/bob/kept.md", "bob's visible-to-nobody note [[common]]\n")  # bob has a folder in both
    write(root, "memory/alice/plan.md", ALICE)
    write(root, "memory/shared/common.md", "---\ndescription: Common.\n---\nshared [[alice/plan]]\n")
    write(root, "workflows/release.yaml", "title: Release\n")
    if private:
        for rel, text in BOB_PRIVATE.items():
            write(root, rel, text)
    return root


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    return build(tmp_path / "with", True), build(tmp_path / "without", False)


def service_answers(brain: Brain) -> dict[str, Any]:
    view = graph.AgentView(brain, "alice")
    out: dict[str, Any] = {
        "links": graph.links(view, "/memories/plan.md"),
        "backlinks": graph.backlinks(view, "/memories/plan.md"),
        "shared-backlinks": graph.backlinks(view, "/memories/shared/common.md"),
        "problems": graph.problems(view),
        "note-problems": [p.message for p in brain.problems(["memory/alice/plan.md"], view.reach)],
    }
    for start in ("/memories/plan.md", "/memories/shared/common.md"):
        for depth in (1, 2, 3):
            for limit in (2, 4, 6, 50):
                out[f"hood {start} {depth} {limit}"] = graph.neighborhood(view, start, depth, limit)
    return out


def test_the_service_answers_the_same_whether_the_private_notes_exist(
    pair: tuple[Path, Path], store_factory: Callable[[], GraphStore],
) -> None:
    answers = []
    for root in pair:
        brain = Brain(root, store_factory())
        brain.sync()
        answers.append(service_answers(brain))
        # the operator's graph does have the private notes and the explicit link into them
        links = brain.store.links_from(["memory:alice/plan"])["memory:alice/plan"]
        assert ("memory:bob/zebra-secret" in {lk.target_id for lk in links}) is (root == pair[0])
    with_private, without = answers
    for key in without:
        assert with_private[key] == without[key], key
    text = json.dumps(without)
    assert "unresolved:bob/zebra-secret" in text  # the explicit link shows as a missing note's
    assert "another agent's folder" not in json.dumps(with_private)  # no candidate is named


def test_a_walk_does_not_pass_through_another_agents_note(
    pair: tuple[Path, Path], store_factory: Callable[[], GraphStore],
) -> None:
    """bob's twin links to a workflow alice reaches only through it: at depth 3 from the shared
    note, an unfiltered walk reaches it via bob's notes and leaves a trace in the limit."""
    brain = Brain(pair[0], store_factory())
    brain.sync()
    view = graph.AgentView(brain, "alice")
    found = graph.neighborhood(view, "/memories/shared/common.md", 3, 200)
    ids = {n["id"] for n in found["nodes"]}
    assert not any(i.startswith("memory:bob/") for i in ids)
    assert {e["source"] for e in found["edges"]} | {e["target"] for e in found["edges"]} <= ids


async def mcp_answers(open_session: Any) -> dict[str, Any]:
    calls = [
        ("memory_links", {"path": "/memories/plan.md"}),
        ("memory_backlinks", {"path": "/memories/shared/common.md"}),
        ("memory_problems", {}),
        *[("memory_neighborhood", {"path": "/memories/plan.md", "depth": d, "limit": n})
          for d in (1, 2, 3) for n in (3, 50)],
    ]
    out: dict[str, Any] = {}
    async with open_session() as session:
        await ready(session)  # (was 300 calls back to back: busy work beside the first read)
        for name, args in calls:
            ok, text, data = await session.tool(name, args)
            assert ok, text
            out[f"{name} {args}"] = (text, data)
    return out


async def test_mcp_over_stdio_answers_the_same(pair: tuple[Path, Path]) -> None:
    answers = [await mcp_answers(lambda root=root: stdio_session(root, "alice")) for root in pair]
    assert answers[0] == answers[1]


def _tokens(tmp_path: Path) -> TokenRegistry:
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS), encoding="utf-8")
    return TokenRegistry(tokens_file=tokens_file)


MEMORY_FILE = """{ memoryFile(scope: "alice", file: "plan.md") {
  problems { code message fix line column candidates target } } }"""


# Every way from a search hit to another node: its links' targets and candidates, its
# backlinks' sources, its problems, and on through the targets' own links and backlinks.
NODE = (
    "__typename ... on Memory { id scope name body } ... on Unresolved { id target } "
    "... on Workflow { id }"
)
LINK = f"text status targetId source {{ id }} target {{ {NODE} }} candidates {{ {NODE} }}"
SEARCH = f"""{{ search(query: "walrus", mode: KEYWORD) {{ nodes {{ id path scope memory {{
  links {{ {LINK} target {{ ... on Memory {{ links {{ {LINK} }} backlinks {{ {LINK} }} }}
                            ... on Workflow {{ backlinks {{ {LINK} }} }}
                            ... on Unresolved {{ wantedBy {{ {LINK} }} }} }} }}
  backlinks {{ {LINK} }}
  problems {{ code message fix line column candidates target }}
}} }} }} }}"""


async def served_answers(live: LiveServer) -> dict[str, Any]:
    """What alice gets from one served workspace: MCP over HTTP, `memoryFile`'s problems and
    the search hits' every way on (the GraphQL bodies whole: each test checks their errors)."""
    alice = {"Authorization": "Bearer alice-token"}
    async with httpx.AsyncClient(timeout=60, headers=alice) as client:
        memory_file = (await client.post(live.graphql, json={"query": MEMORY_FILE})).json()
        search = (await client.post(live.graphql, json={"query": SEARCH})).json()
    mcp = await mcp_answers(lambda: http_session(live.base, "alice-token"))
    return {"mcp": mcp, "memory_file": memory_file, "search": search}


@pytest.fixture(scope="module", params=STORES)
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The served answers of the pair (with bob's private notes, then without), a store: one
    server a workspace for the three front ends' questions, which only read (was one a
    question: six first ingests a store). One server at a time: a Neo4j store is one
    database, cleared for each."""
    folder = tmp_path_factory.mktemp("reach")
    answers = []
    for root in (build(folder / "with", True), build(folder / "without", False)):
        store: GraphStore = (MemoryStore() if request.param == "memory"
                             else open_neo4j(request.getfixturevalue("neo4j_login")))
        try:
            with live_server(root, store, tokens=_tokens(folder)) as live:
                answers.append(asyncio.run(served_answers(live)))
        finally:
            store.close()
    return answers


def test_mcp_over_http_answers_the_same(served: list[dict[str, Any]]) -> None:
    assert served[0]["mcp"] == served[1]["mcp"]


def test_graphql_memory_file_problems_are_the_same_for_an_agent(served: list[dict[str, Any]]) -> None:
    answers = []
    for body in (s["memory_file"] for s in served):
        assert "errors" not in body, body
        answers.append(body["data"]["memoryFile"]["problems"])
    assert answers[0] == answers[1]
    assert {p["code"] for p in answers[0]} == {"broken-link"}


def test_graphql_search_hits_lead_nowhere_private(served: list[dict[str, Any]]) -> None:
    answers = []
    for body in (s["search"] for s in served):
        assert "errors" not in body, body
        answers.append(body["data"])
    assert answers[0] == answers[1]
    assert [n["id"] for n in answers[0]["search"]["nodes"]] == ["memory:alice/plan"]
    assert '"scope": "bob"' not in json.dumps(answers[0])  # no note of bob's is reached


def test_what_an_agent_reaches_by_node_id() -> None:
    """Other agents' notes, daily notes and files are out of reach; notes nobody owns (shared,
    lab's `project:<p>` notes, skills, tools) and everything that is not a note are in it."""
    alice = Reach.of_agent("alice")
    hidden = ["memory:bob/x", "daily-note:bob/2025-01-02", "file:bob/data/a.csv"]
    seen = [
        "memory:alice/x", "memory:shared/x", "memory:project:atlas/plan", "skill:skills/deploy",
        "agent:bob", "workflow:release", "unresolved:bob/x", "daily-note:alice/2025-01-02",
    ]
    assert [i for i in hidden + seen if not alice.sees(i)] == hidden
    assert all(EVERYTHING.sees(i) for i in hidden)
