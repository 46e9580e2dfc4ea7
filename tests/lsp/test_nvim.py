"""A real editor: Debian's Neovim (0.7, headless) with lsp/nvim/brain.lua and `python -m brain lsp`.

It opens a note, gets the broken-link diagnostic where the link is (Neovim turns the server's
UTF-16 columns into byte columns itself), completes after a typed `[[` and applies the item,
and sees the diagnostic go when an agent writes the missing note to disk.
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

from tests.vscode.harness import make_venv, path_without_brain

from .conftest import WORKSPACE, write_tree

NVIM = shutil.which("nvim")
REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "lsp" / "nvim" / "brain.lua"
SCRIPT = Path(__file__).with_name("nvim_session.lua")
PREFIX = "日本語 😀 see "

# In CI (CI=true) or with BRAIN_REQUIRE_NVIM=1 a missing Neovim fails the test instead of skipping it.
REQUIRED = os.environ.get("CI", "").lower() == "true" or bool(os.environ.get("BRAIN_REQUIRE_NVIM"))
pytestmark = [
    pytest.mark.nvim,
    pytest.mark.skipif(
        NVIM is None and not REQUIRED,
        reason="needs Neovim (apt-get install -y neovim); CI=true or BRAIN_REQUIRE_NVIM=1 fails instead",
    ),
]


NOTE = "memory/bot/wants.md"


def run_session(workspace: Path, **extra: str) -> dict[str, Any]:
    assert NVIM is not None, "Neovim is required (CI=true or BRAIN_REQUIRE_NVIM) but `nvim` is not on PATH"
    out = workspace / "observed.json"
    env = {
        **os.environ,
        "BRAIN_TEST_PYTHON": sys.executable,
        "BRAIN_TEST_WORKSPACE": str(workspace),
        "BRAIN_TEST_NOTE": NOTE,
        "BRAIN_NVIM_PLUGIN": str(PLUGIN),
        "BRAIN_TEST_OUT": str(out),
        "PYTHONPATH": str(REPO),
        **extra,
    }
    proc = subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {SCRIPT}"],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=180, check=False,
    )
    assert out.exists(), f"Neovim wrote nothing (exit {proc.returncode}): {proc.stderr}"
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert seen["error"] is None, seen["error"]
    return seen


def test_neovim_completion_and_diagnostics(tmp_path: Path) -> None:
    text = f"---\ndescription: waits\ntype: user\n---\n{PREFIX}[[missing-note]]\n"
    write_tree(tmp_path, {**WORKSPACE, NOTE: text})
    seen = run_session(tmp_path)
    check_session(seen)
    assert seen["notified"] == []


def test_setup_without_a_command_finds_brain_in_the_workspace_venv(tmp_path: Path) -> None:
    text = f"---\ndescription: waits\ntype: user\n---\n{PREFIX}[[missing-note]]\n"
    write_tree(tmp_path, {**WORKSPACE, NOTE: text})
    make_venv(tmp_path)
    seen = run_session(
        tmp_path, BRAIN_TEST_SETUP="discover", PATH=path_without_brain(os.environ.get("PATH", "")),
        VIRTUAL_ENV="", PYTHONPATH="",
    )
    check_session(seen)
    assert seen["notified"] == []


def test_setup_says_once_when_no_server_is_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {**WORKSPACE, NOTE: "x\n"})
    seen = run_session(
        tmp_path, BRAIN_TEST_SETUP="discover", BRAIN_TEST_EXPECT_NO_SERVER="1",
        PATH=path_without_brain(os.environ.get("PATH", "")), VIRTUAL_ENV="",
    )
    assert seen["attached"] is False
    (message,) = seen["notified"]
    assert message.startswith(f"brain: no language server found for {tmp_path}"), message
    assert f"{tmp_path}/.venv/bin/brain, {tmp_path}/venv/bin/brain: not found" in message
    assert "brain on PATH: not found" in message
    assert "python3 -m venv .venv && .venv/bin/pip install brain-memory" in message


def check_session(seen: dict[str, Any]) -> None:
    assert seen["filetype"] == "markdown"
    assert seen["attached"]
    assert seen["client_name"] == "brain"
    assert seen["got_diagnostics"]
    (diagnostic,) = seen["diagnostics"]
    start = len(PREFIX.encode("utf-8"))  # Neovim reports byte columns
    assert (diagnostic["lnum"], diagnostic["col"]) == (4, start)
    assert diagnostic["end_col"] == start + len("[[missing-note]]")
    assert diagnostic["code"] == "broken-link"
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert seen["labels"][:3] == ["alpha", "beta", "gamma"]
    assert "wants" not in seen["labels"]  # the note being edited is not offered
    assert seen["completed_line"] == f"{PREFIX}[[missing-note]] [[gamma]] "
    assert seen["cleared"]
