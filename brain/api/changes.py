"""What changed between two moments, over HTTP: GraphQL `changes` and `GET /api/changes`.

    query { changes(since: "7d", agent: "writer") }
    GET /api/changes?since=2026-12-01T00:00:00Z&until=24h&agent=writer

Both answer the JSON of `brain diff --format json` (brain/tool/history/changes.py), computed
by the one service function, as far as the caller may see: an agent's token sees its own
scope and the shared one, never another agent's notes. Behind the server's bearer auth.
"""

from __future__ import annotations

from typing import Any, cast

import strawberry
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from strawberry.scalars import JSON

from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import Principal, actor_of
from brain.tool import memory_service
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.history.query import memory_changes

CHANGES = "/api/changes"


def routes() -> list[BaseRoute]:
    return [Route(CHANGES, changes_endpoint, methods=["GET"])]


async def changes_endpoint(request: Request) -> Response:
    principal: Principal | None = getattr(request.state, "principal", None)
    params = request.query_params
    service = memory_service(request.app.state.services.brain)
    try:
        since = params.get("since")
        if not since:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT, "`since` is required: an ISO 8601 time or an age (7d, 24h)"
            )
        found = await in_thread(
            memory_changes, service, actor_of(principal, "rest"), since, params.get("until"),
            params.get("agent"),
        )
    except Refusal as refusal:
        return JSONResponse({"error": refusal.to_json()}, status_code=refusal.status)
    return JSONResponse(found)


@strawberry.type
class ChangesQuery:
    @field(description=(
        "What changed in the memory between `since` and `until` (default now), from its history: "
        "notes added, removed and changed (origin, by), links broken and fixed, problems new and "
        "gone. Times are ISO 8601 or ages (\"7d\", \"24h\"). As far as the caller may see."
    ))
    async def changes(
        self, info: Info, since: str, until: str | None = None, agent: str | None = None,
    ) -> JSON:
        service = memory_service(info.context.brain)
        actor = actor_of(info.context.principal, "graphql")
        try:
            found: dict[str, Any] = await in_thread(memory_changes, service, actor, since, until, agent)
        except Refusal as refusal:
            raise UserError(refusal.message) from None
        return cast(JSON, found)
