"""The write history has a size cap, per agent and per workspace (brain/tool/history/cap.py).

Before the cap, retention kept every version younger than 90 days, so one agent rewriting one
note in a loop grew `.brain/` without bound. Now a write past a cap is refused with
`history-full` on every front end (REST, GraphQL, MCP, CLI, the Space's verbs), the note is
left as it was, /healthz shows it, and retention gets to make room before anything is refused.
The caps come from the environment (brain/budgets.py), set small here.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.budgets import HISTORY_AGENT_ENV, HISTORY_WORKSPACE_ENV
from brain.cli.main import main
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.tool import memory_service
from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.calls.tool import MemoryTool
from brain.tool.layouts.space import Space
from brain.tool.service import MemoryService
from tests.api.live import live_server
from tests.mcp.conftest import TOKENS, build_workspace, http_session

NOTE = "/memories/log.md"


def body(version: int, size: int = 12_000) -> str:
    head = f"---\ndescription: Log, version {version}.\ntype: project\n---\n"
    line = f"version {version} of the log line\n"
    return head + line * ((size - len(head)) // len(line))


def assert_taught(message: str) -> None:
    assert "was NOT changed" in message
    assert HISTORY_AGENT_ENV in message
    assert "keep_days" in message


async def test_every_front_end_refuses_a_write_past_the_agent_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(HISTORY_AGENT_ENV, "20000")
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    with live_server(root, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens)) as live:
        http = httpx.Client(base_url=live.base, timeout=20, headers={"Authorization": "Bearer writer-token"})
        first = http.put("/api/memory/writer/log.md", json={"content": body(1)})
        assert first.status_code == 201, first.text
        on_disk = (root / "memory/writer/log.md").read_bytes()

        rest = http.put("/api/memory/writer/log.md", json={"content": body(2)})
        assert rest.status_code == 507, rest.text
        assert rest.json()["error"]["code"] == "history-full"
        assert_taught(rest.json()["error"]["message"])

        mutation = (
            f'mutation {{ memoryCreate(agent: "writer", path: "{NOTE}", fileText: {json.dumps(body(3))}) '
            "{ ok refusal { code status message } } }"
        )
        graphql = http.post("/graphql", json={"query": mutation}).json()
        assert "errors" not in graphql, graphql
        refusal = graphql["data"]["memoryCreate"]["refusal"]
        assert (refusal["code"], refusal["status"]) == ("HISTORY_FULL", 507)
        assert_taught(refusal["message"])

        async with http_session(live.base, "writer-token") as session:
            args = {"command": "create", "path": NOTE, "file_text": body(4)}
            ok, text, data = await session.tool("memory", args)
        assert not ok
        assert text.startswith("Refused: ")
        assert data["refusal"]["code"] == "history-full"

        code = main(["memory", "writer", "-w", str(root), "create", NOTE, "--text", body(5)])
        assert code == 1
        assert "was NOT changed" in capsys.readouterr().err

        assert (root / "memory/writer/log.md").read_bytes() == on_disk  # no front end changed it
        # Another agent has its own account; an agent at its cap can still delete.
        other = http.put("/api/memory/reviewer/log.md", json={"content": body(6)},
                         headers={"Authorization": "Bearer reviewer-token"})
        assert other.status_code == 201, other.text
        assert http.delete("/api/memory/writer/log.md").status_code == 200

        health = http.get("/healthz").json()["history"]
        assert health["agentCapBytes"] == 20000
        assert health["refusedWrites"] == 3  # REST, GraphQL, MCP here; the CLI is its own process
        assert health["agentsRefused"] == 1
        assert health["largestAgentBytes"] > 12_000
        assert health["full"] is False
        assert "writer" not in json.dumps(health)  # /healthz needs no token: no agent names


def test_the_workspace_cap_refuses_every_writer_and_health_says_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HISTORY_WORKSPACE_ENV, "30000")
    root = build_workspace(tmp_path / "ws")
    brain = Brain(root)
    brain.sync()
    tool = MemoryTool(memory_service(brain))
    assert tool.create("writer", NOTE, body(1)).ok
    assert tool.create("reviewer", NOTE, body(2)).ok
    refused = tool.create("reviewer", "/memories/more.md", body(3))
    assert refused.refusal is not None
    assert refused.refusal.code is RefusalCode.HISTORY_FULL
    assert HISTORY_WORKSPACE_ENV in refused.refusal.message
    assert not (root / "memory/reviewer/more.md").exists()
    usage = memory_service(brain).history_usage()
    assert usage.full
    assert usage.to_json()["full"] is True
    assert usage.total <= 30000


def test_retention_makes_room_before_a_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HISTORY_AGENT_ENV, "40000")
    root = build_workspace(tmp_path / "ws")
    # The operator's retention (brain.toml may not set it): one version, no days.
    monkeypatch.setenv("BRAIN_HISTORY_KEEP_VERSIONS", "1")
    monkeypatch.setenv("BRAIN_HISTORY_KEEP_DAYS", "0")
    service = MemoryService(root)
    retention = service.retention()
    assert retention is not None
    retention.grace = 0  # every version here is seconds old
    tool = MemoryTool(service)
    for version in range(1, 5):  # the fourth fits only once the first version is pruned
        result = tool.create("writer", NOTE, body(version))
        assert result.ok, result.text
    assert service.history_usage().agents["writer"] <= 40000


def test_the_space_layout_refuses_it_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HISTORY_AGENT_ENV, "20000")
    root = tmp_path / "ws"
    (root / "alice/memory").mkdir(parents=True)
    (root / "brain.toml").write_text('layout = "space"\n')
    space = Space(AgentMemory(MemoryService(root)))
    alice = Actor.of_agent("alice", "rest")
    space.call(alice, "alice", "write", {"path": "log.md", "content": body(1)})
    with pytest.raises(Refusal) as caught:
        space.call(alice, "alice", "write", {"path": "log.md", "content": body(2)})
    assert caught.value.code is RefusalCode.HISTORY_FULL
    assert (root / "alice/memory/log.md").read_text() == body(1)
