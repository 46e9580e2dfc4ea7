"""`GET /metrics` after a scripted session: every counter moved by exactly what happened.

A real server (uvicorn on a loopback port) with tokens on; the session is a write, a
GraphQL query, a search and a refused write, over HTTP with an agent's token; the admin
scrapes before and after, and prometheus_client's parser reads both.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest

from brain.api.graphql.context import ApiSettings
from brain.api.http.auth import TokenRegistry
from brain.api.http.metrics import OPERATIONS, operation_label
from brain.config.operator import load_settings
from brain.search.service import Embedding
from brain.store.base import GraphStore
from tests.api.client import ws_session
from tests.api.conftest import ServerFactory
from tests.api.live import LiveServer, wait_for
from tests.api.metrics_client import moved, scrape, series, value
from tests.api.test_cli_serve import brain_serve, wait_for_url
from tests.mcp.conftest import http_session

ROOT = Path(__file__).resolve().parents[2]
ADMIN, AGENT = "admin-metrics-token", "bot-metrics-token"
FRESH = "---\ndescription: Fresh thoughts\ntype: project\n---\nSee [[nowhere-at-all]].\n"
SECRET = "---\ndescription: Keys\ntype: project\n---\nAKIAABCDEFGHIJKLMNOP\n"
NOTE_ROUTE = "/api/memory/{scope}/{file:path}"
CPU = "brain_process_cpu_seconds_total"


@pytest.fixture
def tokens(tmp_path: Path) -> TokenRegistry:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({AGENT: "bot"}), encoding="utf-8")
    return TokenRegistry(ADMIN, file)


def session(live: LiveServer) -> None:
    """A write, a search and a refused write as the agent `bot`; a query as the admin (the
    graph's `memory` field reads every scope)."""
    live.brain.embedding = Embedding.OFF  # keyword search: no model to load in a test
    auth = {"Authorization": f"Bearer {AGENT}"}
    with httpx.Client(base_url=live.base, headers=auth, timeout=30) as http:
        markdown = {"Content-Type": "text/markdown"}
        wrote = http.put("/api/memory/bot/fresh.md", content=FRESH, headers=markdown)
        assert wrote.status_code == 201, wrote.text
        document = (ROOT / "graphql" / "memory.graphql").read_text(encoding="utf-8")
        variables = {"scope": "bot", "name": "fresh"}
        asked = http.post("/graphql", json={"query": document, "variables": variables},
                          headers={"Authorization": f"Bearer {ADMIN}"})
        assert asked.status_code == 200, asked.text
        assert asked.json()["data"]["memory"]["name"] == "fresh", asked.text
        found = http.get("/api/memory/search", params={"q": "fresh thoughts", "mode": "keyword"})
        assert found.status_code == 200, found.text
        assert found.json()["results"], found.text
        refused = http.put("/api/memory/bot/keys.md", content=SECRET, headers=markdown)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "secret", refused.text


def test_counters_move_by_exactly_the_session(
    serve: ServerFactory, workspace: Path, store: GraphStore, tokens: TokenRegistry
) -> None:
    live = serve(workspace, store, watch=False, tokens=tokens)
    before = scrape(live.base, ADMIN)
    session(live)
    after = scrape(live.base, ADMIN)

    assert moved(before, after, "_total", "_count") == {
        series("brain_memory_writes_total", command="put", via="rest"): 1,
        series("brain_memory_refusals_total", code="secret", command="put"): 1,
        series("brain_graphql_operations_total", operation="Memory", outcome="ok"): 1,
        series("brain_graphql_operation_duration_seconds_count", operation="Memory"): 1,
        series("brain_search_queries_total", mode="keyword", ran="keyword"): 1,
        series("brain_search_duration_seconds_count", mode="keyword"): 1,
        # The accepted write's own sync; the refused one touched nothing.
        series("brain_sync_duration_seconds_count", kind="changes"): 1,
        series("brain_http_requests_total", route=NOTE_ROUTE, method="PUT", status="201"): 1,
        series("brain_http_requests_total", route=NOTE_ROUTE, method="PUT", status="422"): 1,
        series("brain_http_request_duration_seconds_count", route=NOTE_ROUTE, method="PUT"): 2,
        series("brain_http_requests_total", route="/graphql", method="POST", status="200"): 1,
        series("brain_http_request_duration_seconds_count", route="/graphql", method="POST"): 1,
        series("brain_http_requests_total", route="/api/memory/search", method="GET", status="200"): 1,
        series("brain_http_request_duration_seconds_count", route="/api/memory/search", method="GET"): 1,
        # The first scrape: counted before its last byte left, so the second one sees it.
        series("brain_http_requests_total", route="/metrics", method="GET", status="200"): 1,
        series("brain_http_request_duration_seconds_count", route="/metrics", method="GET"): 1,
        # The process' CPU seconds move on their own.
        **{k: v for k, v in moved(before, after, "_total").items() if k[0] == CPU},
    }
    # The graph's counts, read at scrape time: one note more, with one broken link.
    assert value(after, "brain_notes") == value(before, "brain_notes") + 1
    broken = {"status": "broken"}
    assert value(after, "brain_links", **broken) == value(before, "brain_links", **broken) + 1
    # Problems are recounted after a change, but no more often than keeps that under a tenth of
    # the time (brain/api/http/metrics.py): a slow store's count shows on a later scrape.
    problems = {"code": "broken-link", "severity": "error", "scope": "bot"}
    wanted = value(before, "brain_problems", **problems) + 1
    # A scrape reads the store's counts (on Neo4j, queries), and the recount waits ten times the
    # last count's own time: a check every 0.2 s, not every 10 ms (hundreds of scrapes on Neo4j),
    # for up to 2 minutes (a condition, not a time bound: at load 40 a count on Neo4j took over
    # 1.5 s, so the next was due after the 15 s the wait had).
    wait_for(lambda: value(scrape(live.base, ADMIN), "brain_problems", **problems) == wanted, "the recount",
             timeout=120, every=0.2)
    assert value(after, "brain_ready") == 1
    assert value(after, "brain_history_bytes", part="log") > value(before, "brain_history_bytes", part="log")
    assert value(after, "brain_process_resident_memory_bytes") > 0
    # No label carries a note's name or path: the series stay bounded.
    assert not [key for key in after if any("fresh" in v or "keys" in v for _, v in key[1])]


async def test_every_dashboard_expression_names_metrics_brain_exports(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    await anyio.to_thread.run_sync(session, live)
    async with http_session(live.base, AGENT) as mcp:  # and an MCP tool call
        assert (await mcp.memory(command="view", path="/memories"))[0]
    exported = {name for name, _ in scrape(live.base, ADMIN)}
    dashboard = json.loads((ROOT / "docs" / "grafana" / "brain.json").read_text(encoding="utf-8"))
    expressions = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert len(expressions) >= 25
    named: set[str] = set()
    for expr in expressions:
        bare = re.sub(r'"[^"]*"', '""', expr)
        names = set(re.findall(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*\{", bare))
        assert names, f"{expr}: names no metric"
        # Every metric-like word is a selector with its job matcher, so none escapes the check.
        assert set(re.findall(r"\b(?:brain|process)_\w+", bare)) == names, expr
        named |= names
    missing = {n for n in named if n not in exported}
    assert not missing, f"the dashboard asks for metrics brain does not export: {sorted(missing)}"
    # And each group of metrics has a panel.
    groups = ("brain_notes", "brain_links", "brain_problems", "brain_sync_duration_seconds",
              "brain_watcher_events_total", "brain_watcher_lag_seconds", "brain_http_requests_total",
              "brain_graphql_operations_total", "brain_mcp_tool_calls_total", "brain_search_queries_total",
              "brain_subscriptions", "brain_memory_writes_total", "brain_memory_refusals_total",
              "brain_history_bytes", "brain_embedding_queue_length", "brain_process_resident_memory_bytes")
    assert [g for g in groups if not any(n.startswith(g) for n in named)] == []


async def test_operations_over_the_websocket_are_counted_too(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    """A query, a refused query and a subscription over graphql-transport-ws move the same
    series as over HTTP; the subscription has no duration (its life is the client's)."""
    live = serve(workspace, watch=False, tokens=tokens)
    before = await anyio.to_thread.run_sync(scrape, live.base, ADMIN)
    memory = (ROOT / "graphql" / "memory.graphql").read_text(encoding="utf-8")
    changed = (ROOT / "graphql" / "graph-changed.graphql").read_text(encoding="utf-8")
    async with ws_session(live.ws, connection_params={"Authorization": f"Bearer {ADMIN}"}) as ws:
        asked = await ws.subscribe(memory, {"scope": "shared", "name": "glossary"})
        assert "errors" not in await asked.payload()
        refused = await ws.subscribe("query Problems { noSuchField }")
        assert (await refused.next())["type"] == "error"
        events = await ws.subscribe(changed)
        await wait_for_async(lambda: value(scrape(live.base, ADMIN), "brain_subscriptions") >= 1,
                             "the subscription to be live")
        await events.complete()
        counted = series("brain_graphql_operations_total", operation="GraphChanged", outcome="ok")
        await wait_for_async(lambda: moved(before, scrape(live.base, ADMIN), "_total").get(counted) == 1,
                             "the ended subscription to be counted")
    after = await anyio.to_thread.run_sync(scrape, live.base, ADMIN)
    graphql = {k: v for k, v in moved(before, after, "_total", "_count").items() if "graphql" in k[0]}
    assert graphql == {
        series("brain_graphql_operations_total", operation="Memory", outcome="ok"): 1,
        series("brain_graphql_operation_duration_seconds_count", operation="Memory"): 1,
        series("brain_graphql_operations_total", operation="Problems", outcome="error"): 1,
        series("brain_graphql_operation_duration_seconds_count", operation="Problems"): 1,
        counted: 1,
    }


async def wait_for_async(condition: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    """`wait_for` off the event loop, whose server the condition scrapes."""
    await anyio.to_thread.run_sync(lambda: wait_for(condition, what, seconds))


def test_metrics_are_the_admins_when_tokens_are_on(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    assert httpx.get(f"{live.base}/metrics").status_code == 401
    agent = httpx.get(f"{live.base}/metrics", headers={"Authorization": f"Bearer {AGENT}"})
    assert agent.status_code == 403
    assert "BRAIN_TOKEN" in agent.json()["errors"][0]["message"]
    scrape(live.base, ADMIN)


def test_metrics_are_open_when_tokens_are_off(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, watch=False)
    assert value(scrape(live.base), "brain_ready") == 1


def test_metrics_off_means_no_route_and_no_counting(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, watch=False, settings=ApiSettings(metrics=False))
    assert httpx.get(f"{live.base}/metrics").status_code == 404
    assert live.brain.metrics is None


def test_two_servers_in_one_process_count_apart(serve: ServerFactory, workspace: Path) -> None:
    one = serve(workspace, watch=False)
    other = serve(workspace, watch=False)
    httpx.get(f"{one.base}/healthz")
    httpx.get(f"{one.base}/healthz")
    route = {"route": "/healthz", "method": "GET", "status": "200"}
    assert value(scrape(one.base), "brain_http_requests_total", **route) == 2
    assert value(scrape(other.base), "brain_http_requests_total", **route) == 0


def test_the_switch_is_an_operator_setting(tmp_path: Path) -> None:
    assert load_settings({}).serve.metrics is True
    off = load_settings({"BRAIN_METRICS": "off"})
    assert off.serve.metrics is False
    assert off.source("serve", "metrics") == "BRAIN_METRICS"
    flagged = load_settings({"BRAIN_METRICS": "off"}, flags={"serve.metrics": (True, "--metrics")})
    assert flagged.serve.metrics is True
    assert flagged.source("serve", "metrics") == "--metrics"


SWITCH = [  # `brain serve` flags, environment, and what GET /metrics answers
    ((), {}, 200), (("--no-metrics",), {}, 404), ((), {"BRAIN_METRICS": "off"}, 404),
    (("--metrics",), {"BRAIN_METRICS": "off"}, 200),  # a flag beats the environment
]


@pytest.mark.parametrize(("flags", "env", "status"), SWITCH)
def test_brain_serve_reads_the_switch_from_its_flags_and_environment(
    workspace: Path, flags: tuple[str, ...], env: dict[str, str], status: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command line as `brain serve` parses it, and the settings it serves with, in this
    process: each of the four ways to set the switch (the served route: the test below)."""
    from brain import budgets
    from brain.cli.main import build_parser
    from brain.service.options import operator_settings

    # What the command sets for its process (the environment it exports, the budgets it
    # installs) is put back after the test.
    monkeypatch.setattr(os, "environ", {k: v for k, v in os.environ.items() if k != "BRAIN_METRICS"} | env)
    monkeypatch.setattr(budgets, "_installed", budgets._installed)
    monkeypatch.setattr(budgets, "_note_budget", budgets._note_budget)
    args = build_parser().parse_args(["serve", str(workspace), "--port", "0", *flags])
    assert operator_settings(args, workspace).serve.metrics is (status == 200)


@pytest.mark.parametrize(("flags", "env", "status"), [SWITCH[2], SWITCH[3]])
def test_brain_serve_switch(
    workspace: Path, flags: tuple[str, ...], env: dict[str, str], status: int
) -> None:
    """A real `brain serve` (an interpreter, the server's imports and a first read each) for the
    two cases that tell the served route follows the settings, not the flag or the environment
    alone: the environment's off with no flag (404), and a flag that beats it (200). The parse
    of all four cases: the test above."""
    with brain_serve(str(workspace), "--port", "0", *flags, env=env) as process:
        base = wait_for_url(process).removesuffix("/graphql")
        answered = httpx.get(f"{base}/metrics")
        process.send_signal(signal.SIGINT)
        process.wait(15)
    assert answered.status_code == status
    if status == 200:
        assert "brain_notes " in answered.text


def test_operation_names_are_the_published_documents() -> None:
    documents = (ROOT / "graphql").glob("*.graphql")
    named = {m for d in documents for m in re.findall(r"^(?:query|mutation|subscription)\s+(\w+)",
                                                        d.read_text(encoding="utf-8"), re.M)}
    assert named == OPERATIONS
    assert operation_label("Memory", None) == "Memory"
    assert operation_label(None, "# a comment\nquery Memory($path: String) { x }") == "Memory"
    assert operation_label("MyOwnDashboard", None) == "other"  # a caller's name is no label
    assert operation_label(None, "{ stats { memories } }") == "other"
