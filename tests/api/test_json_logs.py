"""`brain serve --log-format json`: every line on stderr is one JSON object (time, level, event,
message, fields), every line one request caused carries that request's id, which the response
returns in `X-Request-Id`; a refused request is exactly one line and never a traceback; the
startup lines say what was loaded from where. A real server in a subprocess, real requests."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hostile.api_server import HostileServer, hostile_server


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory" / "alice").mkdir(parents=True)
    (root / "memory" / "alice" / "note.md").write_text("---\ndescription: A note.\n---\nhello [[gone]]\n")
    return root


def records(log: Path) -> list[dict[str, Any]]:
    lines = log.read_text(encoding="utf-8").splitlines()
    parsed = [json.loads(line) for line in lines]  # every line parses, or this fails
    for record in parsed:
        assert {"time", "level", "event", "message"} <= record.keys(), record
    return parsed


def settled(log: Path, count: int) -> list[dict[str, Any]]:
    """The records once at least `count` are written (a line follows its response closely)."""
    deadline = time.monotonic() + 10
    found = records(log)
    while len(found) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        found = records(log)
    return found


def logged(log: Path, request_ids: list[str]) -> list[dict[str, Any]]:
    """The records once a line of each request is written: other lines (a snapshot written,
    the watcher) may come between, so a count of lines does not say these have come."""
    deadline = time.monotonic() + 30
    found = records(log)
    while time.monotonic() < deadline and not all(
        any(r.get("request_id") == rid for r in found) for rid in request_ids
    ):
        time.sleep(0.05)
        found = records(log)
    return found


def of(found: list[dict[str, Any]], request_id: str) -> list[dict[str, Any]]:
    return [r for r in found if r.get("request_id") == request_id]


def until(log: Path, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """The records once `done(records)`, or as they are after 30 s (the asserts then say what
    is missing)."""
    deadline = time.monotonic() + 30
    found = records(log)
    while not done(found) and time.monotonic() < deadline:
        time.sleep(0.05)
        found = records(log)
    return found


def test_json_lines_carry_one_id_per_request(tmp_path: Path) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text('[log]\nformat = "json"\nrequests = true\n')
    with hostile_server(workspace(tmp_path), "--config", str(ops)) as server:
        before = len(records(server.log))
        # A GraphQL request the schema refuses: its refusal and its request line, one id.
        bad = httpx.post(server.url, json={"query": "{ stats { nope } }"}, timeout=10)
        health = httpx.get(f"{server.base}/healthz", timeout=10)
        rid_bad, rid_health = bad.headers["x-request-id"], health.headers["x-request-id"]
        # Until the lines of both requests are written (the refusal's two, the health check's
        # one): a count of all lines does not say so, since other lines (a snapshot written)
        # may come between (at load 40, /healthz's line was once not there yet after that count).
        found = until(server.log, lambda seen: [len(of(seen, r)) for r in (rid_bad, rid_health)] == [2, 1])
        assert rid_bad != rid_health
        of_bad = [r for r in found if r.get("request_id") == rid_bad]
        assert [r["event"] for r in of_bad] == ["refused", "request"], of_bad
        assert "nope" in of_bad[0]["message"]
        assert of_bad[1]["fields"]["path"] == "/graphql"
        assert of_bad[1]["fields"]["status"] == 200
        of_health = [r for r in found if r.get("request_id") == rid_health]
        assert [r["event"] for r in of_health] == ["request"], of_health
        # A caller's (or proxy's) sane id is kept; a hostile one is replaced.
        mine = httpx.get(f"{server.base}/healthz", headers={"X-Request-Id": "proxy-7f3a"}, timeout=10)
        assert mine.headers["x-request-id"] == "proxy-7f3a"
        long = httpx.get(f"{server.base}/healthz", headers={"X-Request-Id": "x" * 500}, timeout=10)
        assert long.headers["x-request-id"] != "x" * 500
        found = settled(server.log, before + 5)
        assert any(r.get("request_id") == "proxy-7f3a" for r in found)
        assert not any("x" * 500 in json.dumps(r) for r in found)
    startup = [r["message"] for r in records(server.log) if r["event"] == "startup"]
    assert startup[0] == f"config: {ops}"
    assert startup[1] == "store: memory (embedded, in this process) (default)"
    assert [line.split(":")[0] for line in startup] == ["config", "store", "ui", "native", "semantic", "log"]
    assert startup[-1] == f"log: json at info ({ops} line 2)"


@pytest.fixture(scope="module")
def json_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileServer]:
    """One `brain serve --log-format json` for the two refusal tests (a start is an interpreter,
    the server's imports and a first read): tokens on and a small history cap, which the
    refused requests' test does not reach (it writes nothing) and the cap's test needs. Each
    test reads only the lines of its own requests' ids."""
    from tests.mcp.conftest import TOKENS, build_workspace

    tmp_path = tmp_path_factory.mktemp("json-logs")
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    env = {"BRAIN_HISTORY_AGENT_BYTES": "20000", "BRAIN_TOKENS_FILE": str(tokens)}
    with hostile_server(root, "--log-format", "json", env=env) as server:
        yield server


def test_a_refused_request_is_exactly_one_line_without_a_traceback(json_server: HostileServer) -> None:
    server = json_server
    admin = {"Authorization": "Bearer admin-token"}  # a refusal of the request, not of the caller
    before = len(records(server.log))
    refusals = [
        httpx.get(f"{server.base}/api/memory/writer/absent.md", headers=admin, timeout=10),  # 404
        httpx.put(f"{server.base}/api/memory/writer/x.md", content=b"{", timeout=10,
                  headers={"content-type": "application/json", **admin}),  # 400: not JSON
        httpx.post(server.url, content=b"x" * (2 * 1024 * 1024), timeout=10,
                   headers={"content-type": "application/json", **admin}),  # 413: past the body budget
    ]
    assert [r.status_code for r in refusals] == [404, 400, 413], [r.text for r in refusals]
    found = logged(server.log, [r.headers["x-request-id"] for r in refusals])[before:]
    text = server.log.read_text()
    assert "Traceback" not in text
    for response in refusals:
        lines = [r for r in found if r.get("request_id") == response.headers["x-request-id"]]
        assert len(lines) == 1, lines
        assert lines[0]["level"] == "warning"
        assert lines[0]["event"] == "refused"
        assert lines[0]["fields"]["status"] == response.status_code
        assert lines[0]["fields"]["reason"], lines[0]  # the response's own words


def test_text_logs_stay_as_they_were(tmp_path: Path) -> None:
    with hostile_server(workspace(tmp_path)) as server:
        response = httpx.get(f"{server.base}/api/memory/alice/absent.md", timeout=10)
        rid = response.headers["x-request-id"]
        deadline = time.monotonic() + 10
        while rid not in server.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    lines = server.log.read_text().splitlines()
    assert all(line.startswith("brain serve: ") for line in lines), lines
    refused = [line for line in lines if rid in line]
    assert refused == [f"brain serve: refused GET /api/memory/alice/absent.md: 404 "
                       f"/api/memory/alice/absent.md does not exist; GET /api/memory/alice lists the "
                       f"files there are [request {rid}]"], refused
    assert "brain serve: config: no file" in lines[0]


def test_a_write_past_the_history_cap_is_one_refused_line(json_server: HostileServer) -> None:
    """507 `history-full` is the operator's budget refusing a write, not a failure of brain's."""
    from tests.hostile.test_history_cap import body

    server = json_server
    http = httpx.Client(base_url=server.base, timeout=20,
                        headers={"Authorization": "Bearer writer-token"})
    assert http.put("/api/memory/writer/log.md", json={"content": body(1)}).status_code == 201
    before = len(records(server.log))
    refused = http.put("/api/memory/writer/log.md", json={"content": body(2)})
    assert refused.status_code == 507, refused.text
    http.get("/api/memory/writer/absent.md")  # a later refusal: its line follows the first
    found = settled(server.log, before + 2)
    lines = [r for r in found if r.get("request_id") == refused.headers["x-request-id"]]
    # The cap's own line (it names the agent); the request's line does not say it again.
    assert [(r["level"], r["logger"]) for r in lines] == [("warning", "brain.tool.history.cap")], lines
    assert "writer" in lines[0]["message"]
    assert "Traceback" not in server.log.read_text()
