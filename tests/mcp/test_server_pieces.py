"""The MCP server's seams, through the official client on an in-memory transport.

The search tool's place (listed only when a search service exists, filtered to what the
agent may see) and `brain mcp`'s command line, which must fail clearly before it serves.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

from brain.mcp.caller import stdio_caller
from brain.mcp.server import BrainMcp
from brain.service.brain import Brain

HITS = [
    {"path": "memory/writer/house-style.md", "score": 0.9, "snippet": "Headline first."},
    {"path": "memory/reviewer/private-notes.md", "score": 0.8, "snippet": "secret plan"},
    {"path": "memory/shared/prefers-short-answers.md", "score": 0.5, "snippet": "Conclusion first."},
    {"id": "workflow:release-train", "score": 0.4},
]


def search_of(calls: list[tuple[str, tuple[str, ...], int]]) -> Any:
    def search(query: str, scopes: Sequence[str], limit: int) -> list[dict[str, Any]]:
        calls.append((query, tuple(scopes), limit))
        return HITS  # a search that ignores scopes: the server must still filter
    return search


async def test_brain_search_finds_own_and_shared_notes_only(workspace: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    server = BrainMcp(brain, lambda _ctx: stdio_caller("writer"))
    async with Client(server.server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "memory_search" in names
        result = await client.call_tool("memory_search", {"query": "headline", "limit": 5})
        assert not result.is_error
        paths = [h["path"] for h in result.structured_content["hits"]]
        assert "/memories/house-style.md" in paths
        assert all(p.startswith("/memories/") for p in paths)  # never another agent's note
        too_long = await client.call_tool("memory_search", {"query": "x" * 600})
        assert too_long.is_error
        assert "characters long" in too_long.content[0].text
    brain.close()


async def test_search_results_are_filtered_to_the_agent(workspace: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    calls: list[tuple[str, tuple[str, ...], int]] = []
    with_search = BrainMcp(brain, lambda _ctx: stdio_caller("writer"), search=search_of(calls))
    async with Client(with_search.server) as client:
        result = await client.call_tool("memory_search", {"query": "headline", "limit": 5})
        assert not result.is_error
        hits = result.structured_content["hits"]
        assert [h.get("path", h.get("id")) for h in hits] == [
            "/memories/house-style.md", "/memories/shared/prefers-short-answers.md",
            "workflow:release-train",
        ]
        refused = await client.call_tool("memory_search", {"query": " "})
        assert refused.is_error
        assert "`query` must be a non-empty string" in refused.content[0].text
    assert calls == [("headline", ("writer", "shared"), 5)]
    brain.close()


def test_brain_mcp_refuses_an_unknown_agent_before_serving(workspace: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "brain", "mcp", str(workspace), "--agent", "wrter"],
        capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # stdout belongs to JSON-RPC
    assert "there is no agent `wrter`" in done.stderr
    assert '"agent": "writer"' in done.stderr


def test_brain_mcp_needs_a_workspace_with_memory(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "brain", "mcp", str(tmp_path), "--agent", "writer"],
        capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "has no memory/ folder" in done.stderr


async def test_listen_streams_carry_only_what_the_agent_may_see(workspace: Path) -> None:
    """The 2026-07-28 protocol: `subscriptions/listen`, one agent's events only."""
    brain = Brain(workspace)
    brain.sync()
    writer = BrainMcp(brain, lambda _ctx: stdio_caller("writer"))
    reviewer = BrainMcp(brain, lambda _ctx: stdio_caller("reviewer"))
    async with Client(writer.server) as w, Client(reviewer.server) as r:  # noqa: SIM117 - listen needs w, r
        async with (
            w.listen(resources_list_changed=True, resource_subscriptions=[
                "memory://writer/house-style.md", "memory://reviewer/private-notes.md",
            ]) as w_events,
            r.listen(resources_list_changed=True, resource_subscriptions=[
                "memory://writer/house-style.md", "memory://shared/prefers-short-answers.md",
            ]) as r_events,
        ):
            assert w_events.honored.resource_subscriptions == ["memory://writer/house-style.md"]
            assert r_events.honored.resource_subscriptions == ["memory://shared/prefers-short-answers.md"]
            await w.call_tool("memory", {
                "command": "str_replace", "path": "/memories/house-style.md",
                "old_str": "- Headline first.", "new_str": "- Headline first, always.",
            })
            await w.call_tool("memory", {
                "command": "str_replace", "path": "/memories/shared/prefers-short-answers.md",
                "old_str": "Conclusion first.", "new_str": "Conclusion first, always.",
            })
            with anyio.fail_after(10):
                first = await w_events.__anext__()
                second = await r_events.__anext__()
    assert first == ResourceUpdated("memory://writer/house-style.md")
    # the reviewer asked for the writer's note too, but hears only of the shared one
    assert second == ResourceUpdated("memory://shared/prefers-short-answers.md")
    assert not isinstance(second, ResourcesListChanged)
    brain.close()
