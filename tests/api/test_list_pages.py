"""The lists of the GraphQL API that grow with what is on disk are paged, on both stores:
a note's headings and block ids, the memory scopes, a maintenance report's findings
(brain/api/graph/paging/lists.py). Before, each answered whole, however long (a 1 MiB note
holds tens of thousands of headings)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from brain.store.base import GraphStore
from tests.api.live import live_server

FM = "---\ndescription: {}\ntype: project\n---\n"


def gql(http: httpx.Client, query: str, variables: dict[str, object] | None = None) -> Any:
    body = http.post("/graphql", json={"query": query, "variables": variables or {}}).json()
    assert "errors" not in body, body
    return body["data"]


def pages(fetch: Callable[[str | None], list[dict[str, Any]]], cursor: str = "cursor") -> list[list[Any]]:
    out, after = [], None
    while True:
        page = fetch(after)
        out.append(page)
        if len(page) < 100:
            return out
        after = page[-1][cursor]


def test_headings_blocks_scopes_and_findings_are_paged(tmp_path: Path, store: GraphStore) -> None:
    root = tmp_path / "ws"
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True)
    body = "".join(f"## Part {n}\n\nA paragraph. ^b{n}\n\n" for n in range(250))
    (shared / "long.md").write_text(FM.format("long") + body)
    (root / "agents").mkdir()
    for n in range(105):  # 105 agents with memory: 106 scopes with shared
        (root / "agents" / f"a{n:03}.md").write_text(f"---\ndescription: a{n}\nmemory: true\n---\n")
    for n in range(130):  # each without a type: a `missing-type` finding (and nothing alike)
        words = " ".join(hashlib.sha256(f"{n}.{i}".encode()).hexdigest()[:10] for i in range(6))
        (shared / f"untyped{n:03}.md").write_text(f"---\ndescription: {words}\n---\n{words}\n")
    note = 'memory(scope: "shared", name: "long")'
    with live_server(root, store) as live, httpx.Client(base_url=live.base, timeout=60) as http:
        headings = pages(lambda after: gql(
            http, f"query($a: String) {{ {note} {{ headings(after: $a) {{ text line cursor }} }} }}",
            {"a": after})["memory"]["headings"])
        blocks = pages(lambda after: gql(
            http, f"query($a: String) {{ {note} {{ blocks(after: $a) {{ id cursor }} }} }}",
            {"a": after})["memory"]["blocks"])
        counts = gql(http, f"{{ {note} {{ headingCount blockCount }} }}")["memory"]
        scopes = pages(lambda after: gql(
            http, "query($a: String) { memoryScopes(after: $a) { scope } }", {"a": after})["memoryScopes"],
            cursor="scope")
        findings = pages(lambda after: gql(
            http, "query($a: String) { maintenanceReport(scope: \"shared\") { findingCount "
            "findings(after: $a) { code path cursor } } }", {"a": after})["maintenanceReport"]["findings"])
        total = gql(http, '{ maintenanceReport(scope: "shared") { findingCount } }')["maintenanceReport"]
        bad = http.post("/graphql", json={"query": f'{{ {note} {{ headings(after: "bm90IGEgY3Vyc29y") '
                                                   "{ line } } }"}).json()
    assert [len(p) for p in headings] == [100, 100, 50]
    assert [h["text"] for p in headings for h in p] == [f"Part {n}" for n in range(250)]
    assert [len(p) for p in blocks] == [100, 100, 50]
    assert [b["id"] for p in blocks for b in p] == [f"b{n}" for n in range(250)]
    assert counts == {"headingCount": 250, "blockCount": 250}
    assert [len(p) for p in scopes] == [100, 6]
    listed = [s["scope"] for p in scopes for s in p]
    assert listed == ["shared", *(f"a{n:03}" for n in range(105))]
    cursors = [f["cursor"] for p in findings for f in p]
    assert len(cursors) == len(set(cursors)) == total["findingCount"] >= 130
    assert len(findings[0]) == 100
    assert "not a cursor of this list" in bad["errors"][0]["message"]
