"""The whole-workspace view on a generated workspace, in a real browser against a real `brain serve`.

The workspace (bench/workload.py, 400 notes of 4 agents: about 425 nodes with its agents, entities
and unresolved targets) is big enough that the layout runs in the web worker (past 300 nodes,
web/src/graph/overview/layout.ts; the first test asserts it ran there). 600 notes cost 1-5 CPU-s
more a run (generating, ingesting, three layouts) for nothing these tests check. The page says
when the layout is done (`data-layout="settled"` on the canvas, and a `layoutsettled` event):
the test waits on that, not on a sleep.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import snap
from tests.ui.server import REPO, BrainServer

sys.path.insert(0, str(REPO / "bench"))
from workload import generate

NOTES = 400
# A converged layout of these notes takes seconds, more on a loaded machine.
SETTLE_MS = 120_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    """One server of the generated workspace for the module: its tests only read (they navigate
    and click in the drawing; no file and nothing the server keeps changes), and generating and
    ingesting the notes again was most of each test's time. Each test has its own page."""
    root = tmp_path_factory.mktemp("overview") / "workspace"
    generate(root, NOTES, agents=4, seed=7)
    served = BrainServer(root).start()
    yield served
    served.stop()


def settled(page: Any) -> dict[str, str]:
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-layout", "settled", timeout=SETTLE_MS)
    return dict(page.evaluate("Object.assign({}, document.querySelector('.graph-canvas').dataset)"))


def shown(page: Any) -> tuple[int, int]:
    """(nodes shown, nodes in the drawing), from the status line."""
    text = page.locator(".graph-status").inner_text()
    total = int(re.search(r"Whole workspace: (\d+) nodes", text).group(1))  # type: ignore[union-attr]
    some = re.search(r", (\d+) shown by the filters", text)
    return (int(some.group(1)) if some else total), total


def test_whole_workspace_settles_in_a_worker_coloured_by_community(page: Any, server: Any) -> None:
    # The event the page sends once settled, caught from the page's start.
    catch = "document.addEventListener('layoutsettled', (e) => { window.__settled = e.detail }, true)"
    page.add_init_script(catch)
    page.goto(f"{server.base}/#/graph")
    data = settled(page)
    assert data["layoutWhere"] == "worker", data
    assert data["layoutReason"] == "converged", data
    assert int(data["layoutIterations"]) > 0
    detail = page.evaluate("window.__settled")
    assert detail["where"] == "worker", detail
    assert detail["iterations"] == int(data["layoutIterations"]), detail
    # Coloured by community, with a legend naming the largest after their best-connected member.
    expect(page.get_by_role("combobox", name="Colour by")).to_have_value("community")
    legend = page.get_by_label("Legend")
    counts = [int(n) for n in re.findall(r"\((\d+)\)", legend.inner_text())]
    assert len(counts) >= 2, legend.inner_text()
    assert counts == sorted(counts, reverse=True), "the largest communities first"
    # Node size follows degree: the best-connected nodes are labelled, none over another.
    hubs = json.loads(page.locator(".graph-canvas").get_attribute("data-hubs") or "[]")
    assert len(hubs) >= 4
    labels = json.loads(page.locator(".graph-canvas").get_attribute("data-labels") or "[]")
    named = {str(b[0]) for b in labels}
    assert {str(h[0]).split("/")[-1].removeprefix("agent:") for h in hubs[:2]} & named, (hubs, labels)
    snap(page, "graph-overview-settled")


def test_problem_links_are_a_layer_off_by_default(page: Any, server: Any) -> None:
    page.goto(f"{server.base}/#/graph")
    settled(page)
    layer = page.get_by_role("checkbox", name="Problem links")
    expect(layer).not_to_be_checked()
    visible, total = shown(page)
    assert visible < total, "unresolved targets are not drawn until asked for"
    expect(page.get_by_label("Legend")).not_to_contain_text("broken / unresolved")
    layer.check()
    expect(page.locator(".graph-status")).not_to_contain_text("shown by the filters")
    expect(page.get_by_label("Legend")).to_contain_text("broken / unresolved")
    snap(page, "graph-overview-problem-layer")
    layer.uncheck()
    expect(page.locator(".graph-status")).to_contain_text("shown by the filters")
    assert shown(page) == (visible, total)


def test_a_click_on_a_node_goes_to_its_neighbourhood(page: Any, server: Any) -> None:
    page.goto(f"{server.base}/#/graph")
    settled(page)
    page.wait_for_timeout(200)  # data-hubs is noted at the still frame after the last move
    hubs = json.loads(page.locator(".graph-canvas").get_attribute("data-hubs") or "[]")
    node, _kind, x, y, _degree = next(h for h in hubs if h[1] == "memory")
    box = page.locator(".graph-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_function("(id) => decodeURIComponent(location.hash) === '#/graph?node=' + id", arg=node)
    status = page.locator(".graph-status")
    expect(status).to_contain_text(f"Around {node.removeprefix('memory:')}, depth 1")
    details = page.get_by_role("complementary", name="Details")
    expect(details.get_by_role("heading", level=2)).to_have_text(node.split("/")[-1])
    assert page.locator(".graph-canvas").get_attribute("data-layout") is None, "no layout runs around a node"
    snap(page, "graph-overview-click-through")
