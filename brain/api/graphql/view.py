"""The `/graphql` endpoint: strawberry's ASGI view with brain's context, auth and readiness.

HTTP callers are authenticated by `BearerAuthMiddleware` before they get here; WebSocket
callers prove themselves in `connection_init` (browsers cannot set headers on a WebSocket).
Until the first ingest is done the endpoint answers 503, so nobody reads a half-built graph.

Bad requests are 400s that say what is wrong, never 500s: bodies that are not UTF-8 JSON
objects, JSON nested deeper than brain's inputs need (brain/api/http/jsonbody.py), and
subscriptions sent over HTTP (they are served over the WebSocket). An operation that runs
longer than `ApiSettings.request_timeout` is stopped with 503.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import anyio
from cross_web import HTTPException
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError, MissingQueryError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.schema import BaseSchema
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UnsetType

from brain.api.graphql.context import Context, Services
from brain.api.graphql.errors import NO_QUERY, clip, clip_logged_errors, operation_error_message
from brain.api.graphql.loaders import Loaders
from brain.api.graphql.ws_counting import CountingTransportWS
from brain.api.http import jsonbody
from brain.api.http.auth import Principal
from brain.api.http.metrics import operation_label
from brain.api.http.middleware import unknown_agent_message
from brain.api.http.ui.files import graphql_page, wants_html_page
from brain.store.request_look import one_look
from brain.store.visibility import EVERYTHING, Reach

NOT_READY = "brain is still reading the workspace: retry when /healthz says ready"
SUBSCRIPTION_OVER_HTTP = (
    "subscriptions are served over the WebSocket: connect to this URL with the "
    "graphql-transport-ws protocol and send the subscription in a `subscribe` message"
)
NOT_AN_OBJECT = (
    'the body must be a JSON object: {"query": "...", "variables": {...}, "operationName": "..."}'
)
WRONG_WS_TOKEN = "the token in connection_init is not valid: check BRAIN_TOKEN or BRAIN_TOKENS_FILE"


class BrainGraphQL(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = CountingTransportWS

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
        clip_logged_errors()

    def decode_json(self, data: str | bytes) -> object:
        return jsonbody.decode_json(data)

    def parse_json(self, data: str | bytes) -> Any:
        try:
            value = jsonbody.decode_json(data)
        except json.JSONDecodeError as exc:
            raise HTTPException(400, exc.msg) from None
        if not isinstance(value, dict | list):  # a list is a batch: refused with its own message
            raise HTTPException(400, NOT_AN_OBJECT)
        return value

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        response = await super().process_result(request, result)
        errors: list[dict[str, Any]] = response.get("errors") or []  # type: ignore[assignment]
        for error in errors:
            error["message"] = clip(str(error.get("message", "")))
        return response

    async def execute_single(
        self,
        request: Request,
        request_adapter: Any,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        metrics = self.services.brain.metrics
        if metrics is None:
            return await self._execute(request_adapter, context, root_value, request_data)
        started = time.perf_counter()
        operation = operation_label(request_data.operation_name, request_data.query)
        outcome = "error"  # refused (400, 503) unless it ran without errors
        try:
            result = await self._execute(request_adapter, context, root_value, request_data)
            outcome = "error" if result.errors else "ok"
            return result
        finally:
            metrics.graphql_operations.labels(operation, outcome).inc()
            metrics.graphql_seconds.labels(operation).observe(time.perf_counter() - started)

    async def _execute(
        self, request_adapter: Any, context: Context, root_value: None, request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        allowed = OperationType.from_http(request_adapter.method) - {OperationType.SUBSCRIPTION}
        seconds = self.services.settings.request_timeout
        try:
            # One look at the graph's version for the whole request (brain/store/request_look.py).
            with anyio.fail_after(seconds), one_look():
                return await self.schema.execute(
                    request_data.query,
                    root_value=root_value,
                    variable_values=request_data.variables,
                    context_value=context,
                    operation_name=request_data.operation_name,
                    allowed_operation_types=allowed,
                    operation_extensions=request_data.extensions,
                )
        # The upstream execute_single (which this replaces) answered these 400 too; without
        # them a body of {"query": null} or an unknown `operationName` was a 500 and a traceback.
        except MissingQueryError:
            raise HTTPException(400, NO_QUERY) from None
        except CannotGetOperationTypeError as exc:
            raise HTTPException(400, operation_error_message(exc)) from None
        except InvalidOperationTypeError as exc:
            if exc.operation_type is OperationType.SUBSCRIPTION:
                raise HTTPException(400, SUBSCRIPTION_OVER_HTTP) from None
            raise HTTPException(400, exc.as_http_error_reason(request_adapter.method)) from None
        except TimeoutError:
            raise HTTPException(
                503, f"the operation ran longer than {seconds:g} s and was stopped: ask for less "
                "(smaller pages, fewer fields) or split it",
            ) from None

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
            loaders=Loaders(self.services.brain.store, cache=not websocket, reach=reach_of(principal)),
            principal=principal,
            request=request,
            response=response,
        )

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        tokens = self.services.tokens
        params = context.connection_params
        if tokens.required and has_token(params):
            # A token in the payload decides, even when the handshake carried a valid one.
            principal = tokens.principal_for_connection_params(params)
            if principal is None:
                raise ConnectionRejectionError({"reason": WRONG_WS_TOKEN})
        else:
            principal = tokens.principal_for_connection_params(params)
            if principal is None:
                principal = context.principal  # a valid token on the handshake itself
        if principal is None:
            raise ConnectionRejectionError(
                {"reason": "a bearer token is required: send connection_init with "
                 "payload {\"Authorization\": \"Bearer <token>\"}"}
            )
        unknown = await self.services.known_agents.refused(principal)
        if unknown is not None:
            raise ConnectionRejectionError({"reason": unknown_agent_message(unknown)})
        context.principal = principal
        context.loaders = Loaders(self.services.brain.store, cache=False, reach=reach_of(principal))
        return await super().on_ws_connect(context)


def reach_of(principal: Principal | None) -> Reach:
    """What a caller's answers may show: an agent's token, its own notes and the shared ones."""
    return EVERYTHING if principal is None or principal.agent is None else Reach.of_agent(principal.agent)


def has_token(params: object) -> bool:
    """Whether a `connection_init` payload carries a token at all (`Authorization` or `token`)."""
    if not isinstance(params, dict):
        return False
    return any(isinstance(k, str) and k.lower() in ("authorization", "token") for k in params)


async def _not_ready(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        # 1013 "try again later" reaches the client only after an accept (a close before it is
        # a bare HTTP 403, which browsers log as an error): accept, then close with the reason.
        websocket = WebSocket(scope, receive, send)
        wanted = scope.get("subprotocols") or []
        protocol = GRAPHQL_TRANSPORT_WS_PROTOCOL if GRAPHQL_TRANSPORT_WS_PROTOCOL in wanted else None
        await websocket.accept(subprotocol=protocol)
        await websocket.close(code=1013, reason=NOT_READY)
        return
    body = json.dumps({"errors": [{"message": NOT_READY}]})
    response = Response(body, status_code=503, media_type="application/json",
                        headers={"Retry-After": "1"})
    await response(scope, receive, send)
