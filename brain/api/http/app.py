"""The starlette app: `/graphql`, `/healthz`, the web UI at `/`, and the live watcher in its lifespan.

`build_routes` is where other HTTP APIs join: the memory tool's REST routes (`/api/memory`,
brain/api/rest.py) are added to that list and get the same host check, cross-site check
(brain/api/http/crosssite.py) and bearer tokens.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from strawberry.schema import BaseSchema

from brain.api.changes import routes as changes_routes
from brain.api.graphql.context import Services
from brain.api.graphql.schema import build_schema
from brain.api.graphql.view import BrainGraphQL
from brain.api.http.bodylimit import BodyLimitMiddleware
from brain.api.http.crosssite import CrossSiteMiddleware
from brain.api.http.metrics import RequestMetrics, attach_metrics, metrics_routes
from brain.api.http.middleware import BearerAuthMiddleware
from brain.api.http.requestlog import RequestLogMiddleware
from brain.api.http.ui.files import OPEN_PATHS, OPEN_PREFIXES, schema_route
from brain.api.http.ui.files import routes as web_routes
from brain.api.http.ui.session import UiMark
from brain.api.layout_rest import routes as layout_routes
from brain.api.maintenance import routes as maintenance_routes
from brain.api.rest import routes as memory_routes
from brain.ingest.ingester import Progress, SyncResult
from brain.mcp.transports.deferred import DeferredMcp
from brain.tool import memory_service

GRAPHQL_PATH = "/graphql"
logger = logging.getLogger("brain.api")


def healthz(request: Request) -> JSONResponse:
    """Ready (200) once the first ingest is done (or the snapshot is loaded: `checkingFiles`
    until its rescan ends); 503 before. While the watcher's syncs fail, 503 with the reason:
    `failed` (a failed sync forgets what it read, and the next one reads everything) or
    `degraded` (a read-only brain still answers, but no longer follows the disk); before,
    it said `starting` or `ready` meanwhile. Reports the watcher's activity."""
    services: Services = request.app.state.services
    ready = services.brain.ready
    watcher = services.watcher
    sync_error = watcher.sync_error if watcher is not None else None
    error = services.failure or sync_error
    status = ("degraded" if sync_error else "ready") if ready else "failed" if error else "starting"
    body: dict[str, object] = {
        "status": status,
        "error": error,
        "lastSyncAt": _iso(services.brain.last_sync),
        # Started from the snapshot, answering from its graph while the files are checked.
        "checkingFiles": services.brain.checking,
        "watcher": None if watcher is None else {
            "running": watcher.running,
            "lastEventAt": _iso(watcher.last_event_at),
            "lastRescanAt": _iso(watcher.last_rescan_at),
            "events": watcher.events,
            "error": watcher.error,
            "syncError": watcher.sync_error,
        },
        "subscriptions": services.hub.subscribers,
        "search": _search_health(services),
        "layout": services.brain.layout_choice.name,
        "layoutReason": services.brain.layout_choice.describe(),
        "history": _history_health(services),
    }
    return JSONResponse(body, status_code=200 if status == "ready" else 503)


def _history_health(services: Services) -> dict[str, object] | None:
    """What the write history keeps against its caps (BRAIN_HISTORY_*_BYTES); `full` or
    `fullAgents` means memory writes are being refused with `history-full`."""
    try:
        return memory_service(services.brain).history_usage().to_json()
    except OSError as exc:  # a health check never fails on the history's disk
        logger.warning("could not measure the write history: %s", exc)
        return None


def _search_health(services: Services) -> dict[str, object] | None:
    search = services.brain.search_if_started
    if search is None:
        return None
    status = search.status()
    return {"semantic": status.state, "embedded": status.done, "pending": status.pending,
            "message": status.describe()}


def build_routes(services: Services, schema: BaseSchema) -> list[BaseRoute]:
    graphql = BrainGraphQL(schema, services)
    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route(GRAPHQL_PATH, graphql, methods=["GET", "POST"]),
        WebSocketRoute(GRAPHQL_PATH, graphql),
        *memory_routes(),
        *changes_routes(),
        *layout_routes(),
        *maintenance_routes(),
        *web_routes(),
        schema_route(schema.as_str()),
    ]


