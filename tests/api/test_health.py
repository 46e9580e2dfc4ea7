"""/healthz and readiness: nothing answers from a half-read graph; failures are reported."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from brain.api.graphql.context import ApiSettings
from brain.store.base import WriteBatch
from brain.store.memory.store import MemoryStore
from tests.api.client import PROTOCOL, ws_session
from tests.api.conftest import ServerFactory
from tests.api.live import GatedStore, wait_for


class BrokenStore(MemoryStore):
    def write(self, batch: WriteBatch) -> None:
        raise ConnectionError("the database went away")


async def test_nothing_answers_before_the_first_ingest(serve: ServerFactory, workspace: Path) -> None:
    store = GatedStore()
    live = serve(workspace, store, wait_ready=False)
    try:
        async with httpx.AsyncClient() as client:
            health = await client.get(f"{live.base}/healthz")
            query = await client.post(live.graphql, json={"query": "{ stats { memories } }"})
        # The handshake is accepted and closed at once with 1013 "try again later" and the
        # reason: a refused handshake would be a bare 403 that browsers log as an error.
        async with connect(live.ws, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1013
        assert "still reading the workspace" in closed.value.rcvd.reason
    finally:
        store.gate.set()
    assert health.status_code == 503
    assert health.json()["status"] == "starting"
    assert query.status_code == 503
    assert query.headers["retry-after"] == "1"
    assert "still reading the workspace" in query.json()["errors"][0]["message"]
    wait_for(lambda: httpx.get(f"{live.base}/healthz").status_code == 200, "readiness")
    ready = httpx.post(live.graphql, json={"query": "{ stats { memories } }"}).json()
    assert ready == {"data": {"stats": {"memories": 4}}}


async def test_a_failed_first_ingest_is_reported(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, BrokenStore(), wait_ready=False)
    wait_for(lambda: httpx.get(f"{live.base}/healthz").json()["status"] == "failed", "the failure")
    health = httpx.get(f"{live.base}/healthz")
    assert health.status_code == 503
    assert "the database went away" in health.json()["error"]


async def test_healthz_counts_live_subscriptions(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    count = lambda: httpx.get(f"{live.base}/healthz").json()["subscriptions"]  # noqa: E731
    async with ws_session(live.ws) as session:
        await session.subscribe("subscription { graphChanged { id } }")
        wait_for(lambda: count() == 1, "the subscription")
    wait_for(lambda: count() == 0, "the subscription to end with its connection")


async def test_other_origins_only_when_allowed(serve: ServerFactory, workspace: Path) -> None:
    dashboard = "http://localhost:3000"
    settings = ApiSettings(allowed_origins=(dashboard,))
    live = serve(workspace, watch=False, settings=settings)
    preflight = {"Origin": dashboard, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,content-type"}
    async with httpx.AsyncClient() as client:
        allowed = await client.options(live.graphql, headers=preflight)
        other = await client.options(live.graphql, headers={**preflight, "Origin": "http://evil.example"})
        answer = await client.post(live.graphql, json={"query": "{ stats { agents } }"},
                                   headers={"Origin": dashboard})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == dashboard
    assert "access-control-allow-origin" not in other.headers
    assert answer.headers["access-control-allow-origin"] == dashboard
    async with ws_session(live.ws, headers={"Origin": dashboard}) as session:
        assert session.ws.subprotocol == PROTOCOL
    with pytest.raises(InvalidStatus) as refused:
        async with connect(live.ws, subprotocols=[PROTOCOL],  # type: ignore[list-item]
                           additional_headers={"Origin": "http://evil.example"}):
            pass
    assert refused.value.response.status_code == 403


class FlakyStore(MemoryStore):
    """A store that takes the first read, then fails its writes while `broken` is set."""

    broken = False

    def write(self, batch: WriteBatch) -> None:
        if self.broken:
            raise ConnectionError("the database went away")
        super().write(batch)


async def test_a_failing_sync_in_a_running_server_is_reported_not_starting(
    serve: ServerFactory, workspace: Path,
) -> None:
    """Before, a sync that failed while the server ran was only logged: /healthz said
    `starting` with no reason (or `ready`, read-only) while no change reached the graph."""
    store = FlakyStore()
    live = serve(workspace, store)
    assert httpx.get(f"{live.base}/healthz").json()["status"] == "ready"
    store.broken = True
    (workspace / "memory" / "shared" / "new.md").write_text("---\ndescription: new\n---\nnew\n")
    wait_for(lambda: httpx.get(f"{live.base}/healthz").json()["status"] == "failed", "the failure")
    health = httpx.get(f"{live.base}/healthz")
    assert health.status_code == 503
    assert "the database went away" in health.json()["error"]
    assert "the database went away" in health.json()["watcher"]["syncError"]
    store.broken = False
    (workspace / "memory" / "shared" / "new.md").write_text("---\ndescription: newer\n---\nnew\n")
    wait_for(lambda: httpx.get(f"{live.base}/healthz").status_code == 200, "ready again")
    assert httpx.get(f"{live.base}/healthz").json()["watcher"]["syncError"] is None
