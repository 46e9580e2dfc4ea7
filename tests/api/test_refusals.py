"""A refused request is the caller's 4xx with a message, and one line in the server's log.

Before: `{"query": null}` and an unknown `operationName` were 500s with a traceback over HTTP
and a masked "internal error" (and a traceback) over the WebSocket; every refused request
(a search too long, a bad cursor, a syntax error) was logged with a full traceback, so the
log of a server under a noisy client buried its real failures.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from brain.api.graphql.errors import MASKED_MESSAGE
from tests.api.client import PROTOCOL
from tests.api.conftest import ServerFactory
from tests.api.test_hardening import FailingStore


@pytest.mark.parametrize(("body", "message"), [
    ({"query": None}, "the request has no `query`"),
    ({}, "the request has no `query`"),
    ({"query": "{ __typename }", "operationName": "Nope"}, "no operation named `Nope`"),
    ({"query": "query A { __typename }", "operationName": 5}, "no operation named `5`"),
])
async def test_a_request_without_a_runnable_operation_is_a_400(
    serve: ServerFactory, workspace: Path, body: dict[str, Any], message: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    live = serve(workspace, watch=False)
    async with httpx.AsyncClient(timeout=10) as client:
        posted = await client.post(live.graphql, json=body)
        # Over GET an empty `query=` is the missing query (with none at all, strawberry says 404).
        params = {"query": "", **{k: str(v) for k, v in body.items() if v}}
        got = await client.get(live.graphql, params=params)
    for response in (posted, got):
        assert response.status_code == 400, response.text
        assert message in response.text
    assert not [r for r in caplog.records if r.exc_info], "a refusal is not a traceback"


@pytest.mark.parametrize(("payload", "message"), [
    ({"query": None}, 'missing a "query" value'),
    ({"query": "{ __typename }", "operationName": "Nope"}, 'Unknown operation named "Nope"'),
])
async def test_over_the_websocket_too(
    serve: ServerFactory, workspace: Path, payload: dict[str, Any], message: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    live = serve(workspace)
    async with connect(live.ws, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        try:  # an error message for this operation, or the protocol's close 4400 (bad request)
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert answer["type"] == "error"
            said = answer["payload"][0]["message"]
        except ConnectionClosed:
            assert ws.close_code == 4400
            said = ws.close_reason or ""
    assert message in said, "the caller's mistake, not a masked internal error"
    assert not [r for r in caplog.records if r.exc_info]


def cursor(kind: str, text: str) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{text}".encode()).decode()


async def test_each_refusal_is_one_log_line_and_a_bug_keeps_its_traceback(
    serve: ServerFactory, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = serve(workspace, watch=False)
    refusals = [
        {"query": 'query($q: String!) { search(query: $q) { edges { cursor } } }',
         "variables": {"q": "x" * 5000}},  # a search too long
        {"query": "{ memories(first: 1, after: \"nonsense\") { totalCount } }"},  # a bad cursor
        {"query": "{ problems(first: 1, after: \"" + cursor("problem", "[" * 5000) + "\") { totalCount } }"},
        {"query": "{ memories(first: 1 { totalCount } }"},  # a syntax error
        {"query": "{ nosuchfield }"},  # a validation error
    ]
    caplog.set_level(logging.INFO)
    async with httpx.AsyncClient(timeout=30) as client:
        for body in refusals:
            caplog.clear()
            answer = (await client.post(live.graphql, json=body)).json()
            assert answer["errors"], answer
            assert "internal error" not in json.dumps(answer), answer
            logged = [r for r in caplog.records if r.name == "strawberry.execution"]
            assert len(logged) == 1, [r.getMessage() for r in logged]
            assert logged[0].levelno == logging.WARNING
            assert logged[0].exc_info is None, "a refused request is one line, not a traceback"
            assert "\n" not in logged[0].getMessage()
    # A failure of the server's own still carries its traceback (and is masked for the caller).
    failing = serve(workspace, FailingStore(), watch=False)
    caplog.clear()
    async with httpx.AsyncClient(timeout=30) as client:
        answer = (await client.post(failing.graphql, json={"query": "{ stats { agents } }"})).json()
    assert answer["errors"][0]["message"] == MASKED_MESSAGE
    (bug,) = [r for r in caplog.records if r.name == "strawberry.execution"]
    assert bug.levelno == logging.ERROR
    assert bug.exc_info is not None


async def test_a_deep_consolidate_body_is_a_400(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, watch=False)
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(f"{live.base}/api/memory/consolidate",
                                     content=b"[" * 2000 + b"]" * 2000,
                                     headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert "the body must be JSON" in response.text
