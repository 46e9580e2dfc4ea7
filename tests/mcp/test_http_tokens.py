"""`/mcp` of `brain serve` under the same bearer tokens as GraphQL and REST.

An agent's token is that agent; another agent's notes do not exist for it (not in the
tool, not as resources, not in notifications); an admin names the agent with `?agent=`.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.api.live import LiveServer
from tests.mcp.conftest import http_session


def test_no_token_or_a_wrong_one_is_turned_away(server: LiveServer) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert httpx.post(f"{server.base}/mcp", json=hello).status_code == 401
    wrong = httpx.post(f"{server.base}/mcp", json=hello, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert "not valid" in wrong.json()["errors"][0]["message"]


async def test_a_token_for_another_agent_is_forbidden(server: LiveServer, workspace: Path) -> None:
    async with http_session(server.base, "reviewer-token", agent="writer") as session:
        ok, text = await session.memory(command="view", path="/memories")
        assert not ok
        assert text.startswith("Refused: these credentials belong to agent `reviewer`")
        ok, text = await session.memory(command="create", path="/memories/x.md", file_text="x\n")
        assert not ok
        assert "belong to agent `reviewer`" in text
        ok, text, _ = await session.tool("memory_links", {"path": "/memories/house-style.md"})
        assert not ok
        assert "belong to agent `reviewer`" in text
        with pytest.raises(MCPError, match="belong to agent `reviewer`"):
            await session.client.list_resources()
    assert not (workspace / "memory" / "writer" / "x.md").exists()


async def test_an_agent_token_reaches_only_its_own_and_shared_notes(server: LiveServer) -> None:
    async with http_session(server.base, "reviewer-token") as session:
        ok, text = await session.memory(command="view", path="/memories")
        assert ok
        assert "/memories/private-notes.md" in text
        assert "house-style" not in text
        listed = {str(r.uri) for r in (await session.client.list_resources()).resources}
        assert listed == {"memory://reviewer/private-notes.md", "memory://shared/prefers-short-answers.md"}
        with pytest.raises(MCPError, match="no memory scope `writer`"):
            await session.client.read_resource("memory://writer/house-style.md")


async def test_an_admin_names_the_agent(server: LiveServer) -> None:
    async with http_session(server.base, "admin-token", agent="writer") as session:
        ok, text = await session.memory(command="view", path="/memories/house-style.md")
        assert ok
        assert text.startswith("/memories/house-style.md (10 lines):")
    async with http_session(server.base, "admin-token") as session:
        ok, text = await session.memory(command="view", path="/memories")
        assert not ok
        assert text.startswith("Refused: the memory tool only works for a named agent")


async def test_notifications_follow_visibility(server: LiveServer) -> None:
    """Writer's private change reaches writer's session, not reviewer's; a shared one reaches both."""
    async with (
        http_session(server.base, "writer-token") as writer,
        http_session(server.base, "reviewer-token") as reviewer,
    ):
        await writer.client.subscribe_resource("memory://shared/prefers-short-answers.md")
        await reviewer.client.subscribe_resource("memory://shared/prefers-short-answers.md")
        ok, _ = await writer.memory(command="create", path="/memories/private.md", file_text="Mine.\n")
        assert ok
        await writer.wait_for(
            lambda n: isinstance(n, types.ResourceListChangedNotification), "writer's list_changed"
        )
        ok, _ = await writer.memory(
            command="str_replace", path="/memories/shared/prefers-short-answers.md",
            old_str="Conclusion first.", new_str="Conclusion first, always.",
        )
        assert ok
        uri = "memory://shared/prefers-short-answers.md"
        for session in (writer, reviewer):
            await session.wait_for(
                lambda n: isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri,
                "shared note updated",
            )
        # No fixed wait: changes are dispatched one after the other (brain/mcp/notify.py), so
        # had the private note reached reviewer, it would have come before this later update.
        assert not any(isinstance(n, types.ResourceListChangedNotification) for n in reviewer.notes)
