"""The Consolidate button of a scope, in a real browser against a real `brain serve` whose
operator (BRAIN_CONSOLIDATE_URL) points at a local OpenAI-compatible server
(tests/maintain/chat_server.py) that answers scripted tool calls: the run shows live, then its
report; without an endpoint, the server's message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.maintain.chat_server import ChatServer, calls, chat_server, final
from tests.ui.conftest import READERS, snap
from tests.ui.server import BrainServer

# The test without an endpoint uses the worker's shared server (tests/ui/conftest.py).
pytestmark = pytest.mark.xdist_group(READERS)

SCRIPT = [
    calls(
        {"command": "delete", "path": "/memories/alert-tuning.md"},
        {"command": "delete", "path": "/memories/no-such-note.md"},
    ),
    final("Changed:\n- deleted alert-tuning (it repeated dashboards)\nLook at: dashboards.md"),
]


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with chat_server(list(SCRIPT)) as server:
        yield server


@pytest.fixture
def configured(workspace: Path, chat: ChatServer) -> Iterator[BrainServer]:
    env = {"BRAIN_CONSOLIDATE_URL": chat.url, "BRAIN_CONSOLIDATE_MODEL": "scripted"}
    server = BrainServer(workspace, env=env).start()
    yield server
    server.stop()


def test_consolidate_shows_the_run_and_its_report(
    configured: BrainServer, bare_page: Any, workspace: Path, chat: ChatServer
) -> None:
    page = bare_page
    page.goto(f"{configured.base}/#/memory/on-call")
    expect(page.get_by_role("link", name="alert-tuning", exact=True)).to_be_visible()
    page.get_by_role("button", name="Consolidate").click()
    panel = page.get_by_role("region", name="Consolidation of on-call")
    log = panel.get_by_role("log", name="Consolidation progress")
    expect(log.get_by_role("listitem").filter(has_text="✓")).to_have_count(1)
    expect(log.get_by_role("listitem").filter(has_text="✗")).to_have_count(1)
    expect(log).to_contain_text("tokens so far")
    report = panel.get_by_role("region", name="Consolidation report")
    expect(report).to_contain_text("done after 2 turns: 1 change, 240 tokens")
    expect(page.get_by_role("button", name="Consolidate")).to_be_enabled()
    expect(report.get_by_label("The model’s summary")).to_contain_text("deleted alert-tuning")
    expect(report.get_by_role("link", name="memory/on-call/alert-tuning.md")).to_be_visible()
    expect(report.locator("ul.review li")).to_have_count(1)
    expect(report.locator("ul.review")).to_contain_text("no-such-note.md")
    assert not (workspace / "memory/on-call/alert-tuning.md").exists()
    assert len(chat.requests) == 2  # one run, not two: the subscription is the run
    # The run's own write re-lists the scope; the panel stays.
    expect(page.get_by_role("link", name="alert-tuning", exact=True)).to_have_count(0, timeout=20_000)
    expect(report).to_be_visible()
    snap(page, "consolidate-report")


def test_consolidate_without_an_endpoint_says_how_to_configure_one(
    bare_page: Any, reader: BrainServer
) -> None:
    # A refusal writes nothing: the worker's shared server of the example (no endpoint) serves it.
    page, server = bare_page, reader
    page.goto(f"{server.base}/#/memory/on-call")
    page.get_by_role("button", name="Consolidate").click()
    alert = page.get_by_role("region", name="Consolidation of on-call").get_by_role("alert")
    expect(alert).to_contain_text("Not consolidated: no model endpoint is configured")
    expect(alert).to_contain_text("[consolidate] url and model")
    assert (server.root / "memory/on-call/alert-tuning.md").exists()
    snap(page, "consolidate-not-configured")
