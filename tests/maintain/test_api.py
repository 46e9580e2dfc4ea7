"""REST, GraphQL and the subscription over a real `brain serve` app (uvicorn on a loopback port)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.config.operator import load_settings
from brain.store.memory.store import MemoryStore
from tests.api.client import post, ws_session
from tests.api.live import LiveServer, live_server
from tests.maintain.chat_server import ChatServer, calls, chat_server, final
from tests.maintain.conftest import note, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
FILES: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-a.md": (STYLE, 5),
    "memory/writer/style-b.md": (STYLE, 1),
    "memory/shared/tone.md": note("Tone.", "Plain words.", "user"),
}
TOKENS = {"writer-token": "writer", "root-token": "*"}
SCRIPT = [calls({"command": "delete", "path": "/memories/style-a.md"}), final("Changed:\n- a duplicate")]


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with chat_server(list(SCRIPT)) as server:
        yield server


def _serve(tmp_path: Path, url: str | None, tokens: bool = False) -> Any:
    root = workspace_with(tmp_path / "ws", FILES)
    operator = load_settings(
        {"BRAIN_CONSOLIDATE_URL": url, "BRAIN_CONSOLIDATE_MODEL": "m"} if url is not None else {}
    )
    registry = None
    if tokens:
        (tmp_path / "tokens.json").write_text(json.dumps(TOKENS))
        registry = TokenRegistry(None, tmp_path / "tokens.json")
    return live_server(root, MemoryStore(), tokens=registry, operator=operator)


def _consolidate(live: LiveServer, body: Any, token: str | None = None, **headers: str) -> httpx.Response:
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{live.base}/api/memory/consolidate", json=body, headers=headers, timeout=60)


def test_rest_consolidate_answers_the_report_and_paths(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url) as live:
        response = _consolidate(live, {"scope": "writer"})
        assert response.status_code == 200, response.text
        report = response.json()
        assert report["status"] == "done"
        assert report["paths"] == ["memory/writer/style-a.md"]
        assert report["summary"] == "Changed:\n- a duplicate"
        assert not (live.brain.root / "memory/writer/style-a.md").exists()
        # The graph followed: the memory is gone from the API at once.
        gone = httpx.get(f"{live.base}/api/memory/writer/style-a.md")
        assert gone.status_code == 404


def test_rest_consolidate_streams_progress_as_ndjson(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url) as live:
        response = _consolidate(live, {"scope": "writer"}, Accept="application/x-ndjson")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        events = [json.loads(line) for line in response.text.splitlines()]
    kinds = [e["kind"] for e in events]
    assert kinds == ["started", "usage", "tool-call", "usage", "finished"]
    assert events[2]["ok"] is True
    assert events[-1]["report"]["paths"] == ["memory/writer/style-a.md"]


@pytest.mark.parametrize(
    ("body", "token", "status", "code"),
    [
        ({"scope": "nobody"}, None, 404, "not-found"),
        ({}, None, 400, "invalid-argument"),
        ("writer", None, 400, "invalid-argument"),
        ({"scope": "shared"}, "writer-token", 403, "forbidden"),
        ({"scope": "reviewer"}, "writer-token", 404, "not-found"),
    ],
)
def test_rest_consolidate_refusals(
    tmp_path: Path, chat: ChatServer, body: Any, token: str | None, status: int, code: str
) -> None:
    with _serve(tmp_path, chat.url, tokens=token is not None) as live:
        response = _consolidate(live, body, token)
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
    assert chat.requests == []  # the model was never asked


def test_rest_consolidate_without_an_endpoint(tmp_path: Path) -> None:
    with _serve(tmp_path, None) as live:
        before = {p: p.read_bytes() for p in (live.brain.root / "memory").rglob("*.md")}
        response = _consolidate(live, {"scope": "writer"})
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "not-configured"
        assert "nothing was changed" in error["message"]
        assert {p: p.read_bytes() for p in (live.brain.root / "memory").rglob("*.md")} == before


def test_an_agent_consolidates_its_own_scope(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url, tokens=True) as live:
        response = _consolidate(live, {"scope": "writer"}, "writer-token")
        assert response.status_code == 200, response.text
        history = httpx.get(
            f"{live.base}/api/memory-history", headers={"Authorization": "Bearer writer-token"}
        ).json()["records"]
    assert [(r["command"], r["actor"], r["via"]) for r in history] == [
        ("delete", "agent:writer", "consolidate")
    ]


REPORT = """query($scope: String) {
  maintenanceReport(scope: $scope) {
    scope summary counts
    findings { code path reason safe proposal { agent command arguments expectedHash text } }
  }
}"""
MUTATION = """mutation($scope: String!) {
  consolidateMemory(scope: $scope) { status summary paths review turns usage { totalTokens } }
}"""
SUBSCRIPTION = """subscription($scope: String!) {
  memoryConsolidation(scope: $scope) { kind text turn ok usage { totalTokens } report { status paths } }
}"""


async def test_graphql_report_and_mutation(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url) as live:
        async with httpx.AsyncClient(timeout=60) as client:
            found = await post(client, live.graphql, REPORT, {"scope": "writer"})
            report = found["data"]["maintenanceReport"]
            assert report["counts"] == {"duplicate": 1}
            (finding,) = report["findings"]
            assert finding["proposal"]["arguments"] == {"path": "/memories/style-a.md"}
            assert finding["proposal"]["agent"] == "writer"
            assert finding["safe"] is True
            assert (live.brain.root / "memory/writer/style-a.md").exists()  # a report changes nothing

            done = await post(client, live.graphql, MUTATION, {"scope": "writer"})
            result = done["data"]["consolidateMemory"]
            assert result["status"] == "done"
            assert result["paths"] == ["memory/writer/style-a.md"]
            assert result["usage"]["totalTokens"] == 240

            again = await post(client, live.graphql, REPORT, {"scope": "writer"})
            assert again["data"]["maintenanceReport"]["findings"] == []


async def test_graphql_refusals_are_errors(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url, tokens=True) as live:
        async with httpx.AsyncClient(timeout=60) as client:
            everything = await post(client, live.graphql, REPORT, {}, token="writer-token")
            assert "sees the report of one scope" in everything["errors"][0]["message"]
            shared = await post(client, live.graphql, MUTATION, {"scope": "shared"}, token="writer-token")
            assert "needs an admin token" in shared["errors"][0]["message"]


async def test_subscription_streams_the_run(tmp_path: Path, chat: ChatServer) -> None:
    with _serve(tmp_path, chat.url) as live:
        async with ws_session(live.ws) as session:
            stream = await session.subscribe(SUBSCRIPTION, {"scope": "writer"})
            events = []
            while True:
                message = await stream.next(timeout=30)
                if message["type"] != "next":
                    break
                events.append(message["payload"]["data"]["memoryConsolidation"])
    assert message["type"] == "complete"
    assert [e["kind"] for e in events] == ["started", "usage", "tool-call", "usage", "finished"]
    assert events[-1]["report"] == {"status": "done", "paths": ["memory/writer/style-a.md"]}
    assert events[-1]["usage"]["totalTokens"] == 240



@pytest.mark.parametrize("front_end", ["rest", "graphql"])
def test_the_workspaces_brain_toml_never_names_the_endpoint(
    tmp_path: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch, front_end: str
) -> None:
    """An agent that can write the workspace writes brain.toml pointing consolidation at its
    collector, with the admin token as the key, then asks for a run with its own token: the
    run goes to the operator's endpoint (or nowhere), and the admin token goes nowhere."""
    monkeypatch.setenv("BRAIN_TOKEN", "admin-secret")
    with chat_server([final("never asked")]) as collector:
        for operator_url in (chat.url, None):
            base = tmp_path / ("operator" if operator_url else "none")
            server = _serve(base, operator_url, tokens=True)  # the workspace is written now
            (base / "ws" / "brain.toml").write_text(
                f'[consolidate]\nurl = "{collector.url}"\nmodel = "m"\napi_key_env = "BRAIN_TOKEN"\n'
            )
            with server as live:
                if front_end == "rest":
                    response = _consolidate(live, {"scope": "writer"}, "writer-token")
                    ran, text = response.status_code == 200, response.text
                else:
                    answer = httpx.post(
                        live.graphql, json={"query": MUTATION, "variables": {"scope": "writer"}},
                        headers={"Authorization": "Bearer writer-token"}, timeout=60,
                    )
                    ran, text = "errors" not in answer.json(), answer.text
            assert ran == bool(operator_url), text
            if not operator_url:
                assert "no model endpoint is configured" in text
        assert collector.requests == []
    assert len(chat.requests) == 2  # the operator's endpoint did the one run
    assert all("admin-secret" not in json.dumps(headers) for headers in chat.headers)
