"""Bearer tokens at the door of every HTTP route (GraphQL and the memory tool's REST API alike).

The caller's `Principal` is put in `request.state.principal`. WebSocket handshakes pass
through unless they carry a wrong token: the GraphQL view checks `connection_init`.

A token whose agent the workspace does not know (a typo in the tokens file, or an agent
since removed) is refused with 403 rather than acting as a stranger who may read the
shared scope: agents come and go while the server runs, so this is decided per request
(remembered for a few seconds) and not when the tokens file is read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import Principal, TokenRegistry, bearer_token

logger = logging.getLogger("brain.api.http.auth")

MISSING = (
    "a bearer token is required: send `Authorization: Bearer <token>` "
    "with BRAIN_TOKEN or a token from BRAIN_TOKENS_FILE"
)
INVALID = "the bearer token is not valid: check BRAIN_TOKEN or BRAIN_TOKENS_FILE on the server"


def unknown_agent_message(agent: str) -> str:
    return (
        f"this token belongs to agent `{agent}`, which the workspace does not define (no "
        f"agents/{agent}.md and no memory/{agent}/): fix or remove its entry in BRAIN_TOKENS_FILE"
    )


class KnownAgents:
    """Whether an agent exists in the graph; answers are remembered for `ttl` seconds.

    `lookup` is a blocking store call (run in a thread) returning None while the graph is
    not read yet (then nobody is refused: the API answers 503 anyway).
    """

    def __init__(self, lookup: Callable[[str], bool | None], ttl: float = 5.0) -> None:
        self.lookup = lookup
        self.ttl = ttl
        self._seen: dict[str, tuple[float, bool]] = {}
        self._warned: set[str] = set()

    async def refused(self, principal: Principal | None) -> str | None:
        """The agent this principal stands for, if the workspace does not know it."""
        if principal is None or principal.agent is None:
            return None
        agent, now = principal.agent, time.monotonic()
        seen = self._seen.get(agent)
        if seen is not None and now - seen[0] < self.ttl:
            return None if seen[1] else agent
        known = await in_thread(self.lookup, agent)
        if known is None:
            return None
        if len(self._seen) > 1000:  # one entry per agent of the tokens file; bounded anyway
            self._seen.clear()
        self._seen[agent] = (now, known)
        if not known and agent not in self._warned:
            self._warned.add(agent)
            logger.warning("%s", unknown_agent_message(agent))
        return None if known else agent


class BearerAuthMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        tokens: TokenRegistry,
        open_paths: Collection[str] = ("/healthz",),
        ide_path: str | None = None,
        known_agents: KnownAgents | None = None,
        open_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.tokens = tokens
        self.open_paths = frozenset(open_paths)
        self.open_prefixes = open_prefixes
        self.ide_path = ide_path
        self.known_agents = known_agents

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
        unknown = None if self.known_agents is None else await self.known_agents.refused(principal)
        if unknown is not None:
            message = unknown_agent_message(unknown)
            if scope["type"] == "http":
                await JSONResponse({"errors": [{"message": message}]}, status_code=403)(scope, receive, send)
            else:
                await WebSocket(scope, receive, send).close(code=1008, reason="unknown agent")
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
