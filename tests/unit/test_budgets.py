"""The operator's budgets come from the environment, in one place (brain/budgets.py)."""

from __future__ import annotations

import logging

import pytest

from brain import budgets
from brain.budgets import HISTORY_AGENT_ENV, NOTE_BYTES_ENV, history_caps, note_budget, refresh


def test_defaults_values_and_typos(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv(HISTORY_AGENT_ENV, raising=False)
    assert history_caps().agent_bytes == 64 * budgets.MIB
    monkeypatch.setenv(HISTORY_AGENT_ENV, "1_000")
    assert history_caps().agent_bytes == 1000
    for wrong in ("0", "-5", "64MiB", "lots"):
        monkeypatch.setenv(HISTORY_AGENT_ENV, wrong)
        with caplog.at_level(logging.WARNING, logger="brain.budgets"):
            assert history_caps().agent_bytes == 64 * budgets.MIB  # a typo never lifts a limit
    assert "BRAIN_HISTORY_AGENT_BYTES='lots' is not a positive whole number" in caplog.text


def test_the_note_budget_is_read_once_until_refreshed(monkeypatch: pytest.MonkeyPatch) -> None:
    refresh()
    monkeypatch.setenv(NOTE_BYTES_ENV, "2048")
    assert note_budget().max_bytes == 2048
    monkeypatch.setenv(NOTE_BYTES_ENV, "4096")
    assert note_budget().max_bytes == 2048
    refresh()
    assert note_budget().max_bytes == 4096
    monkeypatch.delenv(NOTE_BYTES_ENV)
    refresh()
    assert note_budget().max_bytes == 1024 * 1024
