"""Real clients for a running `brain serve`: httpx for queries, graphql-transport-ws for subscriptions.

Used by the API tests and by bench/bench_api.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

PROTOCOL = "graphql-transport-ws"


async def post(
    client: httpx.AsyncClient,
    url: str,
    query: str,
    variables: Mapping[str, Any] | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """POST one operation; return the JSON body whatever the status."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await client.post(url, json={"query": query, "variables": variables or {}}, headers=headers)
    body: dict[str, Any] = response.json()
    body["status"] = response.status_code
    return body


class WsSession:
    """One acknowledged graphql-transport-ws connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self.streams: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message.get("type") == "ping":
                await self.ws.send(json.dumps({"type": "pong"}))
                continue
            queue = self.streams.get(message.get("id", ""))
            if queue is not None:
                await queue.put(message)

    async def subscribe(self, query: str, variables: Mapping[str, Any] | None = None) -> Stream:
        op_id = str(next(self._ids))
        self.streams[op_id] = asyncio.Queue()
        payload = {"query": query, "variables": dict(variables or {})}
        await self.ws.send(json.dumps({"id": op_id, "type": "subscribe", "payload": payload}))
        return Stream(self, op_id)

    async def close(self) -> None:
        self._reader.cancel()
        await self.ws.close()


class Stream:
    def __init__(self, session: WsSession, op_id: str) -> None:
        self.session = session
        self.id = op_id

    async def next(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message of this operation (`next`, `error` or `complete`)."""
        return await asyncio.wait_for(self.session.streams[self.id].get(), timeout)

    async def payload(self, timeout: float = 10.0) -> dict[str, Any]:
        message = await self.next(timeout)
        if message["type"] != "next":
            raise AssertionError(f"expected a `next` message, got {message}")
        result: dict[str, Any] = message["payload"]
        return result

    async def complete(self) -> None:
        await self.session.ws.send(json.dumps({"id": self.id, "type": "complete"}))


@asynccontextmanager
async def ws_session(
    url: str, connection_params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None
) -> AsyncIterator[WsSession]:
    """Connect, send `connection_init`, and wait for `connection_ack`."""
    async with connect(url, subprotocols=[PROTOCOL], additional_headers=headers) as ws:  # type: ignore[list-item]
        init: dict[str, Any] = {"type": "connection_init"}
        if connection_params is not None:
            init["payload"] = dict(connection_params)
        await ws.send(json.dumps(init))
        ack = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if ack.get("type") != "connection_ack":
            raise AssertionError(f"expected connection_ack, got {ack}")
        session = WsSession(ws)
        try:
            yield session
        finally:
            await session.close()
