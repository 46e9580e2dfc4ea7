"""The Graph view's time slider reaches the whole retained history, a page at a time (issue 44,
item 6): it held only the newest 100 changes; "Older changes" adds the next page, keeps the
slider on the moment it shows, and goes away when the history's start is reached.

Planted bug, seen to fail: the button asking for the first page again (no `before`): the
slider never grew past 100 stops."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from brain.tool.history.log import History, iso_time
from tests.ui.conftest import READERS
from tests.ui.server import BrainServer

# The worker's `writers` server (tests/ui/conftest.py): one group, so it starts once. Its other
# tests write notes of their own, before or after this one, never during it: the records the
# history holds when the test starts are counted.
pytestmark = pytest.mark.xdist_group(READERS)
NOW = 1_796_000_000.0  # 2026-12-01


@pytest.fixture
def server(writers: BrainServer) -> BrainServer:
    return writers


def test_older_changes_page_the_slider_back_to_the_history_start(page: Any, server: BrainServer) -> None:
    history = History(server.root / ".brain" / "history.jsonl")
    already = len(history.all())
    for n in range(130):  # more than a page (100), as a month of an agent's writes holds
        history.append(at=iso_time(NOW + n), actor="agent:on-call", agent="on-call", via="mcp",
                       command="put", scope="on-call", path="memory/on-call/alert-tuning.md",
                       before=None, after=None)
    page.goto(f"{server.base}/#/graph")
    slider = page.get_by_role("slider", name="Graph as of")
    older = page.get_by_role("button", name="Older changes")
    expect(slider).to_have_attribute("max", "100")  # the newest page: 100 stops, then now
    expect(slider).to_have_attribute("aria-valuetext", "now")
    total = already + 130
    assert total <= 200  # two pages: the example workspace's history is short
    older.click()
    # Every record a stop (the oldest is the history's start), then now.
    expect(slider).to_have_attribute("max", str(total))
    expect(slider).to_have_attribute("aria-valuetext", "now")  # still on the moment it showed
    expect(older).to_be_hidden()  # the history's start is reached
    slider.focus()
    page.keyboard.press("Home")
    expect(slider).to_have_attribute("aria-valuetext", re.compile("the history.s start"))
