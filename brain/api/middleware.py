"""Bearer tokens at the door of every HTTP route (GraphQL and the memory tool's REST API alike).

The caller's `Principal` is put in `request.state.principal`. WebSocket handshakes pass
through unless they carry a wrong token: the GraphQL view checks `connection_init`.
"""

from __future__ import annotations

from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from brain.api.auth import TokenRegistry, bearer_token

MISSING = (
    "a bearer token is required: send `Authorization: Bearer <token>` "
    "with BRAIN_TOKEN or a token from BRAIN_TOKENS_FILE"
)
INVALID = "the bearer token is not valid: check BRAIN_TOKEN or BRAIN_TOKENS_FILE on the server"


class BearerAuthMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        tokens: TokenRegistry,
        open_paths: Collection[str] = ("/healthz",),
        ide_path: str | None = None,
        open_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.tokens = tokens
        self.open_paths = frozenset(open_paths)
        self.open_prefixes = open_prefixes
        self.ide_path = ide_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        authorization = headers.get("authorization")
        principal = self.tokens.principal_for_header(authorization)
        if principal is None and self.tokens.required and not self._is_open(scope, headers):
            message = INVALID if bearer_token(authorization) else MISSING
            if scope["type"] == "http":
                response = JSONResponse(
                    {"errors": [{"message": message}]},
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="brain"'},
                )
                await response(scope, receive, send)
                return
            if authorization:
                await WebSocket(scope, receive, send).close(code=1008, reason=message)
                return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    def _is_open(self, scope: Scope, headers: Headers) -> bool:
        path: str = scope.get("path", "")
        if path in self.open_paths or (self.open_prefixes and path.startswith(self.open_prefixes)):
            return True
        # The GraphiQL page itself (development mode) holds no data; its queries carry the token.
        return (
            self.ide_path is not None
            and path == self.ide_path
            and scope.get("method") == "GET"
            and "text/html" in headers.get("accept", "")
            and b"query=" not in scope.get("query_string", b"")
        )
