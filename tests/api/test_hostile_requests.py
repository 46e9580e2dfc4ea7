"""Hostile HTTP and WebSocket requests get the right 4xx, say why, and echo nothing unbounded."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from brain.api.graphql.context import ApiSettings
from brain.api.http.auth import TokenRegistry
from tests.api.client import PROTOCOL, post, ws_session
from tests.api.conftest import ServerFactory
from tests.api.live import LiveServer

ADMIN_TOKEN = "admin-secret-0123456789"
AGENT_TOKEN = "bot-secret-0123456789"
GHOST_TOKEN = "ghost-secret-0123456789"
INTROSPECTION = "{ __schema { queryType { name } } }"


@pytest.fixture
def tokens(tmp_path: Path) -> TokenRegistry:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({AGENT_TOKEN: "bot", GHOST_TOKEN: "ghost"}), encoding="utf-8")
    return TokenRegistry(ADMIN_TOKEN, file)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def raw_post(live: LiveServer, body: bytes, content_type: str = "application/json") -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(live.graphql, content=body, headers={"Content-Type": content_type})


@pytest.mark.parametrize(("body", "message"), [
    (b"{not json", "the body is not valid JSON"),
    (b'{"query": "{ stats { agents } }", "x": "\xff\xfe"}', "the body is not valid UTF-8 (byte"),
    (b'"{ stats { agents } }"', "the body must be a JSON object"),
    (b"42", "the body must be a JSON object"),
    (b'{"query": "query($v: String) { __typename }", "variables": {"v": ' + b"[" * 50_000
     + b"]" * 50_000 + b"}}", "nested more than 32 levels"),
    (b'{"query": "query($v: String) { __typename }", "variables": {"v": ' + b'{"a": ' * 40 + b"1"
     + b"}" * 40 + b"}}", "nested more than 32 levels"),
])
async def test_bad_bodies_are_400s_that_say_why(
    serve: ServerFactory, workspace: Path, body: bytes, message: str
) -> None:
    live = serve(workspace, watch=False)
    response = await raw_post(live, body)
    assert response.status_code == 400, response.text
    assert message in response.text


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_a_subscription_over_http_says_to_use_the_websocket(
    serve: ServerFactory, workspace: Path, method: str
) -> None:
    live = serve(workspace, watch=False)
    query = "subscription { graphChanged { id } }"
    async with httpx.AsyncClient(timeout=10) as client:
        if method == "POST":
            response = await client.post(live.graphql, json={"query": query})
        else:
            response = await client.get(live.graphql, params={"query": query})
    assert response.status_code == 400
    assert "subscriptions are served over the WebSocket" in response.text


def declared_only(live: LiveServer, length: int, headers: str = "") -> bytes:
    """Send only the headers of a POST declaring `length` bytes; return what comes back."""
    host, port = live.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n{headers}\r\n".encode()
        )
        return sock.recv(65536)


@pytest.mark.parametrize("auth", ["", f"Authorization: Bearer {ADMIN_TOKEN}\r\n"])
def test_a_declared_body_over_the_cap_is_refused_before_reading(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry, auth: str
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    answer = declared_only(live, 400_000_000, auth)  # no body is ever sent
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"larger than 1,048,576 bytes" in answer


def test_a_streamed_body_is_cut_off_at_the_cap(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, watch=False, settings=ApiSettings(max_body_bytes=64 * 1024))
    host, port = live.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        for _ in range(17):  # 68 KiB in 4 KiB chunks, no size declared; the body never ends
            sock.sendall(b"1000\r\n" + b"x" * 4096 + b"\r\n")
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"larger than 65,536 bytes" in answer


async def test_a_wrong_token_in_connection_init_closes_even_with_a_valid_handshake(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with connect(live.ws, subprotocols=[PROTOCOL], additional_headers=bearer(ADMIN_TOKEN)) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {"token": "wrong"}}))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
    assert ws.close_code == 4403
    async with ws_session(live.ws, {"token": AGENT_TOKEN}, headers=bearer(ADMIN_TOKEN)) as session:
        stream = await session.subscribe("subscription { graphChanged { id } }")
        refused = await stream.next()
    assert refused["type"] == "error", "the payload's agent token decides, not the header's admin one"


async def test_a_token_for_an_agent_that_does_not_exist_is_refused(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with httpx.AsyncClient(timeout=10) as client:
        listing = await client.get(f"{live.base}/api/memory", headers=bearer(GHOST_TOKEN))
        query = await post(client, live.graphql, "{ __typename }", token=GHOST_TOKEN)
        known = await post(client, live.graphql, "{ __typename }", token=AGENT_TOKEN)
    assert listing.status_code == 403
    assert "agent `ghost`, which the workspace does not define" in listing.text
    assert query["status"] == 403
    assert known == {"data": {"__typename": "Query"}, "status": 200}
    async with connect(live.ws, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {"token": GHOST_TOKEN}}))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
    assert ws.close_code == 4403


@pytest.mark.parametrize(("dev", "token", "allowed"), [
    (False, ADMIN_TOKEN, True),
    (False, AGENT_TOKEN, False),
    (True, AGENT_TOKEN, True),
])
async def test_introspection_is_for_admins_outside_development(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry, dev: bool, token: str, allowed: bool
) -> None:
    live = serve(workspace, watch=False, tokens=tokens, settings=ApiSettings(dev=dev))
    async with httpx.AsyncClient(timeout=10) as client:
        body = await post(client, live.graphql, INTROSPECTION, token=token)
        typename = await post(client, live.graphql, "{ __typename }", token=token)
    assert typename == {"data": {"__typename": "Query"}, "status": 200}
    if allowed:
        assert body["data"] == {"__schema": {"queryType": {"name": "Query"}}}
    else:
        assert body["data"] is None
        (error,) = body["errors"]
        assert "introspection (`__schema`, `__type`) is open to admin tokens only" in error["message"]


async def ask(live: LiveServer, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as client:
        return await post(client, live.graphql, query, variables)


async def test_a_huge_cursor_is_neither_echoed_nor_logged_whole(
    serve: ServerFactory, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = serve(workspace, watch=False)
    cursor = "A" * 400_000
    query = "query($c: String) { memories(first: 1, after: $c) { totalCount } }"
    body = await ask(live, query, {"c": cursor})
    (error,) = body["errors"]
    assert "`after` is 400,000 characters long" in error["message"]
    assert len(json.dumps(body)) < 2000
    assert all(len(r.getMessage()) < 5000 for r in caplog.records)


async def test_a_long_rejected_value_is_clipped_in_the_answer_and_the_log(
    serve: ServerFactory, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = serve(workspace, watch=False)
    body = await ask(live, "query($n: Int) { memories(first: $n) { totalCount } }", {"n": "9" * 300_000})
    (error,) = body["errors"]
    assert "Int cannot represent non-integer value" in error["message"], "the caller's mistake, not masked"
    assert len(json.dumps(body)) < 2000
    body = await ask(live, "query($b: ID) { memoryHistory(before: $b) { nextBefore } }", {"b": "x" * 300_000})
    (error,) = body["errors"]
    assert error["message"].startswith("before must be a record id from an earlier page, not 'xxx")
    assert len(json.dumps(body)) < 2000
    assert all(len(r.getMessage()) < 5000 for r in caplog.records)
