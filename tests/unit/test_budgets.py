"""The operator's budgets are the `[budgets]` section of the operator's settings (brain/budgets.py,
brain/config/operator.py): the old variables are its environment layer, and a process whose
command installed none reads BRAIN_CONFIG and the environment."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from brain import budgets
from brain.budgets import HISTORY_AGENT_ENV, NOTE_BYTES_ENV, history_caps, note_budget, refresh
from brain.config.operator import load_settings


def test_defaults_values_and_typos(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    refresh()
    monkeypatch.delenv(HISTORY_AGENT_ENV, raising=False)
    monkeypatch.delenv("BRAIN_CONFIG", raising=False)
    assert history_caps().agent_bytes == 64 * budgets.MIB
    monkeypatch.setenv(HISTORY_AGENT_ENV, "2_000")
    assert history_caps().agent_bytes == 2000
    for wrong in ("0", "-5", "64MiB", "lots"):
        monkeypatch.setenv(HISTORY_AGENT_ENV, wrong)
        with caplog.at_level(logging.WARNING, logger="brain.config.operator"):
            assert history_caps().agent_bytes == 64 * budgets.MIB  # a typo never lifts a limit
    said = "BRAIN_HISTORY_AGENT_BYTES='lots': [budgets] history_agent_bytes must be a whole number"
    assert said in caplog.text


def test_the_note_budget_is_read_once_until_refreshed(monkeypatch: pytest.MonkeyPatch) -> None:
    refresh()
    monkeypatch.delenv("BRAIN_CONFIG", raising=False)
    monkeypatch.setenv(NOTE_BYTES_ENV, "2048")
    assert note_budget().max_bytes == 2048
    monkeypatch.setenv(NOTE_BYTES_ENV, "4096")
    assert note_budget().max_bytes == 2048
    refresh()
    assert note_budget().max_bytes == 4096
    monkeypatch.delenv(NOTE_BYTES_ENV)
    refresh()
    assert note_budget().max_bytes == 1024 * 1024


def test_the_operator_file_sets_them_and_a_command_installs_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text("[budgets]\nnote_bytes = 3000\nhistory_workspace_bytes = 9000\n")
    monkeypatch.delenv(NOTE_BYTES_ENV, raising=False)
    monkeypatch.setenv("BRAIN_CONFIG", str(ops))
    refresh()
    try:
        assert note_budget().max_bytes == 3000  # BRAIN_CONFIG's, without any command
        assert history_caps().workspace_bytes == 9000
        budgets.install(load_settings({}, sets=["budgets.note_bytes=5000"]).budgets)
        assert note_budget().max_bytes == 5000  # what the command loaded wins
    finally:
        refresh()
