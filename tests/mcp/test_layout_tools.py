"""The seeds' verbs as MCP tools: `brain mcp` over stdio (as a desktop client starts it) and
`/mcp` of `brain serve` under bearer tokens, in space and mindlink workspaces."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.api.http.auth import TokenRegistry
from brain.store.memory.store import MemoryStore
from tests.api.live import LiveServer, live_server
from tests.api.test_layout_verbs import TOKENS, build_mindlink
from tests.mcp.conftest import http_session, stdio_session
from tests.tool.test_mindlink_verbs import FEEDBACK
from tests.tool.test_space_verbs import PLAN, PNG
from tests.tool.test_space_verbs import build as build_space


async def test_space_tools_over_stdio(tmp_path: Path) -> None:
    root = build_space(tmp_path / "ws")
    async with stdio_session(root, agent="alice") as session:
        names = [t.name for t in (await session.client.list_tools()).tools]
        assert names == ["read", "write", "delete"]
        ok, text, data = await session.tool("read", {"path": "~/memory/"})
        assert ok
        assert text.splitlines()[1:] == [
            f"  drafts/  {len(PLAN)} bytes", "  latin1.txt  4 bytes", f"  photo.png  {len(PNG)} bytes",
        ]
        ok, text, data = await session.tool("read", {"path": "~/memory/photo.png"})
        assert (ok, data["binary"], data["mediaType"]) == (True, True, "image/png")
        assert text == f"~/memory/photo.png: binary, {len(PNG)} bytes, image/png"
        ok, text, _ = await session.tool("write", {"path": "~/memory/a/b/c.md", "content": "deep\n"})
        assert (ok, text) == (True, "Wrote ~/memory/a/b/c.md (5 bytes, created)")
        assert (root / "alice/memory/a/b/c.md").read_text() == "deep\n"
        too_deep = "~/memory/" + "x/" * 16 + "y.md"
        ok, text, data = await session.tool("write", {"path": too_deep, "content": "x"})
        assert not ok
        assert data["refusal"]["code"] == "path-too-deep"
        assert text.startswith("Refused: the path `~/memory/x/x/")
        assert "Try: " in text
        ok, text, _ = await session.tool("write", {"path": "~/memory/a", "delete": True})
        assert (ok, text) == (True, "Deleted ~/memory/a/ (folder, 1 file)")
        assert not (root / "alice/memory/a").exists()
        ok, text, _ = await session.tool("memory", {"command": "view", "path": "/memories"})
        assert not ok
        assert "there is no tool `memory`; the tools are read, write, delete" in text
    history = [json.loads(line) for line in (root / ".brain/history.jsonl").read_text().splitlines()]
    assert [(r["command"], r["via"], r["path"]) for r in history] == [
        ("write", "mcp", "alice/memory/a/b/c.md"), ("delete", "mcp", "alice/memory/a/b/c.md"),
    ]


async def test_mindlink_tools_over_stdio(tmp_path: Path) -> None:
    root = build_mindlink(tmp_path / "ws")
    async with stdio_session(root, agent="alice") as session:
        names = [t.name for t in (await session.client.list_tools()).tools]
        assert names == ["memory_search", "memory_get", "memory_write", "memory_delete"]
        entry = {"path": "entries/no-emoji.md", "content": FEEDBACK}
        ok, text, data = await session.tool("memory_write", entry)
        assert (ok, data["kind"], data["created"]) == (True, "entry", True)
        no_why = FEEDBACK.replace("Why: the changelog renders them as boxes.\n", "")
        ok, text, data = await session.tool("memory_write", {"path": "entries/other.md", "content": no_why})
        assert not ok
        assert "feedback-incomplete" in text
        ok, text, _ = await session.tool("memory_get", {"path": "entries/no-emoji.md"})
        assert (ok, text) == (True, FEEDBACK)
        ok, text, data = await session.tool("memory_search", {"query": "answers in three sentences"})
        assert ok
        assert [h["path"] for h in data["hits"]][:1] == ["entries/prefers-short-answers.md"]
        assert all("bobs" not in h["path"] for h in data["hits"])
        assert text.startswith("entries/prefers-short-answers.md (")
        ok, text, _ = await session.tool("memory_delete", {"path": "entries/no-emoji.md"})
        assert ok
        ok, text, data = await session.tool("memory_get", {"path": "entries/bobs.md"})
        assert not ok
        assert data["refusal"]["code"] == "not-found"
    assert not (root / "alice/memory/entries/no-emoji.md").exists()


@pytest.fixture
def space_server(tmp_path: Path) -> Iterator[LiveServer]:
    root = build_space(tmp_path / "ws")
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS))
    with live_server(root, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens_file)) as live:
        yield live


async def test_an_agent_token_reaches_only_its_own_tree(space_server: LiveServer) -> None:
    root = space_server.brain.root
    async with http_session(space_server.base, "alice-token") as session:
        ok, text, _ = await session.tool("read", {"path": "~/memory/drafts/plan.md"})
        assert (ok, text) == (True, PLAN)
        ok, text, _ = await session.tool("write", {"path": "~/memory/from-http.md", "content": "hi\n"})
        assert ok
    async with http_session(space_server.base, "alice-token", agent="bob") as session:
        ok, text, _ = await session.tool("read", {"path": "~/memory/secret-plans.md"})
        assert not ok
        assert "belong to agent `alice`" in text
        ok, text, _ = await session.tool("delete", {"path": "~/memory/secret-plans.md"})
        assert not ok
    async with http_session(space_server.base, "admin-token", agent="bob") as session:
        ok, text, _ = await session.tool("read", {"path": "~/memory/secret-plans.md"})
        assert (ok, text) == (True, "bob's own\n")
    assert (root / "alice/memory/from-http.md").read_text() == "hi\n"
    assert (root / "bob/memory/secret-plans.md").read_text() == "bob's own\n"
