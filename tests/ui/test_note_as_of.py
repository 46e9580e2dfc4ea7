"""A note "as of" a moment (issue 44 item 4): the scripted timeline's note as it was, with its
text, description and links then, a banner that says so, the way back to now, what changed
since, and the moments brain cannot show."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import snap
from tests.ui.timeline import CALENDAR, PAGER, TIMELINE, Timeline, signed_in, when

pytestmark = pytest.mark.xdist_group(TIMELINE)  # one timeline for the three modules (conftest.py)


def text_then(page: Any, path: str) -> Any:
    return page.get_by_label(re.compile(f"^Text of {re.escape(path)} as of"))


def test_a_note_as_it_was_with_its_links_then_and_what_changed_since(
    timeline: Timeline, bare_page: Any
) -> None:
    page = signed_in(bare_page)
    page.goto(f"{timeline.server.base}/#/memory/on-call/pager-rotation.md?asOf={timeline.first}")
    banner = page.get_by_role("region", name="As of")
    expect(banner).to_contain_text(f"As of {when(timeline.first)}")
    expect(banner).to_contain_text(f"{PAGER} as it was then (read-only)")
    text = text_then(page, PAGER)
    expect(text).to_contain_text("Version one: the pager rotates weekly.")
    expect(text).not_to_contain_text("Version two")
    description = page.locator(".asof-description")
    expect(description).to_have_text("Description then: Who carries the pager, version one")
    links = page.get_by_role("region", name="Links then").locator("li")
    expect(links).to_have_text([re.compile(r"\[\[who-is-on-call\]\].*resolved"),
                                re.compile(r"\[\[missing-runbook\]\].*broken")])
    # The resolved link opens its target as of the same moment.
    target = links.first.get_by_role("link")
    expect(target).to_have_attribute("href", re.compile(r"who-is-on-call\.md\?asOf="))
    expect(page.get_by_role("region", name="Problems then")).to_contain_text("missing-runbook")
    since = page.get_by_role("region", name="Changed since then")
    added = since.locator("pre.diff .add")
    expect(added).to_contain_text(["+ Version two: the pager rotates daily. See [[who-is-on-call]]."])
    expect(since).to_contain_text("Description now: Who carries the pager, version two")
    expect(page.get_by_role("textbox", name=f"Markdown of {PAGER}")).to_have_count(0)  # the past is read-only
    snap(page, "note-as-of")
    # Back to now: the editor, with today's text.
    banner.get_by_role("link", name="Back to now").click()
    editor = page.get_by_role("textbox", name=f"Markdown of {PAGER}")
    expect(editor).to_contain_text("Version two")
    # "As of…" on the note's page opens the version its newest write replaced.
    page.get_by_role("button", name="As of…").click()
    expect(text_then(page, PAGER)).to_contain_text("Version one")
    # Its writes are moments to jump to.
    banner.get_by_text("Its writes (").click()
    writes = banner.locator(".asof-writes li")
    expect(writes).to_have_count(2)
    writes.nth(0).get_by_role("link", name="after").click()
    expect(text_then(page, PAGER)).to_contain_text("Version two")
    expect(since).to_contain_text("Nothing: the note is the same now.")


def test_a_removed_note_and_moments_brain_cannot_show(timeline: Timeline, bare_page: Any) -> None:
    page = signed_in(bare_page)
    base = timeline.server.base
    page.goto(f"{base}/#/memory/shared/team-calendar.md?asOf={timeline.first}")
    expect(text_then(page, CALENDAR)).to_contain_text("Release train")
    expect(page.get_by_role("region", name="Changed since then")).to_have_text(re.compile("removed since"))
    # Before on-call wrote it, its note did not exist.
    page.goto(f"{base}/#/memory/on-call/pager-rotation.md?asOf={timeline.start}")
    gone = page.get_by_role("heading", name=f"{PAGER} did not exist at {when(timeline.start)}")
    expect(gone).to_be_visible()
    # Before the history began: refused, naming the oldest moment, one click away.
    page.goto(f"{base}/#/memory/shared/glossary.md?asOf=2020-01-01T00:00:00Z")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(
        "brain cannot show the memory as it was at 2020-01-01T00:00:00Z: the history begins at")
    expect(alert).to_contain_text("The oldest moment brain can show is")
    page.get_by_role("link", name=re.compile("^Show the oldest moment brain can show")).click()
    expect(text_then(page, "memory/shared/glossary.md")).to_contain_text(
        "Pager: the phone that wakes the on-call engineer.")
    # Not a time at all: said, with the picker to fix it.
    page.goto(f"{base}/#/memory/shared/glossary.md?asOf=tuesday")
    expect(page.get_by_role("alert")).to_have_text("“tuesday” is not a time: pick one above.")
