"""Hostile requests against a real `brain serve` process: each is answered within its budget,
memory stays put, and `/healthz` plus an ordinary query answer during and after every case.

The server runs under RLIMIT_AS (tests/hostile/api_server.py) and every request has a time
budget, so a regression fails here instead of hanging CI or eating the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.api.client import PROTOCOL, ws_session
from tests.api.files import make_workspace
from tests.hostile.api_server import (
    ADMIN_TOKEN,
    AGENT_TOKEN,
    HostileServer,
    hostile_server,
    probe,
    write_tokens,
)

CASE_BUDGET = 10.0  # seconds for a hostile request to be answered (they take milliseconds)
MEMORY_BUDGET = 150 * 1024**2  # growth of the server's peak RSS allowed per case


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileServer]:
    root = tmp_path_factory.mktemp("hostile-api")
    workspace = make_workspace(root / "ws")
    tokens = write_tokens(root / "tokens.json")
    with hostile_server(workspace, env={"BRAIN_TOKENS_FILE": str(tokens)}) as live:
        probe(live)
        yield live


def fan_out(levels: int) -> str:
    fragments = [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    return "\n".join(["query { ...F0 }", *fragments, f"fragment F{levels} on Query {{ __typename }}"])


def while_probing(server: HostileServer, attack: Callable[[], Any]) -> Any:
    """Run `attack` in a thread; meanwhile the server must answer others within budget."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = attack()
        except BaseException as exc:  # reported below, in the test's thread
            outcome["error"] = exc

    rss_before = server.peak_rss()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    time.sleep(0.2)
    probe(server)
    thread.join(CASE_BUDGET)
    assert not thread.is_alive(), f"the hostile request took longer than {CASE_BUDGET} s"
    if "error" in outcome:
        raise outcome["error"]
    probe(server)
    assert server.peak_rss() - rss_before < MEMORY_BUDGET, "the server's memory grew past the budget"
    return outcome["value"]


def graphql(server: HostileServer, body: object, token: str = AGENT_TOKEN) -> httpx.Response:
    return httpx.post(server.url, json=body, headers={"Authorization": f"Bearer {token}"},
                      timeout=CASE_BUDGET)


def test_fragment_fan_out_over_post_is_refused_at_once(server: HostileServer) -> None:
    document = fan_out(40)
    assert len(document) < 2048
    response = while_probing(server, lambda: graphql(server, {"query": document}))
    assert response.status_code == 200
    (error,) = response.json()["errors"]
    assert "1,099,511,627,776 fields once its fragments are expanded; the limit is 300" in error["message"]


def test_fragment_fan_out_over_websocket_is_refused_at_once(server: HostileServer) -> None:
    async def attack() -> dict[str, Any]:
        async with ws_session(server.ws, {"token": AGENT_TOKEN}) as session:
            stream = await session.subscribe(fan_out(40))
            return await stream.next(timeout=CASE_BUDGET)

    message = while_probing(server, lambda: asyncio.run(attack()))
    assert message["type"] == "error"
    assert "fields once its fragments are expanded" in message["payload"][0]["message"]


@pytest.mark.parametrize(("document", "message"), [
    (" ".join(f"query Q{i} {{ __typename }}" for i in range(300)), "300 operations"),
    ("{ " + "__typename @include(if: true) " * 150 + "}", "150 directives"),
    ("{ " + " ".join(f"a{i}: __typename" for i in range(500)) + " }", "500 aliases"),
    ("{ " + "__typename " * 1500 + "}", "1,500 fields"),
    ('{ memories(after: "' + "A" * 500_000 + '") { totalCount } }', "500,000 characters long"),
])
def test_oversized_documents_are_refused_at_once(
    server: HostileServer, document: str, message: str
) -> None:
    response = while_probing(server, lambda: graphql(server, {"query": document}, ADMIN_TOKEN))
    assert message in response.text
    assert len(response.content) < 4000, "the answer must not echo the document"


def declared_body(server: HostileServer, length: int, token: str | None) -> bytes:
    host, port = server.base.removeprefix("http://").split(":")
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    with socket.create_connection((host, int(port)), timeout=CASE_BUDGET) as sock:
        sock.sendall(f"POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {length}\r\n{auth}\r\n".encode())
        return sock.recv(65536)


@pytest.mark.parametrize("token", [None, AGENT_TOKEN])
def test_a_400_mb_declared_body_is_refused_before_reading(server: HostileServer, token: str | None) -> None:
    answer = while_probing(server, lambda: declared_body(server, 400 * 1024**2, token))
    assert answer.startswith(b"HTTP/1.1 413 ")


def streamed_body(server: HostileServer, total: int) -> tuple[int, bytes]:
    """Stream up to `total` bytes chunked until the server answers; (bytes sent, answer)."""
    host, port = server.base.removeprefix("http://").split(":")
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    sent = 0
    with socket.create_connection((host, int(port)), timeout=CASE_BUDGET) as sock:
        sock.sendall(b"POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Authorization: Bearer " + AGENT_TOKEN.encode() + b"\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        try:
            while sent < total:
                sock.sendall(chunk)
                sent += 65536
        except OSError:
            pass  # the server answered and closed: what we want
        try:
            return sent, sock.recv(65536)
        except OSError:
            return sent, b""


def test_a_400_mb_streamed_body_is_cut_off_at_the_cap(server: HostileServer) -> None:
    rss = server.rss()
    sent, answer = while_probing(server, lambda: streamed_body(server, 400 * 1024**2))
    assert sent < 400 * 1024**2, "the server read the whole body"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413 ")
    assert server.rss() - rss < MEMORY_BUDGET


def test_a_websocket_message_over_the_cap_closes_the_connection(server: HostileServer) -> None:
    async def attack() -> int | None:
        async with connect(server.ws, subprotocols=[PROTOCOL], max_size=None) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "connection_init", "payload": {"token": AGENT_TOKEN}}))
            await ws.recv()
            query = "{ __typename }" + " " * (2 * 1024**2)
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
            with contextlib.suppress(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), CASE_BUDGET)
            return ws.close_code

    assert while_probing(server, lambda: asyncio.run(attack())) == 1009


@pytest.mark.parametrize(("body", "status"), [
    (b"{not json", 400),
    (b'{"query": "{ __typename }", "v": "\xff"}', 400),
    (b'{"query": "query($v: String) { __typename }", "variables": {"v": ' + b"[" * 200_000
     + b"]" * 200_000 + b"}}", 400),
    (b'{"query": "subscription { graphChanged { id } }"}', 400),
    (b'[{"query": "{ __typename }"}, {"query": "{ __typename }"}]', 400),
    (b'{"query": null}', 400),
    (b'{"query": "{ __typename }", "operationName": "Nope"}', 400),
])
def test_malformed_requests_are_4xx_never_500(server: HostileServer, body: bytes, status: int) -> None:
    def attack() -> httpx.Response:
        return httpx.post(server.url, content=body, timeout=CASE_BUDGET, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {ADMIN_TOKEN}",
        })

    assert while_probing(server, attack).status_code == status


def test_the_server_is_still_whole(server: HostileServer) -> None:
    assert server.alive(), server.stderr_tail()
    probe(server)
    body = httpx.post(server.url, json={"query": "{ stats { memories } }"},
                      headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=CASE_BUDGET).json()
    assert body == {"data": {"stats": {"memories": 4}}}
    # Every case above was the caller's mistake: each is a line in the log, none a traceback.
    assert "Traceback" not in server.log.read_text(encoding="utf-8", errors="replace")
    path = Path(f"/proc/{server.process.pid}/status")
    assert path.exists()
