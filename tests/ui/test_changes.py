"""The Changes page (issue 44 item 4): the diff of a scripted per scope, each note with
its origin and who changed it, the links and problems it made, its history, and the window,
writer, empty and error states."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import snap
from tests.ui.timeline import CALENDAR, GLOSSARY, ON_CALL, PAGER, REFUNDS, TIMELINE, Timeline, put, signed_in
from tests.ui.timeline import writes_after_the_timeline as after_the_others

pytestmark = pytest.mark.xdist_group(TIMELINE)  # one timeline for the three modules (conftest.py)


def rows(page: Any) -> Any:
    return page.locator(".change-table tbody tr")


def row_texts(page: Any) -> list[list[str]]:
    """Each listed note as [change, path, through, by]."""
    out = []
    for i in range(rows(page).count()):
        cells = rows(page).nth(i).locator("td")
        out.append([cells.nth(k).inner_text().strip() for k in range(4)])
    return out


def test_the_changes_page_lists_exactly_the_timelines_changes_with_origin_and_who(
    timeline: Timeline, bare_page: Any
) -> None:
    page = signed_in(bare_page)
    page.goto(f"{timeline.server.base}/#/memory")
    page.get_by_role("navigation", name="Views").get_by_role("link", name="Changes").click()
    expect(page.get_by_role("heading", name="Changes", level=1)).to_be_visible()
    expect(page.get_by_role("radio", name="7 days")).to_be_checked()  # the default window
    page.get_by_role("radio", name="24 h").check()
    expect(page).to_have_url(re.compile(r"#/changes\?since=24h$"))
    expect(rows(page)).to_have_count(8)
    # The calendar's delete broke the links to it in notes the window did not change: each
    # is listed, as unchanged, with the link it lost (issue 44, item 4).
    assert row_texts(page) == [
        ["changed", GLOSSARY, "outside brain", "—"],
        ["removed", CALENDAR, "memory tool", "admin"],
        ["unchanged", "memory/shared/team-roster.md", "—", "—"],
        ["unchanged", "memory/changelog-bot/version-scheme.md", "—", "—"],
        ["unchanged", "memory/code-reviewer/migration-rules.md", "—", "—"],
        ["unchanged", "memory/on-call/alert-tuning.md", "—", "—"],
        ["added", PAGER, "memory tool", "agent on-call"],
        ["changed", REFUNDS, "memory tool", "agent support-triage"],
    ]
    expect(rows(page).filter(has_text="team-roster.md").locator(".effects")).to_have_text(
        "broke [[team-calendar]] (line 24)")
    groups = page.locator(".change-group h2")
    titles = ("Shared", "changelog-bot's memory", "code-reviewer's memory", "on-call's memory",
              "support-triage's memory")
    expect(groups).to_have_text([re.compile(f"^{g}") for g in titles])
    pager = rows(page).filter(has_text=PAGER)
    # The glossary predates the history and was edited outside brain: the first version brain
    # saw is kept, so the page compares with it (the calendar's delete broke its link) and no
    # version is missing.
    glossary = rows(page).filter(has_text=GLOSSARY)
    expect(glossary.locator(".effects")).to_have_text("broke [[team-calendar]] (line 23)")
    expect(page.get_by_role("note", name="Versions not kept")).to_have_count(0)
    # The window reaches back before the history began: said, with when it began.
    expect(page.get_by_role("note", name="History start")).to_contain_text("brain’s history begins at")
    expect(page.get_by_role("group", name="Totals")).to_contain_text("1notes added")
    snap(page, "changes-page")
    # A note's history is one click away, and opens on the note's page.
    pager.get_by_role("link", name=f"History of {PAGER}").click()
    history = page.get_by_role("region", name="History")
    writes = history.locator(".history-list > li")
    expect(writes.first).to_contain_text("put by agent:on-call via rest")  # version two
    expect(writes.last).to_contain_text("put by agent:on-call via rest")  # its creation
    expect(writes.last.locator("pre.diff")).to_contain_text("Version one")
    # A removed note's history is there too, though the note is not.
    page.go_back()
    rows(page).filter(has_text=CALENDAR).get_by_role("link", name=f"History of {CALENDAR}").click()
    expect(page.get_by_text(f"{CALENDAR} does not exist (any more).")).to_be_visible()
    gone = page.get_by_role("region", name="History").locator(".history-list > li")
    expect(gone.first).to_contain_text("delete by admin")


def test_the_window_and_the_writer_narrow_the_list(timeline: Timeline, bare_page: Any) -> None:
    page = signed_in(bare_page)
    base = timeline.server.base
    # From the moment after on-call's first write: its note existed then, so it is "changed";
    # the glossary's edit outside brain came before, so it is not listed.
    page.goto(f"{base}/#/changes?since={timeline.first}")
    expect(page.get_by_role("radio", name="Custom…")).to_be_checked()
    expect(page.get_by_label("Since (UTC)")).to_have_value(timeline.first[:16])
    # The glossary's edit is not in the window; its link to the calendar the window deleted is.
    expect(rows(page)).to_have_count(8)
    expect(rows(page).filter(has_text=GLOSSARY).locator("td").first).to_have_text("unchanged")
    expect(rows(page).filter(has_text=PAGER).locator("td").first).to_have_text("changed")
    as_it_was = rows(page).filter(has_text=PAGER).get_by_role("link", name=re.compile("as it was at"))
    first = re.escape(timeline.first.replace(":", "%3A"))
    expect(as_it_was).to_have_attribute("href", re.compile(f"asOf={first}"))
    graph = page.get_by_role("link", name="The graph as it was at the start, what changed coloured")
    expect(graph).to_have_attribute("href", "#/graph?asOf=" + timeline.first.replace(":", "%3A"))
    # Until that moment: on-call's first write alone.
    page.goto(f"{base}/#/changes?since={timeline.start}&until={timeline.first}")
    expect(rows(page)).to_have_count(1)
    assert row_texts(page) == [["added", PAGER, "memory tool", "agent on-call"]]
    # Version one linked a missing note: the link it broke is listed with the note (version
    # two dropped it, so the 24 h window does not list it).
    expect(rows(page).locator(".effects")).to_have_text("broke [[missing-runbook]] (line 6)")
    expect(page.get_by_role("note")).to_have_count(0)  # all of it recorded, every version kept
    # Written by one agent: the writer filter is in the route.
    page.goto(f"{base}/#/changes?since=24h")
    expect(rows(page)).to_have_count(8)
    page.get_by_label("Written by").select_option("support-triage")
    expect(page).to_have_url(re.compile(r"agent=support-triage"))
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text(REFUNDS)


def test_empty_and_error_states_say_what_to_do(timeline: Timeline, bare_page: Any) -> None:
    page = signed_in(bare_page)
    base = timeline.server.base
    page.goto(f"{base}/#/changes?since={timeline.end}")
    expect(page.get_by_role("heading", name="Nothing changed")).to_be_visible()
    expect(page.locator(".empty-state")).to_contain_text("No note was added, removed or changed in")
    # A window that runs backwards is refused before it is asked for, with the fix.
    page.goto(f"{base}/#/changes?since={timeline.end}&until={timeline.start}")
    expect(page.get_by_role("alert")).to_have_text("The end of the window is before its start: swap them.")
    expect(rows(page)).to_have_count(0)
    # The custom window's inputs: a start without a time is refused in place.
    page.get_by_label("Since (UTC)").fill("")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("alert")).to_have_text("Pick the start of the window (date and time, UTC).")
    page.get_by_label("Since (UTC)").fill(timeline.start[:16])
    page.get_by_label("Until (UTC)").fill("")
    page.get_by_role("button", name="Show").click()
    minute = timeline.start[:16].replace(":", "%3A")
    expect(page).to_have_url(re.compile(rf"#/changes\?since={minute}%3A00Z$"))
    expect(rows(page).filter(has_text=PAGER)).to_have_text(re.compile("^added"))  # the minute holds step 1
    expect(page.get_by_role("alert")).to_have_text("")


def test_an_agents_token_sees_the_changes_of_its_own_and_the_shared_notes(
    timeline: Timeline, bare_page: Any
) -> None:
    page = signed_in(bare_page, ON_CALL)
    page.goto(f"{timeline.server.base}/#/changes?since=24h")
    expect(rows(page)).to_have_count(5)
    # Not support-triage's note, nor the links another agent's notes lost.
    assert [r[1] for r in row_texts(page)] == [
        GLOSSARY, CALENDAR, "memory/shared/team-roster.md", "memory/on-call/alert-tuning.md", PAGER]
    expect(page.get_by_label("Written by").locator("option")).to_have_text(["Anyone", "agent on-call"])
    # A note as it was reads the graph of that moment (admin-only in GraphQL): said, with its own way.
    page.goto(f"{timeline.server.base}/#/memory/on-call/pager-rotation.md?asOf={timeline.first}")
    expect(page.get_by_role("alert")).to_contain_text("A note as it was needs an admin token here.")
    expect(page.get_by_role("alert")).to_contain_text("GET /api/memory/on-call/pager-rotation.md?asOf=")


@after_the_others
def test_a_window_that_ends_now_takes_new_changes_live(timeline: Timeline, bare_page: Any) -> None:
    """Run after every other test of the timeline (conftest.py): it writes a note after its end."""
    page = signed_in(bare_page)
    page.goto(f"{timeline.server.base}/#/changes?since=24h")
    expect(rows(page)).to_have_count(8)
    handover = "---\ndescription: Handover\ntype: project\n---\n\nLater.\n"
    put(timeline.server, ON_CALL, "memory/on-call/handover.md", handover)
    expect(rows(page)).to_have_count(9, timeout=15_000)
    expect(rows(page).filter(has_text="memory/on-call/handover.md").locator("td").first).to_have_text("added")
    # A window with an end does not move.
    page.goto(f"{timeline.server.base}/#/changes?since={timeline.start}&until={timeline.end}")
    expect(rows(page)).to_have_count(8)  # the timeline's notes and the links its delete broke
