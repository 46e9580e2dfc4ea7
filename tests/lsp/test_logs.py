"""`brain lsp` logs as the operator's `[log]` says, on stderr (the editor's log), and refuses an
invalid operator setting with one line, like every other command (issue 41)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.lsp.test_codecache import framed


def session(workspace: Path) -> bytes:
    messages: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "capabilities": {}, "workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}]}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    return b"".join(framed(m) for m in messages)


def run_lsp(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    workspace = tmp_path / "ws"
    (workspace / "memory" / "shared").mkdir(parents=True, exist_ok=True)
    (workspace / "memory" / "shared" / "a.md").write_text("---\ndescription: A\n---\nSee [[b]].\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BRAIN_LOG", "BRAIN_LSP_LOG"))}
    return subprocess.run([sys.executable, "-m", "brain", "lsp"], input=session(workspace),
                          env={**clean, "BRAIN_CACHE_DIR": str(tmp_path / "cache"), **env},
                          capture_output=True, timeout=120)


def test_json_lines_from_the_operators_log_format(tmp_path: Path) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text('[log]\nformat = "json"\nlevel = "info"\n')
    done = run_lsp(tmp_path, BRAIN_CONFIG=str(ops))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode().splitlines()
    assert lines, "info level logs the roots it indexes"
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"time", "level", "event"} <= set(records[0]), records[0]
    assert any(r["level"].upper() == "INFO" for r in records), records


def test_quiet_by_default(tmp_path: Path) -> None:
    done = run_lsp(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""


def test_an_invalid_operator_setting_stops_it_with_one_line(tmp_path: Path) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text('[log]\nformat = "xml"\n')
    done = run_lsp(tmp_path, BRAIN_CONFIG=str(ops))
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        f'brain lsp: {ops} line 2: [log] format must be "text" or "json"'
    ]
