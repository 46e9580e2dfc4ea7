"""The model pass end to end against a local OpenAI-compatible server scripted turn by turn."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from brain.config.operator import ConsolidateConfig, OperatorSettings, load_settings
from brain.maintain.consolidation.run import Consolidation, ConsolidationReport, NotConfigured
from brain.service.brain import Brain
from brain.tool.service import MemoryService
from tests.maintain.chat_server import calls, chat_server, final, tool_call
from tests.maintain.conftest import note, open_brain, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
FILES: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-a.md": (STYLE, 5),
    "memory/writer/style-b.md": (STYLE, 1),
    "memory/writer/old.md": "# Deploy on Fridays\n\nNever.\n",
    "memory/shared/tone.md": note("Tone of every answer.", "Plain words.", "user"),
}


def config_for(url: str, **more: Any) -> OperatorSettings:
    return OperatorSettings(consolidate=ConsolidateConfig(url=url, model="test-model", **more))


def run(
    brain: Brain, service: MemoryService, scope: str, url: str, env: dict[str, str] | None = None, **more: Any
) -> tuple[ConsolidationReport, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    consolidation = Consolidation.for_brain(brain, scope, config_for(url, **more), env or {}, service=service)
    return consolidation.run(progress=events.append), events


@pytest.fixture
def ws(tmp_path: Path, history_path: Path) -> tuple[Path, Brain, MemoryService]:
    root = workspace_with(tmp_path / "ws", FILES)
    brain, service = open_brain(root, history_path)
    return root, brain, service


def test_a_run_tidies_the_scope_and_reports(ws: tuple[Path, Brain, MemoryService]) -> None:
    root, brain, service = ws
    script = [
        calls({"command": "view", "path": "/memories"}),
        calls(
            {"command": "delete", "path": "/memories/style-a.md"},
            {
                "command": "str_replace",
                "path": "/memories/old.md",
                "old_str": "# Deploy on Fridays",
                "new_str": "---\ndescription: Never deploy on Fridays.\ntype: feedback\n---\n"
                "# Deploy on Fridays",
            },
        ),
        final("Changed:\n- deleted /memories/style-a.md (duplicate)\nLook at:\n- nothing"),
    ]
    with chat_server(script) as server:
        report, events = run(
            brain, service, "writer", server.url, {"KEY_VAR": "sk-test"}, api_key_env="KEY_VAR"
        )

    assert report.status == "done"
    assert report.turns == 3
    assert report.summary.startswith("Changed:")
    assert report.touched == ["memory/writer/old.md", "memory/writer/style-a.md"]
    assert [c["command"] for c in report.changes] == ["delete", "str_replace"]
    assert report.usage.total_tokens == 3 * 120
    assert report.review == []
    assert not (root / "memory/writer/style-a.md").exists()
    assert (root / "memory/writer/old.md").read_text().startswith("---\ndescription: Never deploy")
    # What the endpoint was sent: the one tool, the model, the key, the findings to start from.
    first = server.requests[0]
    assert first["model"] == "test-model"
    assert [t["function"]["name"] for t in first["tools"]] == ["memory"]
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    opening = first["messages"][1]["content"]
    assert "duplicate /memories/style-a.md" in opening
    assert "/memories/shared" not in opening  # a private run does not even list shared notes
    # Tool results went back with their call ids; the history says who did it.
    assert server.requests[1]["messages"][-1]["role"] == "tool"
    assert server.requests[1]["messages"][-1]["content"].startswith("/memories: 3 files of scope `writer`")
    assert {(r.command, r.via) for r in service.history.records()} == {
        ("delete", "consolidate"),
        ("str_replace", "consolidate"),
    }
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "started"
    assert kinds[-1] == "finished"
    assert kinds.count("tool-call") == 3
    assert kinds.count("usage") == 3
    assert events[-1]["report"]["paths"] == report.touched


def test_bad_calls_are_refused_and_the_run_goes_on(ws: tuple[Path, Brain, MemoryService]) -> None:
    _root, brain, service = ws
    script = [
        calls(
            tool_call("{not json", call_id="c1"),
            tool_call({"command": "view", "path": "/memories"}, name="shell", call_id="c2"),
            tool_call('["view"]', call_id="c3"),
            tool_call({"command": "format_disk", "path": "/memories"}, call_id="c4"),
            tool_call({"command": "view", "path": "/memories/shared/tone.md"}, call_id="c5"),
            tool_call({"command": "view", "path": "/etc/passwd"}, call_id="c6"),
            tool_call("[" * 100_000 + "]" * 100_000, call_id="c7"),  # was a RecursionError: `error`
        ),
        final("Changed:\n- nothing\nLook at:\n- my own mistakes"),
    ]
    with chat_server(script) as server:
        report, _ = run(brain, service, "writer", server.url)
    results = {m["tool_call_id"]: m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"}
    assert set(results) == {"c1", "c2", "c3", "c4", "c5", "c6", "c7"}
    assert all(text.startswith("Refused: ") for text in results.values())
    assert "not valid JSON" in results["c1"]
    assert "no tool `shell`" in results["c2"]
    assert "JSON object" in results["c3"]
    assert "unknown command `format_disk`" in results["c4"]
    assert "outside the scope being consolidated" in results["c5"]
    assert "nested 100,000 levels deep, over the limit of 8" in results["c7"]
    assert report.status == "done"
    assert len(report.refused) == 7
    assert report.changes == []
    assert len(report.review) == 7


def test_the_turn_cap_ends_the_run_with_what_was_done(ws: tuple[Path, Brain, MemoryService]) -> None:
    _root, brain, service = ws
    script = [
        calls({"command": "delete", "path": "/memories/style-a.md"}),
        calls({"command": "view", "path": "/memories"}),  # repeated forever
    ]
    with chat_server(script, repeat_last=True) as server:
        report, _ = run(brain, service, "writer", server.url)
    assert len(server.requests) == 30
    assert report.status == "turn-cap"
    assert report.turns == 30
    assert "30 turns" in report.message
    assert report.touched == ["memory/writer/style-a.md"]
    assert report.review[0].startswith("the run ended early (turn-cap)")


def test_a_lower_cap_from_the_operator(ws: tuple[Path, Brain, MemoryService]) -> None:
    _root, brain, service = ws
    with chat_server([calls({"command": "view", "path": "/memories"})], repeat_last=True) as server:
        report, _ = run(brain, service, "writer", server.url, max_turns=3)
    assert (report.status, len(server.requests)) == ("turn-cap", 3)


@pytest.mark.parametrize(
    ("reply", "status", "message"),
    [
        (b"this is not json", "malformed-answer", "not JSON"),
        (b'{"choices": []}', "malformed-answer", "no `choices[0]`"),
        # Was a RecursionError: the run ended as `error` with a traceback in the log.
        (b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "malformed-answer",
         "nested 100,001 levels deep, over the limit of 32"),
        (b'{"choices": [{"message": {"content": "\xff"}}]}', "malformed-answer", "not JSON"),
        (
            b'{"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}',
            "malformed-answer",
            "no `function.name`",
        ),
        (500, "endpoint-error", "answered HTTP 500"),
        (401, "endpoint-error", "answered HTTP 401"),
    ],
)
def test_a_broken_endpoint_ends_cleanly_after_what_was_done(
    ws: tuple[Path, Brain, MemoryService], reply: bytes | int, status: str, message: str
) -> None:
    root, brain, service = ws
    with chat_server([calls({"command": "delete", "path": "/memories/style-a.md"}), reply]) as server:
        report, events = run(brain, service, "writer", server.url)
    assert report.status == status
    assert message in report.message
    assert report.touched == ["memory/writer/style-a.md"]
    assert not (root / "memory/writer/style-a.md").exists()
    assert events[-1]["kind"] == "finished"


def test_an_endpoint_that_is_down(ws: tuple[Path, Brain, MemoryService]) -> None:
    _root, brain, service = ws
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket is closed
    report, _ = run(brain, service, "writer", f"http://127.0.0.1:{port}/v1")
    assert report.status == "endpoint-error"
    assert "cannot reach" in report.message
    assert report.changes == []
    assert report.turns == 1


@pytest.mark.parametrize(
    ("config", "env", "message"),
    [
        (ConsolidateConfig(), {}, "no model endpoint is configured, so nothing was changed"),
        (ConsolidateConfig(url="http://127.0.0.1:9/v1"), {}, "has a url but no model"),
        (
            ConsolidateConfig(url="http://127.0.0.1:9/v1", model="m", api_key_env="MISSING_KEY"),
            {},
            'api_key_env = "MISSING_KEY", but that variable is not set',
        ),
    ],
)
def test_not_configured(
    ws: tuple[Path, Brain, MemoryService], config: ConsolidateConfig, env: dict[str, str], message: str
) -> None:
    _root, brain, service = ws
    with pytest.raises(NotConfigured) as caught:
        Consolidation.for_brain(brain, "writer", OperatorSettings(consolidate=config), env, service=service)
    assert message in str(caught.value)


def test_the_environment_configures_the_endpoint(ws: tuple[Path, Brain, MemoryService]) -> None:
    _root, brain, service = ws
    with chat_server([final("Changed:\n- nothing")]) as server:
        env = {"BRAIN_CONSOLIDATE_URL": server.url, "BRAIN_CONSOLIDATE_MODEL": "env-model"}
        settings = load_settings(env)
        report = Consolidation.for_brain(brain, "shared", settings, env, service=service).run()
    assert report.status == "done"
    assert server.requests[0]["model"] == "env-model"
    assert "Authorization" not in server.headers[0]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "brain", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_cli_without_an_endpoint_changes_nothing(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    done = _cli("consolidate", str(root), "--scope", "writer", env={"BRAIN_CONSOLIDATE_URL": ""})
    assert done.returncode == 2
    assert "no model endpoint is configured, so nothing was changed" in done.stderr
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("how", ["--config", "BRAIN_CONFIG", "environment"])
def test_cli_runs_against_the_operators_endpoint(tmp_path: Path, how: str) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    script = [
        calls({"command": "delete", "path": "/memories/style-a.md"}),
        final("Changed:\n- one duplicate"),
    ]
    operator = tmp_path / "operator.toml"  # beside the workspace, not in it
    with chat_server(script) as server:
        operator.write_text(f'[consolidate]\nurl = "{server.url}"\nmodel = "m"\n')
        flags, env = {
            "--config": (["--config", str(operator)], {}),
            "BRAIN_CONFIG": ([], {"BRAIN_CONFIG": str(operator)}),
            "environment": ([], {"BRAIN_CONSOLIDATE_URL": server.url, "BRAIN_CONSOLIDATE_MODEL": "m"}),
        }[how]
        done = _cli("consolidate", str(root), "--scope", "writer", "--format", "json", *flags, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "done"
    assert report["paths"] == ["memory/writer/style-a.md"]
    assert "consolidate: ok" in done.stderr  # progress lines


def test_cli_refuses_the_endpoint_in_brain_toml(tmp_path: Path) -> None:
    """The workspace is data: a brain.toml [consolidate] is refused, naming where it belongs,
    and nothing is sent anywhere (the scripted server sees no request)."""
    root = workspace_with(tmp_path / "ws", FILES)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with chat_server([final("never asked")]) as server:
        (root / "brain.toml").write_text(
            f'[consolidate]\nurl = "{server.url}"\nmodel = "m"\napi_key_env = "BRAIN_TOKEN"\n'
        )
        done = _cli("consolidate", str(root), "--scope", "writer", env={"BRAIN_TOKEN": "admin-secret"})
        assert server.requests == []
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr  # one line, no traceback
    assert f"{root / 'brain.toml'} line 2: [consolidate] url is an operator setting" in done.stderr
    assert "--config FILE or BRAIN_CONFIG" in done.stderr
    assert "BRAIN_CONSOLIDATE_URL" in done.stderr
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "brain.toml"}
    assert after == before


def test_cli_refuses_an_operator_config_inside_the_workspace(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    inside = root / "memory" / "shared" / "ops.toml"
    inside.write_text('[consolidate]\nurl = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    for flags, env in ((["--config", str(inside)], {}), ([], {"BRAIN_CONFIG": str(inside)})):
        done = _cli("consolidate", str(root), "--scope", "writer", *flags, env=env)
        assert done.returncode == 2
        assert "the operator config lies inside the workspace" in done.stderr
        assert "keep it outside" in done.stderr


@pytest.mark.parametrize("variable", ["BRAIN_TOKEN", "NEO4J_PASSWORD", "BRAIN_TOKENS_FILE"])
def test_the_key_variable_is_never_one_of_brains_own(tmp_path: Path, variable: str) -> None:
    """Even the operator's endpoint is never sent the admin token or the store's password."""
    root = workspace_with(tmp_path / "ws", FILES)
    with chat_server([final("never asked")]) as server:
        env = {
            "BRAIN_CONSOLIDATE_URL": server.url, "BRAIN_CONSOLIDATE_MODEL": "m",
            "BRAIN_CONSOLIDATE_API_KEY_ENV": variable, variable: "secret-of-brain",
        }
        done = _cli("consolidate", str(root), "--scope", "writer", env=env)
        assert server.requests == []
    assert done.returncode == 2
    assert f"BRAIN_CONSOLIDATE_API_KEY_ENV: [consolidate] api_key_env names brain's own variable {variable}" \
        in done.stderr


def test_what_the_endpoint_says_is_not_echoed_to_the_caller(ws: tuple[Path, Brain, MemoryService]) -> None:
    """An error page (of an internal service, say) reaches the server's log, not the report."""
    _root, brain, service = ws
    secret = b"internal-admin-page: db password hunter2"
    for reply in (secret, 500):
        body = secret if reply == 500 else None
        with chat_server([reply], error_body=body) as server:
            report, events = run(brain, service, "writer", server.url.replace("http://", "http://u:pw@"))
        text = json.dumps(report.to_json()) + json.dumps(events)
        assert "hunter2" not in text
        assert "internal-admin-page" not in text
        assert "u:pw" not in text


def test_a_failure_of_brains_own_still_ends_with_a_report(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    # The history's folder is a file: recording the write fails with an OSError of brain's
    # own, not a refusal (a history file that is not a regular file is refused up front).
    (tmp_path / "a-file").write_text("not a folder")
    brain, service = open_brain(root, tmp_path / "a-file" / "history.jsonl")
    script = [calls({"command": "delete", "path": "/memories/style-a.md"}), final("never reached")]
    with chat_server(script) as server:
        report, events = run(brain, service, "writer", server.url)
    assert report.status == "error"
    assert "NotADirectoryError" in report.message
    assert events[-1]["kind"] == "finished"
    assert events[-1]["report"]["status"] == "error"
