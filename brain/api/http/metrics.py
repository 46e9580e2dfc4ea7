"""`GET /metrics`: the server's counters and the graph's counts, in Prometheus' text format.

The counters and histograms live in the brain's `Metrics` (brain/metrics.py) and are moved on
the hot paths. What the graph holds is read at scrape time by `GraphCollector`, from counts
the store keeps as links come and go (`GraphStore.stats`): no walk of the graph per scrape.
Problems by code and scope are the exception, as no store keeps them counted: they are
recounted only after the graph changed, and no more often than keeps that recount under a
tenth of the time (a 100k-note recount of half a second is redone at most every five seconds).

Who may scrape: with tokens on, the admin's token only (an agent's token would learn every
scope's counts); with tokens off, anyone who may reach the port, like the rest of the API.

`RequestMetrics` labels each HTTP request by its route's template (`/api/memory/{scope}`),
never by the path asked for, which names a note.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brain.api.graphql.context import Services
from brain.api.http.auth import Principal
from brain.metrics import Metrics, bounded
from brain.model import LinkStatus, Problem

METRICS_PATH = "/metrics"
ADMIN_ONLY = (
    "/metrics is the admin's: it counts every scope. Scrape it with BRAIN_TOKEN (or a token "
    'whose entry in BRAIN_TOKENS_FILE is "*")'
)
#: The operations of the published documents (graphql/*.graphql): dashboards send these names.
#: tests/api/test_metrics.py checks this list against the documents.
OPERATIONS = frozenset({
    "AgentsOverview", "ChangeDigest", "ClusterNotes", "Entities", "GraphChanged", "GraphClusters",
    "LinkReport", "MaintenanceReport", "MemoriesPage", "Memory", "MemoryHealth", "Neighborhood",
    "Problems",
})
_FIRST_OPERATION = re.compile(r"\b(?:query|mutation|subscription)\s+([_A-Za-z]\w*)")
UNMATCHED = "unmatched"  # a request no route answers (404s): one label for all of them
NO_SCOPE = "-"  # a problem of no agent's folder (brain.toml, a file at the root)
# Problems by code and scope are recounted at most this share of the time.
RECOUNT_SHARE = 0.1


def operation_label(name: str | None, query: str | None) -> str:
    """The operation's name if it is a published document's, else `other`. Without an
    `operationName`, the document's first operation names it (as strawberry runs it)."""
    if name is None and query:
        found = _FIRST_OPERATION.search(query, 0, 4096)
        name = found.group(1) if found else None
    return bounded(name, OPERATIONS)


def metrics_endpoint(request: Request) -> Response:
    services: Services = request.app.state.services
    metrics = services.brain.metrics
    principal: Principal | None = request.scope.get("state", {}).get("principal")
    if principal is None or not principal.is_admin:
        return JSONResponse({"errors": [{"message": ADMIN_ONLY}]}, status_code=403)
    assert metrics is not None  # the route exists only when metrics are on
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)


def metrics_routes() -> list[BaseRoute]:
    return [Route(METRICS_PATH, metrics_endpoint, methods=["GET"])]


class RouteTemplates:
    """The template of the route that answers a request: by its endpoint where one route has
    it, else by Starlette's own matching among the routes (404s and refusals at the door)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = [r for r in routes if hasattr(r, "path")]
        by_endpoint: dict[int, list[BaseRoute]] = {}
        for route in self.routes:
            endpoint = getattr(route, "endpoint", None)
            if endpoint is not None:
                by_endpoint.setdefault(id(endpoint), []).append(route)
        self._single = {key: _path(rs[0]) for key, rs in by_endpoint.items() if len(rs) == 1}
        self._shared = {key: rs for key, rs in by_endpoint.items() if len(rs) > 1}

    def of(self, scope: Scope) -> str:
        endpoint = scope.get("endpoint")
        if endpoint is not None:
            found = self._single.get(id(endpoint))
            if found is not None:
                return found
        candidates = self._shared.get(id(endpoint), self.routes) if endpoint is not None else self.routes
        partial = None
        for route in candidates:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return _path(route)
            if match is Match.PARTIAL and partial is None:
                partial = _path(route)  # the path matched; the method did not
        return partial or UNMATCHED


def _path(route: BaseRoute) -> str:
    return str(getattr(route, "path", ""))  # every route with a path: Route, WebSocketRoute, Mount


class RequestMetrics:
    """Counts and times every HTTP request by route template, method and status."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.metrics = metrics
        self.templates = RouteTemplates(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # an exception before the answer started is a 500 to the client
        counted = False

        def count() -> None:
            nonlocal counted
            counted = True
            route = self.templates.of(scope)
            method = bounded(scope.get("method"), _METHODS)
            self.metrics.http_requests.labels(route, method, str(status)).inc()
            self.metrics.http_seconds.labels(route, method).observe(time.perf_counter() - started)

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                # Before the last chunk leaves: a client that has its answer sees it counted.
                count()
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if not counted:
                count()


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})


