"""`/mcp` of `brain serve`, with the MCP SDK loaded off the path to ready.

Importing the SDK (its pydantic models of two protocol versions) costs about a second of
CPU, more than any other import of `brain serve`, and only `/mcp` needs it. So the server
starts without it. Once the graph is ready and checked (the first ingest done, or the
snapshot loaded and its rescan over: the first queries after ready do not share the GIL
with the import), or at the first `/mcp` request if that comes sooner, a worker thread
imports it and builds the endpoint (brain/mcp/transports/http.py), whose session manager then runs in
the app's lifespan.
A request that arrives meanwhile waits for it; one whose SDK failed to load gets a 503
naming why. A stop while the SDK is still being imported does not wait for the import
(a second or more on a busy machine, which made an idle server slow to stop): the
worker thread is abandoned, and the process exits without it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from brain.api.graphql.context import Services
    from brain.mcp.transports.http import McpEndpoint

MCP_PATH = "/mcp"
READY_POLL_S = 0.05  # how often the lifespan looks whether the graph is ready yet
log = logging.getLogger("brain.mcp")


class DeferredMcp:
    """The `/mcp` route of one app; `running()` is entered by its lifespan."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.endpoint: McpEndpoint | None = None
        self.failure: str | None = None
        self._wanted: anyio.Event | None = None  # a request asked before the graph was ready
        self._loaded: anyio.Event | None = None  # the endpoint runs (or failed to load)
        self._stop: anyio.Event | None = None
        self._loading: anyio.CancelScope | None = None  # the SDK's import, until it is done

    def routes(self) -> list[BaseRoute]:
        return [Route(MCP_PATH, self, methods=["GET", "POST", "DELETE"])]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._loaded is None or self._wanted is None:
            raise RuntimeError("the MCP endpoint runs only inside the app's lifespan")
        self._wanted.set()
        await self._loaded.wait()
        if self.endpoint is None:
            answer = JSONResponse({"error": f"MCP is unavailable: {self.failure}"}, status_code=503)
            await answer(scope, receive, send)
            return
        await self.endpoint(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.endpoint, self.failure = None, None
        wanted, loaded, stop = anyio.Event(), anyio.Event(), anyio.Event()
        self._wanted, self._loaded, self._stop = wanted, loaded, stop
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._serve, wanted, loaded, stop)
            try:
                yield
            finally:
                stop.set()
                wanted.set()
                if self._loading is not None:
                    self._loading.cancel()

    async def _serve(self, wanted: anyio.Event, loaded: anyio.Event, stop: anyio.Event) -> None:
        brain = self.services.brain
        # Ready and checked (a start from the snapshot checks the files first): the import
        # holds the GIL for most of a second, and the first queries after ready come first.
        while not ((brain.ready and not brain.checking) or wanted.is_set()):
            with anyio.move_on_after(READY_POLL_S):
                await wanted.wait()
        if stop.is_set():
            loaded.set()
            return
        endpoint: McpEndpoint | None = None
        try:
            with anyio.CancelScope() as self._loading:
                endpoint = await self._load_in_daemon_thread()
        except Exception as exc:  # a broken SDK install costs /mcp, never the whole server
            log.error("brain serve: cannot start MCP at %s", MCP_PATH, exc_info=exc)
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            self._loading = None
        if endpoint is None:  # failed, or the server stopped while the SDK was imported
            self.failure = self.failure or "the server is stopping"
            loaded.set()
            return
        async with endpoint.running():
            self.endpoint = endpoint
            loaded.set()
            await stop.wait()
        self.endpoint = None

    async def _load_in_daemon_thread(self) -> McpEndpoint | None:
        """`_load` on a daemon thread of its own (None if cancelled first): anyio's worker
        threads are not daemons, so an abandoned import there still held the exit."""
        token = anyio.lowlevel.current_token()
        done = anyio.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["endpoint"] = self._load()
            except BaseException as exc:  # handed to the awaiting task
                box["error"] = exc
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                anyio.from_thread.run_sync(done.set, token=token)

        threading.Thread(target=work, name="brain-mcp-load", daemon=True).start()
        await done.wait()
        if "error" in box:
            raise box["error"]
        endpoint: McpEndpoint = box["endpoint"]
        return endpoint

    def _load(self) -> McpEndpoint:
        from brain.mcp.transports.http import McpEndpoint

        return McpEndpoint(self.services)
