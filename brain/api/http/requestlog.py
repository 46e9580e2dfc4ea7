"""The request id of every HTTP request and WebSocket, and one log line per refused request.

Outermost of the middleware, so everything after it (the host check, the body budget, the
tokens, GraphQL, REST, MCP) logs inside the request's context: each of their lines carries
the request's id (brain/logs.py), and the response says it in `X-Request-Id`, which a
client can quote in a bug report and an operator grep for.

A refused request (a 4xx: no token, a body past the budget, a bad cursor, a name the tool
refuses; a 507 write past the history's cap) is the caller's mistake or the operator's
budget, not the server's: one warning line with the status and the reason the response gave,
never a traceback. A 503 (not ready yet) is an info line. A failure (other 5xx) is an error
line; the exception itself is logged where it is caught. A request that went well is a line only when the
operator asked for every request (`[log] requests = true`, or `--dev`).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brain.logs import REQUEST_ID, REQUEST_WARNINGS, event, request_id

logger = logging.getLogger("brain.api.request")

HEADER = "x-request-id"
REASON_BYTES = 4096  # of a refusal's body, read for its message; the rest passes untouched
REASON_CHARS = 300
UNAVAILABLE = 503  # not ready yet (the first read), or degraded: /healthz says why; not a failure
#: 5xx answers that are refusals, not failures: a write past the history's cap (`history-full`).
REFUSED_5XX = frozenset({507, UNAVAILABLE})


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp, every: bool = False) -> None:
        self.app = app
        self.every = every

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        rid = request_id(Headers(scope=scope).get(HEADER))
        token = REQUEST_ID.set(rid)
        warned = [0]
        counting = REQUEST_WARNINGS.set(warned)
        started = time.monotonic()
        status = 0
        body = bytearray()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] in ("http.response.start", "websocket.accept"):
                status = message.get("status", 101)
                message["headers"] = [*message.get("headers", []), (HEADER.encode(), rid.encode())]
            elif (message["type"] == "http.response.body" and len(body) < REASON_BYTES
                  and (400 <= status < 500 or status in REFUSED_5XX)):
                body.extend(message.get("body", b"")[: REASON_BYTES - len(body)])
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if scope["type"] == "http":
                self._log(scope, status, bytes(body), time.monotonic() - started, warned[0])
            REQUEST_WARNINGS.reset(counting)
            REQUEST_ID.reset(token)

    def _log(self, scope: Scope, status: int, body: bytes, seconds: float, warned: int) -> None:
        method, path = scope.get("method", ""), scope.get("path", "")
        fields: dict[str, Any] = {"method": method, "path": path, "status": status,
                                  "ms": round(seconds * 1000, 1)}
        if (400 <= status < 500 or status in REFUSED_5XX) and warned:
            return  # the layer that refused it said so, with this request's id: one line
        if 400 <= status < 500 or status in REFUSED_5XX:
            reason = _reason(body)
            fields["reason"] = reason
            level = logging.INFO if status == UNAVAILABLE else logging.WARNING
            name = "unavailable" if status == UNAVAILABLE else "refused"
            event(logger, level, name, f"{name} {method} {path}: {status} {reason}".rstrip(), **fields)
        elif status >= 500 or status == 0:
            event(logger, logging.ERROR, "failed", f"failed {method} {path}: {status or 'no answer'}",
                  **fields)
        elif self.every:
            event(logger, logging.INFO, "request", f"{method} {path} {status}", **fields)


def _reason(body: bytes) -> str:
    """The message of a refusal's JSON body (brain's error shapes), else its text, shortened."""
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:REASON_CHARS]
    message: Any = None
    if isinstance(data, dict):
        error = data.get("error")
        errors = data.get("errors")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(errors, list) and errors and isinstance(errors[0], dict):
            message = errors[0].get("message")
        elif isinstance(data.get("detail"), str):
            message = data["detail"]
    return " ".join(str(message if message is not None else text).split())[:REASON_CHARS]
