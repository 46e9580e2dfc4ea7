"""One writer and two read-only replicas on one Neo4j: real processes, real HTTP and WebSocket.

A file changed on disk reaches the writer through its watcher; a replica's GraphQL shows it
with no subscription telling it, and both replicas show the change and deliver the
`graphChanged` event to their own subscribers, from the writer's change log in the database.
Writes sent to a replica are refused with the writer's address; the replicas
keep working while the writer restarts.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.client import Stream, ws_session
from tests.api.live import until_subscribed
from tests.api.test_cli_serve import brain_serve, wait_for_url
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import Login
from tests.neo4j.test_restart import store_args

pytestmark = pytest.mark.neo4j

EVENTS = "subscription { graphChanged { kind id node { ... on Memory { description } } } }"
DESCRIPTION = "query($path: String) { memory(path: $path) { description } }"
AWAY = "c, written while the writer was away"
A_ON_DISK = "a, changed on disk"


@contextmanager
def serving(ws: Workspace, login: Login, *extra: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    with brain_serve(str(ws.root), "--port", "0", *store_args(login), *extra) as process:
        yield process, wait_for_url(process, timeout=90)


@asynccontextmanager
async def subscribed(urls: list[str]) -> AsyncIterator[list[Stream]]:
    async with AsyncExitStack() as stack:
        streams = []
        for url in urls:
            session = await stack.enter_async_context(ws_session(url.replace("http://", "ws://")))
            streams.append(await session.subscribe(EVENTS))
        for url in urls:  # each replica says its subscription is registered
            await until_subscribed(url.removesuffix("/graphql"))
        yield streams


async def next_change(stream: Stream, node_id: str) -> dict[str, Any]:
    """The next event about `node_id` (the writer may report others first, e.g. its agent)."""
    while True:
        payload = await stream.payload(timeout=30)
        event: dict[str, Any] = payload["data"]["graphChanged"]
        if event["id"] == node_id:
            return event


def description(url: str, path: str) -> str | None:
    answer = httpx.post(url, json={"query": DESCRIPTION, "variables": {"path": path}}, timeout=10).json()
    memory = answer["data"]["memory"]
    return None if memory is None else str(memory["description"])


@pytest.fixture
def workspace(tmp_path: Path, neo4j_login: Login) -> Workspace:
    open_neo4j(neo4j_login).close()  # an empty database
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b", "[[a]]"))
    return ws


async def a_replica_answers_a_write_on_disk_without_being_told(
    workspace: Workspace, writer_url: str, url: str
) -> None:
    """What a dashboard polling a replica sees: its GraphQL answer (kept between identical
    reads) shows a note changed on disk once the writer has applied it. No subscription tells
    the replica anything first (none is open yet): the test waits for the writer's own event
    (sent once its write is committed), then asks the replica until it answers (it reads the
    graph's token at most every 25 ms), with a deadline, never a fixed sleep. (A test of its
    own until it started the same writer and replica as the one below, for these few steps.)"""
    for _ in range(3):  # the same question again: answered from what the replica kept
        assert description(url, "memory/bot/a.md") == "a"
    async with subscribed([writer_url]) as (writer_events,):
        workspace.write("memory/bot/a.md", note(A_ON_DISK, "[[b]]"))
        await next_change(writer_events, "memory:bot/a")
    deadline = asyncio.get_running_loop().time() + 60
    while description(url, "memory/bot/a.md") != A_ON_DISK:
        assert asyncio.get_running_loop().time() < deadline, "the replica never showed the write"
        await asyncio.sleep(0.01)
    assert description(writer_url, "memory/bot/a.md") == A_ON_DISK


async def test_a_writer_and_two_replicas_share_one_database(workspace: Workspace, neo4j_login: Login) -> None:
    with ExitStack() as processes:
        writer, writer_url = processes.enter_context(serving(workspace, neo4j_login))
        replicas = [processes.enter_context(serving(workspace, neo4j_login, "--read-only")) for _ in range(2)]
        urls = [url for _, url in replicas]
        assert [description(url, "memory/bot/b.md") for url in urls] == ["b", "b"]
        await a_replica_answers_a_write_on_disk_without_being_told(workspace, writer_url, urls[0])

        async with subscribed(urls) as streams:
            workspace.write("memory/bot/b.md", note("b edited on disk", "[[a]]"))
            events = [await next_change(stream, "memory:bot/b") for stream in streams]
        assert events == [{"kind": "CHANGED", "id": "memory:bot/b",
                           "node": {"description": "b edited on disk"}}] * 2
        assert [description(url, "memory/bot/b.md") for url in urls] == ["b edited on disk"] * 2

        # Writes go to the writer: a replica refuses them and says where the writer is.
        refused = httpx.put(urls[0].removesuffix("/graphql") + "/api/memory/shared/new.md",
                            json={"content": note("new")}, timeout=10)
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["code"] == "read-only"
        assert "read-only replica" in error["message"]
        assert writer_url.removesuffix("/graphql") in error["message"]
        assert not (workspace.root / "memory/shared/new.md").exists()

        # The writer restarts; the replicas keep answering, and follow the new writer.
        writer.send_signal(signal.SIGINT)
        assert await asyncio.to_thread(writer.wait, 30) == 0
        assert [description(url, "memory/bot/a.md") for url in urls] == [A_ON_DISK] * 2
        async with subscribed(urls) as streams:
            workspace.write("memory/bot/c.md", note(AWAY))
            with serving(workspace, neo4j_login):
                events = [await next_change(stream, "memory:bot/c") for stream in streams]
        assert [event["kind"] for event in events] == ["ADDED", "ADDED"]
        assert [description(url, "memory/bot/c.md") for url in urls] == [AWAY, AWAY]
        health = httpx.get(urls[1].replace("/graphql", "/healthz"), timeout=10).json()
        assert health["status"] == "ready"
        assert health["watcher"]["error"] is None


def test_a_replica_needs_a_writer_first(workspace: Workspace, neo4j_login: Login) -> None:
    with brain_serve(str(workspace.root), "--port", "0", "--read-only", *store_args(neo4j_login)) as replica:
        assert replica.wait(60) != 0
        assert replica.stderr is not None
        stderr = replica.stderr.read()
    assert "holds no brain graph yet: start the writer first" in stderr
