"""Running the real app under uvicorn on a free loopback port, in a thread of the test process.

Several apps run in one test process, so one app's schema can be built (strawberry reads
pydantic's BaseModel while it builds) while an app started before imports the MCP SDK on its
worker thread (brain/mcp/transports/deferred.py): pydantic's lazy attributes, imported by two
threads at once, are then half made ("partially initialized module 'pydantic'"). `brain serve`
builds its one schema before that thread starts; here pydantic is imported once, up front.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pydantic.main  # noqa: F401  (why: below)
import uvicorn

from brain.api.graphql.context import ApiSettings, Services
from brain.api.http.app import create_app
from brain.api.http.auth import TokenRegistry
from brain.api.http.events import ChangeHub
from brain.config.operator import OperatorSettings, load_budgets
from brain.service.brain import Brain
from brain.service.watch import Watcher
from brain.store.base import GraphStore, WriteBatch
from brain.store.memory.store import MemoryStore


@dataclass
class LiveServer:
    base: str
    services: Services
    server: uvicorn.Server

    @property
    def graphql(self) -> str:
        return f"{self.base}/graphql"

    @property
    def ws(self) -> str:
        return self.graphql.replace("http://", "ws://", 1)

    @property
    def brain(self) -> Brain:
        return self.services.brain


@contextmanager
def live_server(
    root: Path,
    store: GraphStore,
    *,
    watch: bool = True,
    settings: ApiSettings | None = None,
    tokens: TokenRegistry | None = None,
    watcher_options: dict[str, Any] | None = None,
    app_options: dict[str, Any] | None = None,
    wait_ready: bool = True,
    cache: bool = False,
    operator: OperatorSettings | None = None,
) -> Iterator[LiveServer]:
    """Serve `root` on 127.0.0.1:<free port>; with `watch`, the app reads and follows it
    (`cache`: starting from the workspace's snapshot, as `brain serve` does)."""
    # Defaults but for the budgets, which tests set in the environment (BRAIN_HISTORY_AGENT_BYTES...).
    operator = operator or OperatorSettings(budgets=load_budgets(os.environ))
    brain = Brain(root, store, cache=cache, settings=operator)
    if not watch:
        brain.sync()
    settings = settings or ApiSettings()
    watcher = Watcher(brain, **(watcher_options or {})) if watch else None
    services = Services(
        brain=brain, hub=ChangeHub(brain), tokens=tokens or TokenRegistry(), settings=settings,
        watcher=watcher,
    )
    app = create_app(services, **(app_options or {}))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="on",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    live = LiveServer(f"http://127.0.0.1:{port}", services, server)
    try:
        wait_for(lambda: server.started, "the server to start")
        if watch and wait_ready:
            # A first ingest on Neo4j sets up the schema and writes in several transactions:
            # 15 s ran out on a loaded CI machine, and 60 s on a Neo4j server's cold first use
            # (its JIT and query plans; CI took 54 s there): a condition wait, not a time
            # assertion, so a passing run never waits for the bound.
            wait_for(lambda: _healthy(live), "the first ingest", timeout=180.0)
        yield live
    finally:
        server.should_exit = True
        thread.join(15)
        brain.close()


def _healthy(live: LiveServer) -> bool:
    return httpx.get(f"{live.base}/healthz").status_code == 200


async def until_subscribed(base: str, count: int = 1, timeout: float = 15.0) -> None:
    """Until the server says (/healthz) it has `count` subscriptions registered: a change made
    before that would have no subscriber to go to. Not a fixed sleep, which a slow machine
    outlasts, and which a fast one waits out for nothing."""
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(timeout=10) as client:
        while (seen := (await client.get(f"{base}/healthz")).json()["subscriptions"]) != count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{base}: {seen} subscriptions registered, not {count}")
            await asyncio.sleep(0.01)


def wait_for(check: Callable[[], bool], what: str, timeout: float = 15.0, every: float = 0.01) -> None:
    """Until `check()`; `every`: the pause between checks, longer where a check costs the
    server work (a scrape reads the store: on Neo4j, queries)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class GatedStore(MemoryStore):
    """A real store whose writes wait until the test opens the gate: a sync stays unfinished
    (a first ingest, a rescan) while the test looks at what the server answers meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def write(self, batch: WriteBatch) -> None:
        self.gate.wait(30)
        super().write(batch)
