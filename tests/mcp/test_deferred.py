"""`/mcp` of `brain serve` loads the MCP SDK off the path to ready (brain/mcp/transports/deferred.py):
not before the graph is ready, unless a request for it comes first, which is then answered
by the real SDK as if it had been there from the start."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import anyio
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from brain.mcp.transports.deferred import MCP_PATH, READY_POLL_S, DeferredMcp
from brain.mcp.transports.http import McpEndpoint
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from tests.api.live import GatedStore, LiveServer, live_server, wait_for
from tests.mcp.conftest import http_session


def deferred(live: LiveServer) -> DeferredMcp:
    app = live.server.config.app
    assert isinstance(app, Starlette)
    (route,) = [r for r in app.routes if isinstance(r, Route) and r.path == MCP_PATH]
    assert isinstance(route.endpoint, DeferredMcp)
    return route.endpoint


async def test_loaded_once_ready_and_then_answers(workspace: Path) -> None:
    store = GatedStore()
    with live_server(workspace, store, wait_ready=False) as live:
        mcp = deferred(live)
        watcher = live.services.watcher
        assert watcher is not None
        wait_for(lambda: watcher.running, "the first ingest to start")
        assert not live.brain.ready
        assert mcp.endpoint is None  # not while the graph is read
        store.gate.set()
        wait_for(lambda: live.brain.ready, "the first ingest")
        wait_for(lambda: mcp.endpoint is not None, "the MCP endpoint")
        async with http_session(live.base, None, agent="writer") as session:
            ok, text = await session.memory(command="view", path="/memories")
            assert ok
            assert "/memories/house-style.md" in text


async def test_a_request_before_ready_loads_it_at_once(workspace: Path) -> None:
    store = GatedStore()
    try:
        with live_server(workspace, store, wait_ready=False) as live:
            mcp = deferred(live)
            assert not live.brain.ready
            async with http_session(live.base, None, agent="writer") as session:  # initializes
                assert mcp.endpoint is not None
                assert not live.brain.ready  # answered while the graph is still being read
                tools = {tool.name for tool in (await session.client.list_tools()).tools}
                assert "memory" in tools
            store.gate.set()
    finally:
        store.gate.set()


async def test_not_while_a_snapshot_is_checked(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    first = Brain(workspace, cache=True)
    first.sync()
    first.close()
    (workspace / "memory" / "writer" / "since.md").write_text("---\ndescription: New\n---\nx\n")
    store = GatedStore()  # the rescan has a note to write: it waits for the gate
    try:
        with live_server(workspace, store, cache=True) as live:  # ready: from the snapshot
            mcp = deferred(live)
            assert live.brain.snapshots is not None
            assert live.brain.snapshots.loaded
            assert live.brain.checking
            time.sleep(5 * READY_POLL_S)
            assert mcp.endpoint is None
            store.gate.set()
            wait_for(lambda: mcp.endpoint is not None, "the MCP endpoint after the check")
            assert not live.brain.checking
    finally:
        store.gate.set()


def test_outside_a_lifespan_it_says_so(workspace: Path) -> None:
    with live_server(workspace, MemoryStore()) as live:
        mcp = DeferredMcp(live.services)

        async def call() -> None:
            await mcp({"type": "http"}, None, None)  # type: ignore[arg-type]

        with pytest.raises(RuntimeError, match="lifespan"):
            anyio.run(call)


class SlowSdk(DeferredMcp):
    """Its SDK import blocks until the test lets it go: a busy machine's import, held."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.importing = threading.Event()
        self.release = threading.Event()
        self.thread: threading.Thread | None = None

    def _load(self) -> McpEndpoint:
        self.thread = threading.current_thread()
        self.importing.set()
        self.release.wait(20)
        raise RuntimeError("released after the stop")


def test_a_stop_does_not_wait_for_the_sdk_import(workspace: Path) -> None:
    """A server stopped while the SDK is still being imported (seconds on a busy machine) stops
    at once: the import's thread is a daemon, abandoned, and the lifespan does not wait."""
    with live_server(workspace, MemoryStore()) as live:
        mcp = SlowSdk(live.services)

        async def start_and_stop() -> None:
            async with mcp.running():
                assert mcp._wanted is not None
                mcp._wanted.set()
                await anyio.to_thread.run_sync(mcp.importing.wait, 30)

        try:
            anyio.run(start_and_stop)
            assert not mcp.release.is_set()  # it left while the import was still held
            assert mcp.thread is not None
            assert mcp.thread.daemon, "a non-daemon thread would hold the process's exit"
            assert mcp.failure == "the server is stopping"
        finally:
            mcp.release.set()
