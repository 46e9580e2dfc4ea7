"""The note's history in the memory review: each write with its diff (issue 10 item 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import READERS, snap
from tests.ui.server import BrainServer
from tests.ui.test_memory_review import open_note

# The worker's `writers` server (tests/ui/conftest.py): one group, so it starts once. No other
# test there reads or writes this note, whose history is asked.
pytestmark = pytest.mark.xdist_group(READERS)
PATH = "memory/shared/prefers-short-answers.md"


@pytest.fixture
def server(writers: BrainServer) -> BrainServer:
    return writers


@pytest.fixture
def workspace(writers: BrainServer) -> Path:
    return writers.root


def append_and_save(page: Any, line: str) -> None:
    page.get_by_role("textbox", name=f"Markdown of {PATH}").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(f"\n{line}\n")
    page.keyboard.press("Control+s")
    expect(page.get_by_role("status").filter(has_text=f"Saved {PATH}")).to_be_visible()


def test_history_shows_a_diff_per_write(page: Any, server: BrainServer, workspace: Path) -> None:
    original = (workspace / PATH).read_text()
    open_note(page, server, "shared", "prefers-short-answers.md")
    append_and_save(page, "First edit from the browser.")
    page.get_by_role("status").filter(has_text=f"Saved {PATH}").wait_for(state="hidden", timeout=10_000)
    append_and_save(page, "Second edit from the browser.")
    page.get_by_role("button", name="History").click()
    history = page.get_by_role("region", name="History")
    writes = history.locator(".history-list > li")
    expect(writes).to_have_count(2)
    newest, oldest = writes.nth(0), writes.nth(1)
    expect(newest.locator("pre.diff .add")).to_have_text(["+ Second edit from the browser.", "+ "])
    expect(newest.locator("pre.diff .del")).to_have_count(0)
    expect(newest.locator("pre.diff")).to_contain_text("  First edit from the browser.")  # context
    expect(oldest.locator("pre.diff .add")).to_contain_text(["+ First edit from the browser."])
    expect(oldest.locator("pre.diff")).not_to_contain_text("Second edit")
    # A version made on disk before brain wrote it is kept at the write: the first diff starts there.
    assert original.rstrip().splitlines()[-1] in oldest.locator("pre.diff").inner_text()
    snap(page, "memory-history-diffs")
