"""Graph labels in a real browser: no label is drawn over another, the selected node's always shows.

The canvas exposes the boxes of the labels it drew (`data-labels`: JSON [[label, left, top,
right, bottom], ...] in CSS pixels of the drawing, from the same measurements the placement uses)
and how many labels it left out to keep them apart (`data-labels-dropped`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
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
    read (each on a page of its own): zoom, select, filter change no file and nothing the server keeps."""
    return reader

Box = tuple[str, float, float, float, float]


def drawn_labels(page: Any) -> list[Box]:
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-labels", re.compile(r"^\[\[.+\]\]$"))
    page.wait_for_timeout(150)  # the boxes are noted on each still frame: let the last one land
    boxes = json.loads(canvas.get_attribute("data-labels"))
    return [(str(b[0]), float(b[1]), float(b[2]), float(b[3]), float(b[4])) for b in boxes]


def settled_labels(page: Any, seconds: float = 10.0) -> list[Box]:
    """The labels once the zoom's glide has stopped: the same boxes on two reads 300 ms apart
    (a fixed wait was too short on a loaded machine, where the glide takes longer)."""
    canvas = page.locator(".graph-canvas")
    last = None
    for _ in range(int(seconds / 0.3)):
        page.wait_for_timeout(300)
        now = canvas.get_attribute("data-labels")
        if now is not None and now == last:
            break
        last = now
    return drawn_labels(page)


def meet(a: Box, b: Box) -> bool:
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def assert_apart(labels: list[Box]) -> None:
    clashes = [(a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1:] if meet(a, b)]
    assert clashes == [], f"labels drawn over each other: {clashes}"


def test_overview_labels_never_overlap(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/#/graph")
    canvas = page.get_by_role("img", name=re.compile("^Whole workspace"))
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Whole workspace: \d+ nodes"))
    labels = drawn_labels(page)
    snap(page, "graph-labels-overview")
    names = [b[0] for b in labels]
    assert_apart(labels)
    # The example workspace is small (every node a candidate): some labels are named, and
    # agents, whose labels come first, are all there unless one sits on another agent's.
    assert len(labels) >= 10, names
    assert {"on-call", "code-reviewer", "support-triage"} <= set(names), names
    # The pair issue 10 saw drawn on top of each other: never both, overlapping.
    pair = [b for b in labels if b[0] in ("incident-2026-11-03", "⚠ postmortem-template")]
    assert len(pair) < 2 or not meet(*pair), pair
    # Every box lies on the drawing (the labels' own geometry, not just the nodes').
    box = canvas.bounding_box()
    for name, left, top, right, bottom in labels:
        on = (0, 0, box["width"], box["height"])
        assert meet((name, left, top, right, bottom), (name, *on)), f"{name} drawn off the drawing"


def wheel_until(page: Any, dy: int, done: Callable[[list[Box]], bool], most: int = 12) -> list[Box]:
    """Wheel one notch at a time until `done(labels)`, each notch after the last one's glide:
    the labels once it has ended (`most` notches at most).

    Six notches 80 ms apart zoomed by what the machine allowed: sigma drops a notch that comes
    within a fifth of its glide (50 ms) of the last in the same direction, and a loaded machine
    delivers the wheel events bunched. And a wait for the labels to change after the zoom,
    against `json.dumps` of the boxes (spaces, `1.0`), never matched what the page wrote (its
    JSON.stringify), so it never waited: the labels read could be the ones from before the zoom.
    """
    canvas = page.locator(".graph-canvas")
    labels: list[Box] = []
    for _ in range(most):
        before = canvas.get_attribute("data-labels")
        page.mouse.wheel(0, dy)
        # The boxes are noted at still frames only: a change is the glide's end (a notch moves
        # every label but one at the very centre).
        expect(canvas).not_to_have_attribute("data-labels", before or "", timeout=15_000)
        labels = settled_labels(page)
        if done(labels):
            break
    return labels


def test_zoomed_out_drops_labels_then_zooming_in_brings_them_back(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/#/graph")
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Whole workspace: \d+ nodes"))
    first = settled_labels(page)
    box = canvas.bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*centre)
    # Zoom out: the nodes crowd together, so fewer labels fit.
    out = wheel_until(page, 300, lambda now: len(now) < len(first))
    assert_apart(out)
    assert 0 < len(out) < len(first), (len(out), len(first))
    assert int(canvas.get_attribute("data-labels-dropped")) > 0
    snap(page, "graph-labels-zoomed-out")
    back = wheel_until(page, -300, lambda now: len(now) > len(out))
    assert_apart(back)
    assert len(back) > len(out)


def test_the_selected_node_and_its_neighbours_are_named(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/#/graph?node=memory:shared/glossary")
    status = page.locator(".graph-status")
    expect(status).to_contain_text("Around shared/glossary, depth 1")
    labels = drawn_labels(page)
    assert "glossary" in [b[0] for b in labels]
    assert_apart(labels)
    # Depth 3 crowds the drawing; the selected node's label still shows.
    page.get_by_role("combobox", name="Depth").select_option("3")
    expect(status).to_contain_text("depth 3")
    page.wait_for_timeout(300)
    labels = drawn_labels(page)
    assert "glossary" in [b[0] for b in labels]
    assert_apart(labels)
    snap(page, "graph-labels-focus")


def test_filters_hide_their_nodes_labels(page: Any, server: BrainServer) -> None:
    page.goto(f"{server.base}/#/graph")
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("aria-label", re.compile(r"Whole workspace: \d+ nodes"))
    before = drawn_labels(page)
    assert "code-reviewer" in [b[0] for b in before]
    page.get_by_role("combobox", name="Agent filter").select_option("on-call")
    expect(page.locator(".graph-status")).to_contain_text("shown by the filters")
    expect(canvas).not_to_have_attribute("data-labels", re.compile(r'"code-reviewer"'))  # chosen again
    labels = drawn_labels(page)
    names = [b[0] for b in labels]
    assert "on-call" in names
    assert "code-reviewer" not in names, "a hidden agent is not named"
    assert_apart(labels)