def create_app(
    services: Services,
    *,
    schema: BaseSchema | None = None,
    extra_routes: Sequence[BaseRoute] = (),
    progress: Progress | None = None,
    on_ready: Callable[[SyncResult], None] | None = None,
    on_failure: Callable[[BaseException], None] | None = None,
) -> Starlette:
    """The app. With a watcher in `services`, its lifespan reads and follows the workspace."""
    settings = services.settings
    schema = schema or build_schema(dev=settings.dev, limits=settings.limits)
    # MCP at /mcp (streamable HTTP), same tokens; its SDK is imported once the graph is ready.
    mcp = DeferredMcp(services)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        services.hub.start()
        stop = anyio.Event()
        try:
            async with anyio.create_task_group() as tg:
                if services.watcher is not None:
                    ready = _start_search(services, on_ready)
                    tg.start_soon(_run_watcher, services, stop, progress, ready, on_failure)
                async with mcp.running():
                    yield
                stop.set()
        finally:
            services.hub.stop()

    routes = [*build_routes(services, schema), *mcp.routes(), *extra_routes]
    counting: list[Middleware] = []
    if settings.metrics:  # outermost: refusals at the door are requests too
        routes.extend(metrics_routes())
        counting.append(Middleware(RequestMetrics, metrics=attach_metrics(services), routes=routes))
    app = Starlette(
        routes=routes,
        middleware=[
            # First: every line the rest logs carries the request's id (brain/logs.py).
            Middleware(RequestLogMiddleware, every=settings.log_requests or settings.dev),
            *counting,
            Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts)),
            Middleware(BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes),
            *_cors(settings.allowed_origins),
            # Every state-changing route, present and future: no other site's page gets through.
            Middleware(CrossSiteMiddleware, allowed_origins=settings.allowed_origins),
            Middleware(
                BearerAuthMiddleware,
                tokens=services.tokens,
                open_paths=("/healthz", *OPEN_PATHS),
                open_prefixes=OPEN_PREFIXES,
                # A browser opening /graphql gets GraphiQL (--dev) or a page of links: no data.
                ide_path=GRAPHQL_PATH,
                known_agents=services.known_agents,
            ),
            # JSON shrinks five- to tenfold: the 10k-note overview is 1.2 MB plain. Big bodies
            # are compressed on a worker thread; a stream is flushed chunk by chunk (the
            # consolidation log stays live) and event streams are left alone.
            Middleware(GZipMiddleware, minimum_size=1024),
        ],
        lifespan=lifespan,
    )
    app.state.services = services
    app.state.ui_mark = UiMark(services.brain.root)  # the UI's mark outlives a restart (ui/key.py)
    return app


async def _run_watcher(
    services: Services,
    stop: anyio.Event,
    progress: Progress | None,
    on_ready: Callable[[SyncResult], None] | None,
    on_failure: Callable[[BaseException], None] | None,
) -> None:
    assert services.watcher is not None
    try:
        await services.watcher.run(stop, progress=progress, on_ready=on_ready)
    except Exception as exc:
        # The first ingest failed (e.g. the store went away): say so on /healthz and let
        # the server decide whether to stop, rather than tearing the app down mid-request.
        cause: BaseException = exc
        while isinstance(cause, BaseExceptionGroup) and len(cause.exceptions) == 1:
            cause = cause.exceptions[0]  # the watcher's task group wraps what went wrong
        logger.error("reading the workspace failed", exc_info=cause)
        services.failure = f"reading the workspace failed: {cause}"
        if on_failure is not None:
            on_failure(cause)


def _start_search(
    services: Services, on_ready: Callable[[SyncResult], None] | None
) -> Callable[[SyncResult], None]:
    """After the first ingest, load the search model and embed in the background (brain/search)."""

    def ready(result: SyncResult) -> None:
        threading.Thread(target=lambda: services.brain.search, name="brain-search-start", daemon=True).start()
        if on_ready is not None:
            on_ready(result)

    return ready


def _cors(origins: Sequence[str]) -> list[Middleware]:
    """Cross-origin dashboards: answered before the token check, since preflights carry none."""
    if not origins:
        return []
    return [Middleware(
        CORSMiddleware,
        allow_origins=list(origins),
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
        max_age=600,
    )]


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC).isoformat()
