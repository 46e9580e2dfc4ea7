"""A cap on request bodies, decided before reading them where the client says their size.

Without it a single POST of hundreds of megabytes was read whole into memory (and the
process kept the memory afterwards). A declared `Content-Length` above the cap is refused
with 413 before a byte of the body is read, whoever the caller is (the check runs before
the token check, so a caller without a token learns nothing but the cap). A chunked body is
counted as it streams, and refused the moment it passes the cap.
"""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_BODY_BYTES = 1024 * 1024


class BodyTooLarge(Exception):
    """Raised from `receive` when a streamed body passes the cap."""


def too_large_message(limit: int) -> str:
    return (
        f"the request body is larger than {limit:,} bytes, the most this server accepts "
        "(BRAIN_MAX_BODY_BYTES); a GraphQL document is a few kilobytes and one memory file "
        "at most 64 KiB: send less"
    )


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            status = 413 if declared.isdigit() else 400
            message = too_large_message(limit) if status == 413 else "Content-Length is not a number"
            await _refuse(scope, send, status, message)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if started:  # the app answered before reading it all: nothing more to say
                return
            await _refuse(scope, send, 413, too_large_message(limit))


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    # Each API's own error shape: GraphQL's `errors`, the memory REST API's `error`.
    shaped: object = {"errors": [{"message": message}]}
    if str(scope.get("path", "")).startswith("/api/"):
        code = "too-large" if status == 413 else "invalid-argument"
        shaped = {"error": {"code": code, "message": message, "suggestion": None, "text": message}}
    body = json.dumps(shaped).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ],
    })
    await send({"type": "http.response.body", "body": body})

