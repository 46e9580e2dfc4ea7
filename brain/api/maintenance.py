"""Maintenance and consolidation over HTTP and GraphQL (design.md section 10).

    POST /api/memory/consolidate {"scope": "shared"}      run the model pass; answers its report
         (with Accept: application/x-ndjson: one progress event per line, the report last)
    query        { maintenanceReport(scope: "writer") { summary findings { code path reason } } }
    mutation     { consolidateMemory(scope: "writer") { status summary paths review } }
    subscription { memoryConsolidation(scope: "writer") { kind text report { status } } }

Thin: the rules (who may, which scope, what is configured) are `brain.maintain.access`'s.
A run blocks a worker thread, never the event loop; a subscriber that goes away cancels the
run before its next turn.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

import strawberry
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from strawberry.scalars import JSON

from brain.api.graph.paging.links import PAGE
from brain.api.graph.paging.lists import keyed_cursor, keyed_page
from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field, subscription
from brain.api.graphql.loaders import in_thread
from brain.api.http import jsonbody
from brain.api.http.auth import actor_of
from brain.api.rest import BASE
from brain.maintain.access import Busy, MaintenanceRefused, maintenance_report, start_consolidation
from brain.maintain.consolidation.run import Consolidation, ConsolidationReport
from brain.maintain.findings import Finding, MaintenanceReport

MAX_BODY = 4096


# ---------------------------------------------------------------------- REST


def routes() -> list[BaseRoute]:
    return [Route(BASE + "/consolidate", consolidate_endpoint, methods=["POST"])]


async def consolidate_endpoint(request: Request) -> Response:
    actor = actor_of(getattr(request.state, "principal", None), "rest")
    brain = request.app.state.services.brain
    raw = await request.body()
    try:
        if len(raw) > MAX_BODY:
            raise MaintenanceRefused("too-large", 413, f"the body is over {MAX_BODY} bytes: send the scope")
        try:
            body = jsonbody.decode_json(raw or b"{}")  # json.loads: 4 KiB of `[` was a 500
        except ValueError:
            raise MaintenanceRefused(
                "invalid-argument", 400, 'the body must be JSON: {"scope": "shared"}'
            ) from None
        scope = body.get("scope") if isinstance(body, dict) else None
        run = await in_thread(start_consolidation, brain, actor, scope)
    except MaintenanceRefused as refused:
        return JSONResponse(refused.to_json(), status_code=refused.status)
    if "application/x-ndjson" in request.headers.get("accept", ""):
        return StreamingResponse(_ndjson(run), media_type="application/x-ndjson")
    try:
        report = await in_thread(run.run)
    except Busy as exc:
        return JSONResponse({"error": {"code": "busy", "message": str(exc)}}, status_code=409)
    return JSONResponse(report.to_json())


async def _ndjson(run: Consolidation) -> AsyncIterator[bytes]:
    async for event in _events(run):
        yield json.dumps(event, ensure_ascii=False).encode() + b"\n"


async def _events(run: Consolidation) -> AsyncIterator[dict[str, Any]]:
    """The run's progress events as they happen; the last one carries the report."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def progress(event: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, event)

    async def work() -> None:
        try:
            await in_thread(run.run, progress)
        except Busy as exc:
            error = {"code": "busy", "message": str(exc)}
            queue.put_nowait({"kind": "refused", "text": str(exc), "turn": 0, "error": error})
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(work())
    try:
        while (event := await queue.get()) is not None:
            yield event
    finally:
        run.cancel()  # a client that went away stops the run before its next turn
        await asyncio.shield(task)


# ---------------------------------------------------------------------- GraphQL types


@strawberry.type(description="A memory-tool call that would fix a finding.")
class MaintenanceProposal:
    agent: str | None = strawberry.field(description="The agent whose tool takes it; null for shared.")
    command: str
    arguments: JSON
    expected_hash: str | None
    text: str = strawberry.field(description="The call as one line of JSON.")


@strawberry.type(description="One thing the deterministic pass found.")
class MaintenanceFinding:
    code: str = strawberry.field(
        description="duplicate, near-duplicate, same-name, expired-daily-note, weak-description, "
        "missing-type, fixable-link, large-note"
    )
    path: str
    scope: str
    reason: str
    safe: bool = strawberry.field(description="Whether `brain maintain --apply` carries it out.")
    line: int | None
    proposal: MaintenanceProposal
    cursor: str = strawberry.field(description="Pass as `after` for the findings after this one.")

    @classmethod
    def of(cls, f: Finding, cursor: str) -> MaintenanceFinding:
        p = f.proposal
        return cls(
            code=f.code, path=f.path, scope=f.scope, reason=f.reason, safe=f.safe, line=f.line, cursor=cursor,
            proposal=MaintenanceProposal(
                agent=p.agent, command=p.command, arguments=cast(JSON, dict(p.arguments)),
                expected_hash=p.expected_hash, text=p.text(),
            ),
        )


