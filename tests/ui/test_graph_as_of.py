"""The Graph view's time slider (issue 44 item 4): the scripted timeline's graph as it was, with
what changed since coloured and counted, around a note and for the whole workspace, and the
slider stepping through the recorded changes from the keyboard."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import snap
from tests.ui.timeline import TIMELINE, Timeline, signed_in, when

pytestmark = pytest.mark.xdist_group(TIMELINE)  # one timeline for the three modules (conftest.py)

PAGER_ID = "memory:on-call/pager-rotation"


def changes_drawn(page: Any) -> dict[str, str]:
    """What the drawing marks as changed since its moment, by node id (the time bar says)."""
    raw = page.get_by_role("group", name="Time").get_attribute("data-changes")
    return json.loads(raw) if raw else {}


def wait_drawn(page: Any, status: str) -> None:
    # As long as the page's other waits (conftest.py, 15 s): expect's 5 s default ran out under
    # load 30-45 while the status still said "Loading…", in main's modules and in this one.
    expect(page.locator(".graph-status")).to_contain_text(status, timeout=15_000)


def test_a_neighbourhood_as_it_was_with_what_changed_since(timeline: Timeline, bare_page: Any) -> None:
    page = signed_in(bare_page)
    page.goto(f"{timeline.server.base}/#/graph?node={PAGER_ID}&asOf={timeline.first}")
    wait_drawn(page, f"Around on-call/pager-rotation, depth 1 as of {when(timeline.first)}")
    # Version one linked the missing runbook; version two (since) dropped that link.
    assert changes_drawn(page) == {PAGER_ID: "changed", "unresolved:missing-runbook": "removed"}
    legend = page.get_by_label("Changes since the moment")
    expect(legend).to_contain_text("removed since (1 node, 1 link)")
    expect(legend).to_contain_text("changed since (1 note)")
    expect(legend).to_contain_text("added since (0 nodes, 0 links)")
    slider = page.get_by_role("slider", name="Graph as of")
    expect(slider).to_have_attribute("aria-valuetext", when(timeline.first))
    # The details are of now, and say so, with the way to the note as it was.
    details = page.get_by_role("complementary", name="Details")
    expect(details.locator(".details-asof")).to_contain_text(f"the drawing is as of {when(timeline.first)}")
    details.get_by_role("link", name="Open this note as it was then").click()
    text = page.get_by_label(re.compile("^Text of memory/on-call/pager-rotation.md as of"))
    expect(text).to_contain_text("Version one")


def test_the_whole_workspace_as_it_was_and_the_slider_from_the_keyboard(
    timeline: Timeline, bare_page: Any
) -> None:
    page = signed_in(bare_page)
    base = timeline.server.base
    page.goto(f"{base}/#/graph")
    wait_drawn(page, "Whole workspace:")
    now_nodes = int(page.locator(".graph-canvas").get_attribute("data-nodes"))
    expect(page.get_by_label("Changes since the moment")).to_be_hidden()
    page.goto(f"{base}/#/graph?asOf={timeline.first}")
    wait_drawn(page, f"Whole workspace as of {when(timeline.first)}")
    drawn = changes_drawn(page)
    assert drawn == {
        PAGER_ID: "changed",
        "memory:support-triage/refund-policy": "changed",
        "memory:shared/team-calendar": "removed",
        "unresolved:missing-runbook": "removed",
        # Removing the calendar broke the links to it: targets that wait on it now.
        "unresolved:team-calendar": "added",
        "unresolved:shared/team-calendar": "added",
    }
    # Then's graph is drawn, and what came since: now's nodes and the two that went.
    removed = [k for k, v in drawn.items() if v == "removed"]
    assert int(page.locator(".graph-canvas").get_attribute("data-nodes")) == now_nodes + len(removed)
    snap(page, "graph-as-of")
    # The slider, from the keyboard: End is now, Home the history's start.
    slider = page.get_by_role("slider", name="Graph as of")
    slider.focus()
    page.keyboard.press("End")
    expect(page).to_have_url(re.compile(r"#/graph$"))
    wait_drawn(page, "Whole workspace:")
    expect(page.get_by_label("Changes since the moment")).to_be_hidden()
    slider.focus()
    page.keyboard.press("Home")
    expect(page).to_have_url(re.compile(r"#/graph\?asOf="))
    start = r"the history's start \(after put memory/shared/glossary.md by external\)"
    expect(slider).to_have_attribute("aria-valuetext", re.compile(start))
    wait_drawn(page, "Whole workspace as of")
    # At the history's start on-call had not written its note yet.
    time = page.get_by_role("group", name="Time")
    expect(time).to_have_attribute("data-changes", re.compile(f'"{PAGER_ID}":"added"'))
    # One step on: just before on-call's first write.
    page.keyboard.press("ArrowRight")
    before = r"before put memory/on-call/pager-rotation.md by agent:on-call$"
    expect(slider).to_have_attribute("aria-valuetext", re.compile(before))
    assert changes_drawn(page)[PAGER_ID] == "added"


def test_a_moment_before_the_history_draws_nothing_and_offers_the_oldest(
    timeline: Timeline, bare_page: Any
) -> None:
    page = signed_in(bare_page)
    page.goto(f"{timeline.server.base}/#/graph")
    wait_drawn(page, "Whole workspace:")
    page.goto(f"{timeline.server.base}/#/graph?asOf=2020-01-01T00:00:00Z")
    status = page.locator(".graph-status")
    expect(status).to_contain_text(
        "Could not load the graph: asOf: brain cannot show the memory as it was at 2020-01-01T00:00:00Z: "
        "the history begins at")
    expect(status).to_contain_text("The oldest moment brain can show is")
    expect(page.locator(".graph-canvas")).to_have_attribute("data-nodes", "0")  # not the graph now
    status.get_by_role("link", name="Show the oldest moment it can").click()
    wait_drawn(page, "Whole workspace as of")
    time = page.get_by_role("group", name="Time")
    expect(time).to_have_attribute("data-changes", re.compile(f'"{PAGER_ID}":"added"'))
