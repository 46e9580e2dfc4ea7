"""Fixtures of the MCP tests: a small workspace, and real MCP clients over stdio and HTTP.

The stdio client starts `python -m brain mcp` as a desktop client would; the HTTP client
talks to the real app under uvicorn (tests.api.live) with a tokens file: `writer-token`
is agent writer, `reviewer-token` agent reviewer, `admin-token` an admin.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from brain.api.http.auth import TokenRegistry
from brain.store.memory.store import MemoryStore
from tests.api.live import LiveServer, live_server
from tests.tool.conftest import make_workspace, write

LINKS = (
    "---\ndescription: Where the style rules come from.\ntype: reference\n---\n\n"
    "See [[house-style]] and [[prefers-short-answers]], and [[private-notes]], and [[nowhere]].\n"
)
TOKENS = {"writer-token": "writer", "reviewer-token": "reviewer", "admin-token": "*"}


def build_workspace(root: Path) -> Path:
    make_workspace(root)
    write(root, "memory/writer/sources.md", LINKS)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return build_workspace(tmp_path / "ws")


@dataclass
class Session:
    """A connected, initialized MCP client session and the notifications it received."""

    client: ClientSession
    notes: list[Any] = field(default_factory=list)

    async def tool(self, name: str, args: dict[str, Any]) -> tuple[bool, str, Any]:
        result = await self.client.call_tool(name, args)
        text = "".join(getattr(block, "text", "") for block in result.content)
        return not result.is_error, text, result.structured_content

    async def memory(self, **args: Any) -> tuple[bool, str]:
        ok, text, _ = await self.tool("memory", args)
        return ok, text

    async def wait_for(self, predicate: Any, what: str, timeout: float = 15.0) -> Any:
        with anyio.fail_after(timeout):
            while True:
                for note in self.notes:
                    if predicate(note):
                        return note
                await anyio.sleep(0.05)
        raise AssertionError(f"no notification: {what}")  # pragma: no cover


@asynccontextmanager
async def connected(read: Any, write_: Any) -> AsyncIterator[Session]:
    notes: list[Any] = []

    async def handler(message: Any) -> None:
        notes.append(message)

    async with ClientSession(read, write_, message_handler=handler) as client:
        await client.initialize()
        yield Session(client, notes)


@asynccontextmanager
async def stdio_session(root: Path, agent: str = "writer") -> AsyncIterator[Session]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brain", "mcp", str(root), "--agent", agent],
    )
    async with stdio_client(params) as (read, write_), connected(read, write_) as session:
        yield session


@asynccontextmanager
async def http_session(base: str, token: str | None, agent: str | None = None) -> AsyncIterator[Session]:
    url = f"{base}/mcp" + (f"?agent={agent}" if agent else "")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        streamable_http_client(url, http_client=http) as (read, write_),
        connected(read, write_) as session,
    ):
        yield session


@pytest.fixture
def server(workspace: Path, tmp_path: Path) -> Iterator[LiveServer]:
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS), encoding="utf-8")
    with live_server(
        workspace, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens_file),
        watcher_options={"debounce_ms": 50, "step_ms": 10},
    ) as live:
        yield live
