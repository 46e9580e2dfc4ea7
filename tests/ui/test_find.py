"""The find boxes (graph explorer, memory review) over the GraphQL `search` query, in a real
browser against a real `brain serve`: name, scope, marked snippet, rankers; picking opens."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import AGENT, READERS, snap
from tests.ui.server import BrainServer
from tests.ui.test_tokens import sign_in

# The shared servers of the worker (tests/ui/conftest.py): one group, so they start once.
pytestmark = pytest.mark.xdist_group(READERS)


@pytest.fixture
def server(writers: BrainServer) -> BrainServer:
    """The worker's server for tests that write (the snippet test's hostile-note, a note no
    other test reads)."""
    return writers


@pytest.fixture
def workspace(writers: BrainServer) -> Path:
    return writers.root


def test_graph_find_shows_search_results_and_opens_the_node(bare_page: Any, reader: BrainServer) -> None:
    page, server = bare_page, reader  # it only reads: the worker's shared server
    page.goto(f"{server.base}/#/graph")
    expect(page.get_by_role("img", name=re.compile("^Whole workspace"))).to_be_visible()
    find = page.get_by_role("combobox", name="Find a node")
    find.fill("retries")
    results = page.get_by_role("listbox", name="Results of find a node")
    named = page.locator("strong", has_text=re.compile("^escalation-paths$"))
    hit = results.get_by_role("option").filter(has=named)
    expect(hit).to_have_count(1)
    expect(hit.locator(".scope-tag")).to_have_text("support-triage")
    marks = hit.locator("mark")
    expect(marks.first).to_have_text(re.compile("^retries$", re.I))
    expect(hit.locator(".ranker")).to_contain_text(["keyword"])
    snap(page, "find-graph-results")
    hit.click()
    expect(page.locator(".graph-status")).to_contain_text("Around support-triage/escalation-paths")
    details = page.get_by_role("complementary", name="Details")
    expect(details.get_by_role("heading", name="escalation-paths")).to_be_visible()


def test_snippets_are_text_never_html(page: Any, server: BrainServer, workspace: Path) -> None:
    (workspace / "memory/shared/hostile-note.md").write_text(
        "---\ndescription: A note with markup in it.\n---\n"
        "Zanzibarite <img src=x onerror=\"window.__pwned=1\"> <b>bold</b> text.\n"
    )
    page.goto(f"{server.base}/#/memory/shared")
    find = page.get_by_role("combobox", name="Search memory")
    results = page.get_by_role("listbox", name="Results of search memory")
    # The server picks the new file up live; search until it is indexed.
    expect(page.get_by_role("link", name="hostile-note", exact=True)).to_be_visible(timeout=20_000)
    find.fill("zanzibarite")
    hit = results.get_by_role("option").filter(has_text="hostile-note")
    expect(hit).to_have_count(1)
    expect(hit.locator(".snippet")).to_contain_text('<img src=x onerror="window.__pwned=1">')
    expect(hit.locator("img, b")).to_have_count(0)
    expect(hit.locator("mark")).to_have_text([re.compile("^zanzibarite$", re.I)])
    assert page.evaluate("window.__pwned") is None
    snap(page, "find-snippet-is-text")


def test_an_agent_token_finds_its_own_and_shared_notes_and_opens_one(
    guarded: BrainServer, bare_page: Any, console: Any
) -> None:
    console.allow(r"status of 401")  # the first answer asks for a token, by design
    page = bare_page
    page.goto(guarded.base + "/")
    sign_in(page, AGENT)
    find = page.get_by_role("combobox", name="Search memory")
    find.fill("glossary")
    results = page.get_by_role("listbox", name="Results of search memory")
    options = results.get_by_role("option")
    # The shared server may have started just now and still check every file: under a full
    # CI run its first search has taken over the default 5 s.
    expect(options.first).to_be_visible(timeout=20_000)
    scopes = set(results.locator(".scope-tag").all_inner_texts())
    # code-reviewer has a glossary too: another agent's notes never show up for this token.
    assert scopes <= {"on-call", "shared"}, scopes
    shared = options.filter(has=page.locator("strong", has_text=re.compile("^glossary$")))
    expect(shared.locator(".scope-tag")).to_have_text("shared")
    snap(page, "find-memory-agent-token")
    find.press("ArrowDown")
    find.press("ArrowUp")
    shared.click()
    expect(page.get_by_role("textbox", name="Markdown of memory/shared/glossary.md")).to_be_visible()
