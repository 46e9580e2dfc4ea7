"""`brain memory AGENT ...` and `brain index AGENT` as scripts and people use them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brain.cli.main import main
from tests.tool.test_prompt import EXPECTED


def brain(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], input=stdin, capture_output=True, text=True,
        cwd=cwd, check=False, timeout=60,
    )


def test_view_create_and_refusals_from_a_shell(workspace: Path) -> None:
    ws = str(workspace)
    listing = brain("memory", "writer", "-w", ws, "view")
    assert listing.returncode == 0
    assert listing.stdout.startswith("/memories: 1 file of your own and 1 shared file")
    created = brain("memory", "writer", "-w", ws, "create", "/memories/tone.md", stdin="Calm.\n")
    assert (created.returncode, created.stdout) == (
        0, "Created /memories/tone.md (1 line). Note: it has no frontmatter; start memory files "
           "with `---`, `description: <one line>`, `type: user|feedback|project|reference`, `---`.\n",
    )
    refused = brain("memory", "writer", "-w", ws, "create", "/memories/tone.txt", "--text", "x")
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr == (
        "Refused: `tone.txt` is not a .md file: only .md files are memories\n"
        'Try: {"command": "create", "path": "/memories/tone.md", "file_text": "x"}\n'
    )
    ranged = brain("memory", "writer", "-w", ws, "view", "/memories/house-style.md", "--range", "9", "-1")
    assert ranged.stdout == (
        "/memories/house-style.md (lines 9-10 of 10):\n"
        "     9\t- No exclamation marks.\n"
        "    10\t- Costs are written as $$ or $1 per job.\n"
    )


def test_every_command_through_main(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = ["-w", str(workspace)]
    assert main(["memory", "writer", *ws, "str_replace", "/memories/house-style.md", "$$ or $1", "$2"]) == 0
    assert main(["memory", "writer", *ws, "insert", "/memories/house-style.md", "0", "top line"]) == 0
    assert main(["memory", "writer", *ws, "rename", "/memories/house-style.md", "/memories/style.md"]) == 0
    assert main(["memory", "writer", *ws, "delete", "/memories/style.md"]) == 0
    assert main(["memory", "writer", *ws, "delete", "/memories/style.md"]) == 1
    capsys.readouterr()
    assert main(["memory", "writer", *ws, "--json", "history", "--limit", "10"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["command"], r["via"], r["actor"]) for r in records] == [
        ("delete", "cli", "agent:writer"), ("rename", "cli", "agent:writer"),
        ("insert", "cli", "agent:writer"), ("str_replace", "cli", "agent:writer"),
    ]
    assert (workspace / ".brain/history.jsonl").exists()


def test_json_output_carries_the_refusal(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "writer", "-w", str(workspace), "--json", "view", "/memories/../x.md"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False
    assert data["refusal"]["code"] == "invalid-path"
    assert data["refusal"]["suggestion"]["command"] == "view"


def test_index_prints_the_prompt_block(workspace: Path) -> None:
    printed = brain("index", "writer", "-w", str(workspace), "--now", "2026-11-01T00:00:00Z")
    assert (printed.returncode, printed.stdout) == (0, EXPECTED)
    off = brain("index", "old-bot", "-w", str(workspace))
    assert (off.returncode, off.stdout) == (0, "")
    assert "memory is off for agent `old-bot`" in off.stderr
    unknown = brain("index", "nobody", "-w", str(workspace))
    assert unknown.returncode == 2
    assert "there is no agent `nobody`" in unknown.stderr


def test_the_workspace_comes_from_the_environment_or_the_folder(workspace: Path, tmp_path: Path) -> None:
    here = brain("memory", "writer", "view", cwd=workspace)
    assert here.returncode == 0
    nowhere = brain("memory", "writer", "view", cwd=tmp_path)
    assert nowhere.returncode == 2
    assert "has no memory/ folder" in nowhere.stderr
