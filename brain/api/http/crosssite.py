"""No web page on another site changes anything: one check in front of every HTTP route.

A browser lets any page send a POST to any address it can reach (a "simple" request: no
preflight when the body is text/plain, application/x-www-form-urlencoded or
multipart/form-data, or has no type), from the user's machine and network. On a server without
tokens, or one on localhost, a page the user merely visits could start a model run that
rewrites shared memory. `/graphql` and `/mcp` refused such bodies on their own; a route that
forgot to (POST /api/memory/consolidate did) was open. So the rule lives here, before any
route and before the token check, for every method that may change state (all but GET, HEAD
and OPTIONS):

- an `Origin` (or, without one, `Sec-Fetch-Site`) saying another site sent the request is
  refused (403), unless that origin is in BRAIN_ALLOWED_ORIGINS (where `*` allows any);
- a POST must declare a body a page cannot send without a preflight (JSON): the three simple
  types, or none, are refused (415).

PUT and DELETE always need a preflight, which brain answers only for the allowed origins;
their text bodies (the memory API's `text/markdown`) stay as they are. Tools (curl, agents,
MCP clients) send no Origin and are unaffected; brain's own web UI is same-origin.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.http.websocket_origin import is_same_origin, normalize_allowed_origins, normalize_origin

logger = logging.getLogger("brain.api")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: The body types a form or a no-preflight fetch can send; "" is a body without a type.
SIMPLE_TYPES = frozenset({"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"})


class CrossSiteMiddleware:
    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = normalize_allowed_origins(allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refused = self.refusal(scope["method"], headers)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        logger.warning("refused %s %s: %s", scope["method"], scope.get("path", ""), message)
        body = {"errors": [{"message": message, "extensions": {"code": "CROSS_SITE"}}]}
        await JSONResponse(body, status_code=status)(scope, receive, send)

    def refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        """(status, message) when the request may come from another site's page; else None."""
        origin = headers.get("origin")
        if origin is not None:
            if not self._allowed(origin, headers.get("host")):
                return 403, (
                    f"a {method} from the web page at {origin[:200]!r} is refused: only this "
                    "server's own pages may change anything; list that origin in "
                    "BRAIN_ALLOWED_ORIGINS to let it"
                )
        elif headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return 403, (
                f"a {method} sent by a page on another site is refused: only this server's own "
                "pages may change anything"
            )
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if method == "POST" and media in SIMPLE_TYPES:
            return 415, (
                f"a POST must send Content-Type: application/json, not "
                f"{media or 'no Content-Type'} (any web page could send that to this server)"
            )
        return None

    def _allowed(self, origin: str, host: str | None) -> bool:
        if "*" in self.allowed:
            return True
        if origin.strip() != "null" and is_same_origin(origin, host):
            return True
        return normalize_origin(origin) in self.allowed
