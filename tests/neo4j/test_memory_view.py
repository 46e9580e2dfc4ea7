"""The memory document on Neo4j in one read (brain/store/neo4j/reads/views.py): the same answer as
the embedded store's, and no further read for its links, backlinks and their nodes.

Before, a random note's memory document took three rounds of reads (the note; its links, its
backlinks and its owner; the nodes they name), each a round trip to Neo4j."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore
from tests.api.live import live_server
from tests.contract.helpers import Workspace, note, without_age

DOCUMENT = (Path(__file__).resolve().parents[2] / "graphql" / "memory.graphql").read_text(encoding="utf-8")
PAGED = """query($path: String, $after: String) { memory(path: $path) {
  backlinks(first: 7, after: $after) { line column source { id path description } } } }"""


def workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("workflows/ship.md", "---\ntitle: Ship it\n---\n")
    ws.write("memory/bot/hub.md", note(
        "the hub", "[[a1]] [[workflow:ship]] [[nowhere]] [[dup]] and [[agent:bot]]\n\n[[a2]] again [[a1]]"))
    ws.write("memory/bot/dup.md", note("dup here"))
    ws.write("memory/shared/dup.md", note("dup there"))
    for n in range(1, 13):  # sources sort apart from their lines: a page is cut by (source, line, column)
        ws.write(f"memory/bot/a{n}.md", note(f"a{n}", "\n" * (13 - n) + "[[hub]] and [[hub]]"))
    ws.write("memory/shared/z.md", note("z", "see [[bot/hub]]"))
    return ws


def answers(store: Any, root: Path, reads: list[int]) -> list[Any]:
    """The memory document on a few notes, and a page of other size (not the one primed)."""
    out: list[Any] = []
    with live_server(root, store, watch=False) as live, httpx.Client(timeout=60) as http:
        def ask(query: str, variables: dict[str, Any]) -> Any:
            body = http.post(live.graphql, json={"query": query, "variables": variables}).json()
            assert "errors" not in body, body
            return body["data"]

        ask(DOCUMENT, {"path": "memory/bot/a3.md"})  # the agent node and the like, built once
        reads.clear()
        for path in ("memory/bot/hub.md", "memory/bot/a1.md", "memory/shared/z.md", "memory/no/such.md"):
            out.append(ask(DOCUMENT, {"path": path}))
        out.append(ask(PAGED, {"path": "memory/bot/hub.md"}))
    return out


def test_one_read_the_same_answer(tmp_path: Path, neo4j_store: Neo4jStore) -> None:
    root = tmp_path / "ws"
    workspace(root)
    expected = answers(MemoryStore(), root, [])
    reads: list[int] = []
    read_database = neo4j_store._read_database

    def counted(query: str, params: dict[str, Any]) -> Any:
        reads.append(1)
        return read_database(query, params)

    neo4j_store._read_database = counted  # type: ignore[method-assign]
    got = answers(neo4j_store, root, reads)
    documents = len(reads)
    assert without_age(got) == without_age(expected)
    hub = got[0]["memory"]
    assert (len(hub["backlinks"]), len(hub["links"])) == (25, 7)  # the case is what it says
    first = [link["source"]["id"] for link in hub["backlinks"][:3]]
    assert first == ["memory:bot/a1", "memory:bot/a1", "memory:bot/a10"]
    # Four memory documents, one read each, plus the ambiguous link's candidates (no link's
    # target names them) and the page of 7 (not the first page the note came with).
    assert documents <= 6, documents
