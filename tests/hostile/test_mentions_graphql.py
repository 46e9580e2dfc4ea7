"""`Memory.unlinkedMentions` and `Memory.related` over a real server, with an agent's token,
on both stores: the answer names only notes the agent may see."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx

from brain.api.http.auth import TokenRegistry
from brain.store.base import GraphStore
from tests.api.live import live_server
from tests.hostile.test_mentions_related import workspace

# An agent reaches a Memory through search (`memory` by path is the operator's).
QUERY = """query($after: String) { search(query: "schedules", mode: KEYWORD) { nodes { path memory {
  unlinkedMentions(after: $after) { line column text targetId candidates replacement oldStr newStr cursor }
  related(first: 3) { score terms memory { path } }
} } } }"""


async def test_graphql_mentions_and_related_for_an_agent(
    tmp_path: Path, store_factory: Callable[[], GraphStore],
) -> None:
    root = workspace(tmp_path / "ws")
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps({"alice-token": "alice"}), encoding="utf-8")
    with live_server(root, store_factory(), tokens=TokenRegistry(tokens_file=tokens_file)) as live:
        async with httpx.AsyncClient(timeout=60, headers={"Authorization": "Bearer alice-token"}) as client:
            body = (await client.post(live.graphql, json={"query": QUERY})).json()
            assert "errors" not in body, body
            [hit] = body["data"]["search"]["nodes"]
            assert hit["path"] == "memory/alice/tokio-runtime.md"
            note = hit["memory"]
            [mention] = note["unlinkedMentions"]
            after = {"query": QUERY, "variables": {"after": mention["cursor"]}}
            rest = (await client.post(live.graphql, json=after)).json()
    assert {k: v for k, v in mention.items() if k != "cursor"} == {
        "line": 4, "column": 24, "text": "Rust Async", "targetId": "memory:alice/rust-async",
        "candidates": [], "replacement": "[[rust-async|Rust Async]]",
        "oldStr": "Rust Async", "newStr": "[[rust-async|Rust Async]]",  # what the UI's Link writes
    }
    assert rest["data"]["search"]["nodes"][0]["memory"]["unlinkedMentions"] == []
    paths = sorted(r["memory"]["path"] for r in note["related"])
    assert paths == [
        "memory/alice/rust-async.md", "memory/shared/scheduler-guide.md", "memory/shared/weekly-tasks.md",
    ]


async def test_mcp_memory_related_for_an_agent(tmp_path: Path) -> None:
    from tests.mcp.conftest import stdio_session
    from tests.mcp.test_clients import ready

    root = workspace(tmp_path / "ws")
    async with stdio_session(root, "alice") as session:
        await ready(session)
        note = "/memories/tokio-runtime.md"
        ok, text, data = await session.tool("memory_related", {"path": note, "first": 3})
        refused, why, _ = await session.tool("memory_related", {"path": note, "first": 0})
    assert ok, text
    assert data["mentions"] == [{
        "line": 4, "column": 24, "text": "Rust Async", "target": "/memories/rust-async.md",
        "replacement": "[[rust-async|Rust Async]]", "candidates": [],
    }]
    assert sorted(r["path"] for r in data["related"]) == [
        "/memories/rust-async.md", "/memories/shared/scheduler-guide.md", "/memories/shared/weekly-tasks.md",
    ]
    assert "bob" not in text
    assert not refused
    assert "`first` must be a whole number from 1 to 50" in why