class GraphCollector(Collector):
    """The graph's counts, the subscriptions, the history's size and the embedding queue,
    read when scraped."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._lock = threading.Lock()
        self._problems: Counter[tuple[str, str, str]] = Counter()
        self._counted_at: int | None = None  # Brain.changes when last counted
        self._next_count = 0.0  # monotonic time before which no recount starts

    def collect(self) -> Iterable[Metric]:
        brain = self.services.brain
        yield _gauge("brain_ready", "1 once the graph is read and the API answers.", int(brain.ready))
        yield _gauge("brain_subscriptions", "Live change subscriptions (GraphQL graphChanged, MCP).",
                     self.services.hub.subscribers)
        if brain.ready:
            yield from self._graph()
        yield from self._history()
        search = brain.search_if_started
        if search is not None:
            yield _gauge("brain_embedding_queue_length", "Notes waiting for an embedding vector.",
                         search.status().pending)

    def _graph(self) -> Iterable[Metric]:
        stats = self.services.brain.stats()
        yield _gauge("brain_notes", "Notes (memories) in the graph.", stats.memories)
        yield _gauge("brain_agents", "Agents in the graph.", stats.agents)
        links = GaugeMetricFamily("brain_links", "Wikilinks in the graph, by status.", labels=["status"])
        resolved = stats.links - stats.broken - stats.ambiguous - stats.missing_anchor
        for status, n in ((LinkStatus.RESOLVED, resolved), (LinkStatus.BROKEN, stats.broken),
                          (LinkStatus.AMBIGUOUS, stats.ambiguous),
                          (LinkStatus.MISSING_ANCHOR, stats.missing_anchor)):
            links.add_metric([status.value], n)
        yield links
        yield _gauge("brain_unresolved_targets", "Link targets no note answers.", stats.unresolved)
        problems = GaugeMetricFamily(
            "brain_problems", "Problems `brain check` reports, by code, severity and scope (agent).",
            labels=["code", "severity", "scope"])
        for (code, severity, scope), n in sorted(self._counted_problems().items()):
            problems.add_metric([code, severity, scope], n)
        yield problems

    def _counted_problems(self) -> Counter[tuple[str, str, str]]:
        brain = self.services.brain
        with self._lock:  # two scrapes at once count once
            now = time.monotonic()
            if self._counted_at == brain.changes or (self._counted_at is not None and now < self._next_count):
                return self._problems
            changes = brain.changes
            self._problems = count_problems(brain.problems(), brain.layout.scope_folder)
            took = time.monotonic() - now
            self._counted_at, self._next_count = changes, now + took / RECOUNT_SHARE
            return self._problems

    def _history(self) -> Iterable[Metric]:
        from brain.tool import memory_service

        try:
            usage = memory_service(self.services.brain).history_usage()
        except OSError:
            return  # /healthz says it; a scrape never fails on the history's disk
        history = GaugeMetricFamily("brain_history_bytes", "Bytes the write history keeps, by part.",
                                    labels=["part"])
        history.add_metric(["log"], usage.log_bytes)
        history.add_metric(["blobs"], usage.blob_bytes)
        yield history
        yield _gauge("brain_history_cap_bytes", "The history's cap for the whole workspace.",
                     usage.caps.workspace_bytes)


def count_problems(
    problems: Iterable[Problem], place: Callable[[str], tuple[str, str] | None],
) -> Counter[tuple[str, str, str]]:
    """Problems by (code, severity, scope): the scope is the agent whose folder the file is in."""
    scopes: dict[str, str] = {}  # a folder's files share their scope: one lookup per path
    counts: Counter[tuple[str, str, str]] = Counter()
    for p in problems:
        scope = scopes.get(p.path)
        if scope is None:
            found = place(p.path)
            scope = scopes[p.path] = found[0] if found else NO_SCOPE
        counts[(p.code, p.severity.value, scope)] += 1
    return counts


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def attach_metrics(services: Services) -> Metrics:
    """The brain's metrics (made if it has none), with this server's collector added."""
    brain = services.brain
    metrics = brain.metrics if brain.metrics is not None else Metrics()
    brain.metrics = metrics
    metrics.scrape_with(GraphCollector(services))
    search = brain.search_if_started
    if search is not None:
        search.metrics = metrics
    return metrics


__all__ = ["GraphCollector", "RequestMetrics", "attach_metrics", "metrics_routes", "operation_label"]