@strawberry.type(name="MaintenanceReport", description="What `brain maintain` would do (it changes nothing).")
class MaintenanceReportType:
    scope: str | None
    summary: str
    counts: JSON = strawberry.field(description='Findings per code, e.g. {"duplicate": 2}.')
    finding_count: int = strawberry.field(description="How many findings: `findings` pages through them.")
    report: strawberry.Private[MaintenanceReport]

    @field(description="The findings by path, line and code; a page of `first` after `after` (a "
           "finding's `cursor`): a workspace of 10,000 notes may have as many.")
    def findings(self, first: int = PAGE, after: str | None = None) -> list[MaintenanceFinding]:
        page = keyed_page(self.report.findings, _finding_key, "finding", first, after)
        return [MaintenanceFinding.of(f, keyed_cursor("finding", _finding_key(f))) for f in page]

    @classmethod
    def of(cls, report: MaintenanceReport) -> MaintenanceReportType:
        return cls(
            scope=report.scope, summary=report.summary(), counts=cast(JSON, report.counts()),
            finding_count=len(report.findings), report=report,
        )


def _finding_key(finding: Finding) -> tuple[str, int, str, str]:
    return (finding.path, finding.line or 0, finding.code, finding.reason)


@strawberry.type
class TokenUsage:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@strawberry.type(
    name="ConsolidationReport",
    description="How a consolidation ended: what changed, where, and what to look at.",
)
class ConsolidationReportType:
    scope: str
    status: str = strawberry.field(
        description="done, turn-cap, endpoint-error, malformed-answer or cancelled"
    )
    message: str
    summary: str = strawberry.field(description="The model's own report.")
    paths: list[str] = strawberry.field(description="Files touched, relative to the workspace.")
    changes: JSON
    review: list[str] = strawberry.field(description="What a human should look at, beyond the summary.")
    turns: int
    usage: TokenUsage
    run: str | None = strawberry.field(
        default=None, description="The run's id: each change it made is recorded with it (`changes`).",
    )

    @classmethod
    def of(cls, data: dict[str, Any]) -> ConsolidationReportType:
        usage = data["usage"]
        return cls(
            scope=data["scope"], status=data["status"], message=data["message"], summary=data["summary"],
            paths=data["paths"], changes=cast(JSON, data["changes"]), review=data["review"],
            turns=data["turns"], run=data.get("run"),
            usage=TokenUsage(
                prompt_tokens=usage["promptTokens"], completion_tokens=usage["completionTokens"],
                total_tokens=usage["totalTokens"],
            ),
        )


@strawberry.type(description="One step of a running consolidation; the last carries the report.")
class ConsolidationEvent:
    kind: str = strawberry.field(description="started, usage, tool-call, finished (or refused)")
    text: str
    turn: int
    ok: bool | None = strawberry.field(description="For tool-call: whether the call worked.")
    usage: TokenUsage | None
    report: ConsolidationReportType | None

    @classmethod
    def of(cls, event: dict[str, Any]) -> ConsolidationEvent:
        usage = event.get("usage")
        return cls(
            kind=event["kind"], text=event["text"], turn=event.get("turn", 0), ok=event.get("ok"),
            usage=None if usage is None else TokenUsage(
                prompt_tokens=usage["promptTokens"], completion_tokens=usage["completionTokens"],
                total_tokens=usage["totalTokens"],
            ),
            report=ConsolidationReportType.of(event["report"]) if "report" in event else None,
        )


def _report_json(report: ConsolidationReport) -> dict[str, Any]:
    return report.to_json()


# ---------------------------------------------------------------------- GraphQL fields


def _actor(info: Info) -> Any:
    return actor_of(info.context.principal, "graphql")


@strawberry.type
class MaintenanceQuery:
    @field(description="The deterministic pass of `brain maintain` over one scope (or all): changes nothing.")
    async def maintenance_report(self, info: Info, scope: str | None = None) -> MaintenanceReportType:
        try:
            report = await in_thread(maintenance_report, info.context.brain, _actor(info), scope)
        except MaintenanceRefused as refused:
            raise UserError(refused.message) from None
        return MaintenanceReportType.of(report)


@strawberry.type
class MaintenanceMutation:
    @field(description="Ask the configured model to tidy one scope (seeds/000 Consolidate); its report.")
    async def consolidate_memory(self, info: Info, scope: str) -> ConsolidationReportType:
        try:
            run = await in_thread(start_consolidation, info.context.brain, _actor(info), scope)
            report = await in_thread(run.run)
        except (MaintenanceRefused, Busy) as refused:
            raise UserError(str(refused)) from None
        return ConsolidationReportType.of(_report_json(report))


@strawberry.type
class MaintenanceSubscription:
    @subscription(description="Run a consolidation of one scope and follow it: calls, tokens, the report.")
    async def memory_consolidation(self, info: Info, scope: str) -> AsyncGenerator[ConsolidationEvent, None]:
        try:
            run = await in_thread(start_consolidation, info.context.brain, _actor(info), scope)
        except MaintenanceRefused as refused:
            raise UserError(refused.message) from None
        async for event in _events(run):
            yield ConsolidationEvent.of(event)
