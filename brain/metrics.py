"""What a running brain counts, for `GET /metrics` (Prometheus' text format, docs/metrics.md).

One `Metrics` per served `Brain` (`Brain.metrics`, None when metrics are off), each with its own
`CollectorRegistry`: several brains in one process (tests, embedders) never add into each
other's counters, and prometheus_client's global registry is never touched.

It sits in the base layer because every layer counts into it: the service (syncs, the
watcher, memory writes and refusals), search (queries by mode) and the front ends (HTTP
routes, GraphQL operations, MCP tools). Hot paths only increment counters and observe
histograms; what the graph holds (notes, links, problems) is read when scraped, by a
collector the server adds (brain/api/http/metrics.py).

Every label takes its values from a closed set (`bounded`): route templates, operation
names of the published documents, tool names, refusal codes. Never a note's path or a
query's text: a series per note would grow without bound.
"""

from __future__ import annotations

from collections.abc import Collection

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

#: A label value outside its known set: counted, but under one name.
OTHER = "other"

# Request latencies: sub-millisecond lookups up to the 30 s request timeout.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Syncs and rescans: a one-file sync takes milliseconds, a first read of 100k notes minutes.
SYNC_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0,
)
# Watcher lag: the debounce (0.8 s) is the floor; past the rescan period an event was missed.
LAG_BUCKETS = (0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0, 120.0)


def bounded(value: str | None, known: Collection[str]) -> str:
    """`value` if it is one of `known`, else `other`: a label never grows past its set."""
    return value if value is not None and value in known else OTHER


class Metrics:
    """The counters and histograms of one brain, in a registry of its own."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self._scraped: Collector | None = None
        # Resident and virtual memory, CPU seconds, open files (Linux: /proc/self).
        ProcessCollector(namespace="brain", registry=r)
        self.http_requests = Counter(
            "brain_http_requests", "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"], registry=r)
        self.http_seconds = Histogram(
            "brain_http_request_duration_seconds", "Time to answer an HTTP request, by route template.",
            ["route", "method"], buckets=LATENCY_BUCKETS, registry=r)
        self.graphql_operations = Counter(
            "brain_graphql_operations", "GraphQL operations over HTTP and the WebSocket, by operation "
            "name (one of graphql/*.graphql, else `other`) and outcome (ok, error).",
            ["operation", "outcome"], registry=r)
        self.graphql_seconds = Histogram(
            "brain_graphql_operation_duration_seconds", "Time to execute a GraphQL operation.",
            ["operation"], buckets=LATENCY_BUCKETS, registry=r)
        self.mcp_calls = Counter(
            "brain_mcp_tool_calls", "MCP tool calls, by tool and outcome (ok, refused, error).",
            ["tool", "outcome"], registry=r)
        self.mcp_seconds = Histogram(
            "brain_mcp_tool_duration_seconds", "Time to answer an MCP tool call.",
            ["tool"], buckets=LATENCY_BUCKETS, registry=r)
        self.search_queries = Counter(
            "brain_search_queries", "Searches, by the mode asked for and the mode that ran "
            "(keyword while the embeddings are not ready).", ["mode", "ran"], registry=r)
        self.search_seconds = Histogram(
            "brain_search_duration_seconds", "Time to answer a search, by the mode that ran.",
            ["mode"], buckets=LATENCY_BUCKETS, registry=r)
        self.memory_writes = Counter(
            "brain_memory_writes", "Memory-tool writes that changed a file, by command and front end.",
            ["command", "via"], registry=r)
        self.memory_refusals = Counter(
            "brain_memory_refusals", "Memory-tool writes refused, by refusal code and command.",
            ["code", "command"], registry=r)
        self.sync_seconds = Histogram(
            "brain_sync_duration_seconds", "Time to apply a sync: `first` (the first read), `rescan` "
            "(a full rescan) or `changes` (named files).", ["kind"], buckets=SYNC_BUCKETS, registry=r)
        self.watcher_events = Counter(
            "brain_watcher_events", "File events the watcher received.", registry=r)
        self.watcher_lag = Histogram(
            "brain_watcher_lag_seconds", "From a file's change (its mtime, else the event's "
            "arrival) to the graph having applied it.", buckets=LAG_BUCKETS, registry=r)
        # The children of each label set, made once: `labels()` takes a lock and builds a key.
        for kind in ("first", "rescan", "changes"):
            self.sync_seconds.labels(kind)

    def scrape_with(self, collector: Collector) -> None:
        """The collector read at every scrape (the graph's counts: brain/api/http/metrics.py),
        instead of the one before: an app made again over the same brain counts once."""
        if self._scraped is not None:
            self.registry.unregister(self._scraped)
        self.registry.register(collector)
        self._scraped = collector

    def render(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)
