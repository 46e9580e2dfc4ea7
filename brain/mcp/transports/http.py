"""The MCP server at `/mcp` of `brain serve`: streamable HTTP behind the same bearer tokens.

`BearerAuthMiddleware` has already turned the token into the request's principal when a
request reaches this app; `http_caller` reads it, so an agent's token is that agent and an
admin names one with `/mcp?agent=NAME`. Host checks are the app's (TrustedHostMiddleware),
so the SDK's own DNS-rebinding check is off here rather than configured twice.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from brain.mcp.caller import http_caller
from brain.mcp.server import BrainMcp

if TYPE_CHECKING:
    from brain.api.graphql.context import Services

MCP_PATH = "/mcp"
MAX_BODY = 1 << 20  # a memory note is at most 64 KiB; one JSON-RPC message needs no more


class McpEndpoint:
    """The MCP app of one server: its route, and a session manager per run of the app's lifespan."""

    def __init__(self, services: Services) -> None:
        # Its own ChangeHub, not the app's: /healthz counts GraphQL subscriptions there.
        self.mcp = BrainMcp(services.brain, lambda ctx: http_caller(ctx.request))
        self.manager = self._manager()

    def _manager(self) -> StreamableHTTPSessionManager:
        return StreamableHTTPSessionManager(
            app=self.mcp.server,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=MAX_BODY,
            # Plain JSON answers: no tool streams progress, and an SSE stream per call costs
            # about twice the server CPU (bench/bench_mcp.py). Notifications ride the GET stream.
            json_response=True,
        )

    def routes(self) -> list[BaseRoute]:
        return [Route(MCP_PATH, self, methods=["GET", "POST", "DELETE"])]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        # A manager runs once; an app whose lifespan starts again (tests do) gets a new one.
        self.manager = self._manager()
        async with self.manager.run():
            yield


def mcp_endpoint(services: Services) -> McpEndpoint:
    return McpEndpoint(services)


