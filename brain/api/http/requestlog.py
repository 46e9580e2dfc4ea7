"""The request id of every HTTP request and WebSocket, and one log line per refused request.

Outermost of the middleware, so everything after it (the host check, the body budget, the
tokens, GraphQL, REST, MCP) logs inside the request's context: each of their lines carries
the request's id (brain/logs.py), and the response says it in `X-Request-Id`, which a
client can quote in a bug report and an operator grep for.

A refused request (a 4xx: no token, a body past the budget, a bad cursor, a name the tool
refuses) is the caller's mistake, not the server's: one warning line with the status and the
reason the response gave, never a traceback. A failure (5xx) is an error line; the exception
itself is logged where it is caught. A request that went well is a line only when the
operator asked for every request (`[log] requests = true`, or `--dev`).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brain.logs import REQUEST_ID, event, request_id

logger = logging.getLogger("brain.api.request")

HEADER = "x-request-id"
REASON_BYTES = 4096  # of a refusal's body, read for its message; the rest passes untouched
REASON_CHARS = 300


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
        started = time.monotonic()
        status = 0
        body = bytearray()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] in ("http.response.start", "websocket.accept"):
                status = message.get("status", 101)
                message["headers"] = [*message.get("headers", []), (HEADER.encode(), rid.encode())]
            elif message["type"] == "http.response.body" and 400 <= status < 500 and len(body) < REASON_BYTES:
                body.extend(message.get("body", b"")[: REASON_BYTES - len(body)])
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if scope["type"] == "http":
                self._log(scope, status, bytes(body), time.monotonic() - started)
            REQUEST_ID.reset(token)

    def _log(self, scope: Scope, status: int, body: bytes, seconds: float) -> None:
        method, path = scope.get("method", ""), scope.get("path", "")
        fields: dict[str, Any] = {"method": method, "path": path, "status": status,
                                  "ms": round(seconds * 1000, 1)}
        if 400 <= status < 500:
            reason = _reason(body)
            fields["reason"] = reason
            event(logger, logging.WARNING, "refused", f"refused {method} {path}: {status} {reason}".rstrip(),
                  **fields)
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
