"""Link integrity and the graph explorer in a real browser, against a real `brain serve`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import READERS, snap
from tests.ui.server import BrainServer

# The shared servers of the worker (tests/ui/conftest.py): one group, so they start once.
pytestmark = pytest.mark.xdist_group(READERS)


@pytest.fixture
def server(reader: BrainServer) -> BrainServer:
    """The worker's shared server of the example (tests/ui/conftest.py) for the tests that only
    read (each on a page of its own); the test that edits a file has a server of its own (`own_server`)."""
    return reader


@pytest.fixture
def own_server(workspace: Path) -> Iterator[BrainServer]:
    """A server of this test's own copy of the example, which the test changes."""
    served = BrainServer(workspace).start()
    yield served
    served.stop()


def test_link_report_filters_and_click_through_to_the_line(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/#/problems")
    report = page.get_by_role("region", name="Link report")
    expect(report).to_contain_text("82links")
    expect(report).to_contain_text("2broken")
    expect(page.get_by_role("status").filter(has_text="problems")).to_have_text("3 of 3 problems")
    snap(page, "problems")
    page.get_by_role("combobox", name="Severity").select_option("WARNING")
    expect(page.get_by_role("status").filter(has_text="problems")).to_have_text("1 of 3 problems")
    page.get_by_role("combobox", name="Severity").select_option("")
    page.get_by_role("combobox", name="Code").select_option("broken-link")
    page.get_by_role("combobox", name="Scope").select_option("on-call")
    rows = page.get_by_role("table", name="Problems", exact=True).get_by_role("row")
    expect(rows).to_have_count(2)  # the header and one problem
    page.get_by_role("link", name="memory/on-call/incident-2026-11-03.md:25:30").click()
    expect(page.get_by_role("heading", name="memory/on-call/incident-2026-11-03.md")).to_be_visible()
    # The cursor sits on the problem's line.
    expect(page.locator(".cm-lineNumbers .cm-activeLineGutter")).to_have_text("25")
    assert "[[postmortem-template]]" in page.locator(".cm-activeLine").inner_text()
    snap(page, "problems-click-through")


def test_a_fixed_link_leaves_the_problems_list_live(
    own_server: BrainServer, bare_page: Any, workspace: Path
) -> None:
    # The server first: its page closes before it stops (as the `page` fixture orders them).
    page, server = bare_page, own_server
    page.goto(f"{server.base}/#/problems")
    expect(page.get_by_role("status").filter(has_text="problems")).to_have_text("3 of 3 problems")
    (workspace / "memory/shared/postmortem-template.md").write_text(
        "---\ndescription: How we write postmortems.\ntype: reference\n---\n"
    )
    summary = page.get_by_role("status").filter(has_text="problems")
    expect(summary).to_have_text("2 of 2 problems", timeout=20_000)


def assert_no_node_hides_under_the_legend(page: Any) -> None:
    """Every drawn node lies inside the drawing, clear of the legend and the status line.

    The canvas says where its nodes are drawn (`data-extent`, the box of their discs in CSS
    pixels of the canvas); the legend's and the status line's boxes come from the page.
    """
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-extent", re.compile(r"^-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+$"))
    page.wait_for_timeout(100)  # the extent is noted after the last frame: let it settle
    box = canvas.bounding_box()
    left, top, right, bottom = (float(v) for v in canvas.get_attribute("data-extent").split(","))
    nodes = (box["x"] + left, box["y"] + top, box["x"] + right, box["y"] + bottom)
    inside = (box["x"] - 1, box["y"] - 1, box["x"] + box["width"] + 1, box["y"] + box["height"] + 1)
    assert inside[0] <= nodes[0], f"nodes drawn at {nodes}, off the drawing {inside}"
    assert inside[1] <= nodes[1], f"nodes drawn at {nodes}, off the drawing {inside}"
    assert nodes[2] <= inside[2], f"nodes drawn at {nodes}, off the drawing {inside}"
    assert nodes[3] <= inside[3], f"nodes drawn at {nodes}, off the drawing {inside}"
    overlays = (("legend", page.get_by_label("Legend")), ("status line", page.locator(".graph-status")))
    for name, overlay in overlays:
        o = overlay.bounding_box()
        other = (o["x"], o["y"], o["x"] + o["width"], o["y"] + o["height"])
        apart = nodes[2] <= other[0] or other[2] <= nodes[0] or nodes[3] <= other[1] or other[3] <= nodes[1]
        assert apart, f"nodes drawn at {nodes} reach under the {name} at {other}"


def test_graph_overview_find_expand_and_filter(page: Any, server: BrainServer) -> None:
    budgets: list[object] = []  # each overview asked for: the server picks the links drawn
    page.on("request", lambda r: budgets.append(json.loads(r.post_data)["variables"].get("edgeBudget"))
            if "graphOverview" in (r.post_data or "") else None)
    page.goto(f"{server.base}/#/graph")
    canvas = page.get_by_role("img", name=re.compile("^Whole workspace"))
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Whole workspace: \d+ nodes and \d+ edges"))
    assert budgets == [100_000], "one overview at first, the one prefetched, with the default budget"
    edges = canvas.get_attribute("data-edges")
    # A small workspace draws every link; the box that draws them all on big ones is there.
    all_links = page.get_by_role("checkbox", name="Draw all links")
    with page.expect_request(lambda r: "graphOverview" in (r.post_data or "")):
        all_links.check()
    expect(canvas).to_have_attribute("data-edges", edges or "")
    assert budgets == [100_000, None], "all links: the whole answer"
    expect(page.locator(".graph-status")).not_to_contain_text("links; the")
    all_links.uncheck()
    assert_no_node_hides_under_the_legend(page)
    snap(page, "graph-overview")
    find = page.get_by_role("combobox", name="Find a node")
    find.fill("glossa")
    option = page.get_by_role("option", name=re.compile("^glossary shared"))
    expect(option).to_be_visible()
    expect(page.get_by_role("option", name=re.compile("^glossary code-reviewer"))).to_be_visible()
    find.press("ArrowDown")  # keyboard: the second option is the shared glossary
    expect(option).to_have_attribute("aria-selected", "true")
    find.press("Enter")
    status = page.locator(".graph-status")
    expect(status).to_contain_text("Around shared/glossary, depth 1")
    details = page.get_by_role("complementary", name="Details")
    expect(details.get_by_role("heading", name="glossary")).to_be_visible()
    expect(details).to_contain_text("Backlinks")
    before = int(page.locator(".graph-canvas").get_attribute("data-nodes"))
    # Expand a neighbour: its own neighbours join the drawing.
    details.get_by_role("button", name=re.compile("^Select ")).first.click()
    expect(status).to_contain_text(re.compile(r"\(\+\d+ from "))
    after = int(page.locator(".graph-canvas").get_attribute("data-nodes"))
    assert after >= before
    assert_no_node_hides_under_the_legend(page)
    snap(page, "graph-expanded")
    # Depth 2 reaches further than depth 1.
    page.get_by_role("combobox", name="Depth").select_option("2")
    expect(status).to_contain_text("depth 2")
    # Filter to problem links only: fewer nodes are shown.
    page.get_by_role("button", name="Whole workspace").click()
    expect(status).to_contain_text("Whole workspace")
    page.get_by_role("combobox", name="Link status filter").select_option("PROBLEMS")
    expect(status).to_contain_text(re.compile(r", 4 shown by the filters"))
    snap(page, "graph-problems-only")
    page.get_by_role("combobox", name="Link status filter").select_option("")
    page.get_by_role("combobox", name="Agent filter").select_option("on-call")
    expect(status).to_contain_text("shown by the filters")
    page.get_by_role("combobox", name="Colour by").select_option("type")


def test_the_graph_page_and_the_schema(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/graphql")
    expect(page.get_by_role("heading", name="brain GraphQL API")).to_be_visible()
    page.get_by_role("link", name="The schema").click()
    expect(page.locator("body")).to_contain_text("type Query")
    page.goto(f"{server.base}/graphql")
    page.get_by_role("link", name="Open the web UI").click()
    expect(page.get_by_role("navigation", name="Views")).to_be_visible()


def test_memory_health_on_the_link_integrity_page(page: Any, server: BrainServer) -> None:
    """graphql/memory-health.graphql drawn: counts per scope and in all, hubs, most wanted, lists."""
    page.goto(f"{server.base}/#/problems")
    health = page.get_by_role("region", name="Memory health")
    table = health.get_by_role("table", name="Health per scope")
    total = table.get_by_role("row").filter(has=page.get_by_role("rowheader", name="all", exact=True))
    # notes, links, broken, ambiguous, missing anchor, orphans, stale, no description, no type
    expect(total.get_by_role("cell")).to_have_text(["33", "82", "2", "0", "0", "1", "0", "0", "2"])
    expect(table.get_by_role("row")).to_have_count(8)  # the header, six scopes, all
    hubs = health.get_by_role("group", name="Hubs").get_by_role("listitem")
    expect(hubs.first).to_have_text("shared/glossary (7 links in)")
    wanted = health.get_by_role("group", name="Most wanted")
    expect(wanted).to_contain_text("postmortem-template (1 note)")
    orphans = health.get_by_role("group", name="Orphans")
    expect(orphans.get_by_role("heading")).to_have_text("Orphans (1)")
    snap(page, "memory-health")
    orphans.get_by_role("link").first.click()
    expect(page.get_by_role("heading", name=re.compile(r"^memory.support-triage."))).to_be_visible()
