"""The `/graphql` endpoint: strawberry's ASGI view with brain's context, auth and readiness.

HTTP callers are authenticated by `BearerAuthMiddleware` before they get here; WebSocket
callers prove themselves in `connection_init` (browsers cannot set headers on a WebSocket).
Until the first ingest is done the endpoint answers 503, so nobody reads a half-built graph.
"""

from __future__ import annotations

import json
from datetime import timedelta

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UnsetType

from brain.api.auth import Principal
from brain.api.context import Context, Services
from brain.api.loaders import Loaders
from brain.api.web import graphql_page, wants_html_page

NOT_READY = "brain is still reading the workspace: retry when /healthz says ready"


class BrainGraphQL(GraphQL[Context, None]):
    def __init__(self, schema: BaseSchema, services: Services) -> None:
        super().__init__(
            schema,
            graphql_ide="graphiql" if services.settings.dev else None,
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            connection_init_wait_timeout=timedelta(seconds=10),
            max_subscriptions_per_connection=50,
            allowed_origins=services.settings.allowed_origins,
        )
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.services.settings.dev and wants_html_page(
            Headers(scope=scope).get("accept", ""), scope.get("query_string", b""), scope["method"]
        ):
            await graphql_page()(scope, receive, send)
            return
        if not self.services.brain.ready:
            await _not_ready(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        websocket = isinstance(request, WebSocket)
        principal: Principal | None = request.scope.get("state", {}).get("principal")
        return Context(
            services=self.services,
            loaders=Loaders(self.services.brain.store, cache=not websocket),
            principal=principal,
            request=request,
            response=response,
        )

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        tokens = self.services.tokens
        principal = tokens.principal_for_connection_params(context.connection_params)
        if principal is None and context.principal is not None:
            principal = context.principal  # a valid token on the handshake itself
        if principal is None:
            raise ConnectionRejectionError(
                {"reason": "a bearer token is required: send connection_init with "
                 "payload {\"Authorization\": \"Bearer <token>\"}"}
            )
        context.principal = principal
        return await super().on_ws_connect(context)


async def _not_ready(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        # 1013: "try again later"; closing before accept refuses the handshake.
        await WebSocket(scope, receive, send).close(code=1013, reason=NOT_READY)
        return
    body = json.dumps({"errors": [{"message": NOT_READY}]})
    response = Response(body, status_code=503, media_type="application/json",
                        headers={"Retry-After": "1"})
    await response(scope, receive, send)
