"""What changed between two moments, over HTTP: GraphQL `changes` and `GET /api/changes`, and
the weekly digest a dashboard shows: GraphQL `changeDigest` and `GET /api/changes/digest`.

    query { changes(since: "7d", agent: "writer") }
    GET /api/changes?since=2026-12-01T00:00:00Z&until=24h&agent=writer
    query { changeDigest(weeks: 8) { start notesChanged byOrigin { origin count } } }
    GET /api/changes/digest?weeks=8&agent=writer

Both answer the JSON of `brain diff --format json` (brain/tool/diff/changes.py), computed
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
from brain.tool.diff.query import memory_changes, memory_digest

CHANGES = "/api/changes"
DIGEST = "/api/changes/digest"


def routes() -> list[BaseRoute]:
    return [
        Route(CHANGES, changes_endpoint, methods=["GET"]),
        Route(DIGEST, digest_endpoint, methods=["GET"]),
    ]


async def digest_endpoint(request: Request) -> Response:
    principal: Principal | None = getattr(request.state, "principal", None)
    params = request.query_params
    service = memory_service(request.app.state.services.brain)
    try:
        weeks = _weeks(params.get("weeks"))
        actor = actor_of(principal, "rest")
        found = await in_thread(memory_digest, service, actor, weeks, params.get("agent"))
    except Refusal as refusal:
        return JSONResponse({"error": refusal.to_json()}, status_code=refusal.status)
    return JSONResponse({"weeks": found})


def _weeks(text: str | None) -> int:
    if text is None or not text.strip():
        return 8
    try:
        return int(text)
    except ValueError:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"`weeks` is {text[:40]!r}: give a whole number of weeks",
        ) from None


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


@strawberry.type(description="How much of the memory changed in one count, and who or what changed it.")
class OriginCount:
    origin: str = strawberry.field(description="`tool`, `ui`, `maintain`, `consolidate` or `external`.")
    count: int


@strawberry.type
class AgentCount:
    agent: str = strawberry.field(
        description="The agent, or `external`, `admin`, `anonymous` when no agent made it.",
    )
    count: int


@strawberry.type(
    description="One ISO week of change (Monday 00:00 UTC to the next; the current week ends now).",
)
class ChangeWeek:
    start: str
    end: str
    notes_added: int
    notes_removed: int
    notes_changed: int
    by_origin: list[OriginCount]
    by_agent: list[AgentCount]
    links_broken: int
    links_fixed: int
    problems_new: int
    problems_gone: int
    retention: str | None = strawberry.field(
        description="Set when the week starts before the oldest record kept: earlier changes are not known.",
    )

    @classmethod
    def of(cls, week: dict[str, Any]) -> ChangeWeek:
        return cls(
            start=week["start"], end=week["end"], notes_added=week["notesAdded"],
            notes_removed=week["notesRemoved"], notes_changed=week["notesChanged"],
            by_origin=[OriginCount(origin=o["origin"], count=o["count"]) for o in week["byOrigin"]],
            by_agent=[AgentCount(agent=a["agent"], count=a["count"]) for a in week["byAgent"]],
            links_broken=week["linksBroken"], links_fixed=week["linksFixed"],
            problems_new=week["problemsNew"], problems_gone=week["problemsGone"],
            retention=week["retention"],
        )


@strawberry.type
class ChangesQuery:
    @field(description=(
        "The weekly digest of change for a dashboard: per ISO week (oldest first, the current "
        "last), notes added, removed and changed, changes by origin and by agent, links broken "
        "and fixed, problems new and gone. As far as the caller may see, like `changes`."
    ))
    async def change_digest(self, info: Info, weeks: int = 8, agent: str | None = None) -> list[ChangeWeek]:
        service = memory_service(info.context.brain)
        actor = actor_of(info.context.principal, "graphql")
        try:
            found = await in_thread(memory_digest, service, actor, weeks, agent)
        except Refusal as refusal:
            raise UserError(refusal.message) from None
        return [ChangeWeek.of(week) for week in found]

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
