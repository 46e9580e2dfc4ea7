"""The whole workspace past a few thousand notes, in a real browser against a real `brain serve`:
it opens summed up as scopes and clusters (GraphQL graphClusters), counted as the API counts
them, and a click on a cluster draws that cluster's notes (graphOverview(cluster:)).

The workspace is bench/workload.py's, 6,000 notes of 8 agents by default (past the page's
CLUSTERS_ABOVE, 5,000); BRAIN_UI_BIG_NOTES=100000 runs the same checks at 100,000 (minutes to
ingest). The screenshot is tests/ui/artifacts/graph-overview-<N>k.png.

The two tests read one tab of the summary (`summary`, loaded and settled once a module): the
second began with the same load and settle as the first (about a third of its time), and it
ends on the summary again (Back), where it found it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.ui.conftest import ConsoleErrors, close_page, open_page, snap, ui_browser, went_wrong
from tests.ui.server import REPO, BrainServer

sys.path.insert(0, str(REPO / "bench"))
from workload import generate

NOTES = int(os.environ.get("BRAIN_UI_BIG_NOTES", "6000"))
SETTLE_MS = 180_000
CLUSTERS = (REPO / "graphql" / "graph-clusters.graphql").read_text(encoding="utf-8")
CLUSTER_NOTES = (REPO / "graphql" / "cluster-notes.graphql").read_text(encoding="utf-8")
MAX_CLUSTERS = 300  # web/src/graph/overview/clusters.ts
NOTES_CAP = 1500


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    root = tmp_path_factory.mktemp("big") / "workspace"
    generate(root, NOTES, agents=8, seed=7)
    server = BrainServer(root).start(timeout=1800)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def summary(big: BrainServer, request: pytest.FixtureRequest) -> Iterator[Any]:
    """One tab of the whole workspace, settled as scopes and clusters, for the module's tests
    (a context of its own, as `bare_page` gives; it must log no errors in either test). Each
    test leaves it on the summary: the click-through goes Back, and waits for it to settle."""
    console = ConsoleErrors()
    context, page = open_page(ui_browser(), console)
    page.goto(f"{big.base}/#/graph")
    settled(page, "clusters")
    yield page
    failed = any(went_wrong(item) for item in request.session.items if item.path == request.path)
    close_page(context, page, console, "graph-clusters-summary", failed)


@pytest.fixture
def page(browser: Any, summary: Any) -> Any:
    """The module's summary tab (`browser`: the worker's Chromium stays open between the two)."""
    return summary


def ask(server: BrainServer, query: str, **variables: Any) -> Any:
    answer = httpx.post(
        f"{server.base}/graphql", json={"query": query, "variables": variables}, timeout=600
    ).json()
    assert "errors" not in answer, answer
    return answer["data"]


def settled(page: Any, level: str) -> Any:
    canvas = page.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-level", level, timeout=SETTLE_MS)
    expect(canvas).to_have_attribute("data-layout", "settled", timeout=SETTLE_MS)
    return canvas


def cluster_label(c: dict[str, Any]) -> str:
    """What the page writes on a cluster: its name within its scope and its notes."""
    name = c["label"].removeprefix(f"{c['scope']} · ") if c["kind"] == "notes" else c["label"]
    unit = "linked" if c["kind"] == "entities" else "note" if c["notes"] == 1 else "notes"
    return f"{name} · {c['notes']:,} {unit}"


def test_the_whole_workspace_opens_as_scopes_and_clusters_counted_as_graphql_says(
    page: Any, big: BrainServer
) -> None:
    answer = ask(big, CLUSTERS)["graphClusters"]
    assert answer["notes"] == NOTES
    assert page.evaluate("() => location.hash") == "#/graph"
    canvas = settled(page, "clusters")
    scopes = [s for s in answer["scopes"] if s["notes"]]
    drawn = min(len(answer["clusters"]), MAX_CLUSTERS)
    assert int(canvas.get_attribute("data-nodes")) == len(scopes) + drawn
    expect(page.locator(".graph-status")).to_contain_text(
        f"{answer['notes']:,} notes in {len(scopes)} scopes and {drawn} clusters, {answer['links']:,} links, "
        f"{answer['problems']:,} problem links"
    )
    # Every label drawn names a scope or cluster with the count the API gives; none over another.
    page.wait_for_function(
        "() => (document.querySelector('.graph-canvas').dataset.labels || '[]').length > 2"
    )
    labels = json.loads(canvas.get_attribute("data-labels") or "[]")
    named = {str(b[0]) for b in labels}
    expected = {cluster_label(c) for c in answer["clusters"]} | {
        f"{s['scope']} · {s['notes']:,} notes" for s in scopes
    }
    assert named <= expected, named - expected
    # Scopes are named first; one in the thick of its clusters may give way to keep labels apart.
    assert named & {f"{s['scope']} · {s['notes']:,} notes" for s in scopes}, "scopes are named"
    assert len(named) > len(scopes), "clusters are named too"
    boxes = [b[1:] for b in labels]
    assert not any(
        a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
    ), "no label over another"
    # A cluster's label is what a person finds in the workspace: the folder from their scope on,
    # the names' glob or their alphabetical run, and how many notes; no code word ("other: a … w").
    for c in answer["clusters"]:
        if c["kind"] == "notes":
            text = cluster_label(c)
            assert text.startswith(f"{c['scope']}/"), text
            assert text.endswith(f" · {c['notes']:,} notes") or c["notes"] == 1, text
            assert "other:" not in text, text
    assert any(text.endswith("-*") for c in answer["clusters"] if (text := c["label"]))
    # No disc over another: the discs as the page draws them (sigma's own positions and sizes).
    discs = json.loads(canvas.get_attribute("data-discs") or "[]")
    assert len(discs) == int(canvas.get_attribute("data-nodes"))
    overlapping = [
        (a[0], b[0])
        for i, a in enumerate(discs)
        for b in discs[i + 1 :]
        if (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2 < (a[3] + b[3] - 0.5) ** 2
    ]
    assert not overlapping, overlapping[:5]
    snap(page, f"graph-overview-{NOTES // 1000}k")


def test_a_click_on_a_cluster_draws_its_notes(page: Any, big: BrainServer) -> None:
    answer = ask(big, CLUSTERS)["graphClusters"]
    by_id = {c["id"]: c for c in answer["clusters"]}
    assert page.evaluate("() => location.hash") == "#/graph"
    canvas = settled(page, "clusters")
    page.wait_for_timeout(300)  # data-hubs is noted at the still frame after the last move
    hubs = json.loads(canvas.get_attribute("data-hubs") or "[]")
    node, _kind, x, y, _notes = next(h for h in hubs if h[1] == "cluster" and by_id[h[0]]["kind"] == "notes")
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    # The cluster clicked, or the scope whose disc lies over it: either draws its notes.
    page.wait_for_function("() => location.hash.startsWith('#/graph?cluster=')")
    node = page.evaluate("() => new URLSearchParams(location.hash.split('?')[1]).get('cluster')")
    settled(page, "cluster")
    scopes = {f"scope:{s['scope']}": s for s in answer["scopes"]}
    if node in scopes:
        scope, total, title = scopes[node]["scope"], scopes[node]["notes"], f"Scope {scopes[node]['scope']}"
    else:
        cluster = by_id[node]
        scope, total = cluster["scope"], cluster["notes"]
        name = cluster_label(cluster).rsplit(" · ", 1)[0]
        title = name if name.startswith(f"{scope}/") else f"{scope} · {name}"
    drill = ask(big, CLUSTER_NOTES, cluster=node)["graphOverview"]
    columns = drill["columns"]
    memories = [i for i, k in zip(columns["id"], columns["kind"], strict=True) if k == "memory"]
    # Its notes, as many as it holds (or the cap), all of its scope.
    assert len(memories) == min(total, NOTES_CAP)
    assert drill["memoryTotal"] == total
    assert all(m.startswith(f"memory:{scope}/") for m in memories)
    assert int(canvas.get_attribute("data-nodes")) == len(columns["id"])
    status = page.locator(".graph-status")
    if total > NOTES_CAP:
        more = f"{total - NOTES_CAP:,} more not drawn"
        expect(status).to_contain_text(more)
        expect(page.get_by_role("note")).to_contain_text(more)
    else:
        expect(status).to_contain_text(f"{title}: {total:,} notes")
    # The notes drawn are the cluster's: its best-linked, where the page says they are.
    page.wait_for_timeout(300)
    drawn = json.loads(canvas.get_attribute("data-hubs") or "[]")
    assert {h[0] for h in drawn if h[1] == "memory"} <= set(memories)
    snap(page, f"graph-cluster-{NOTES // 1000}k")
    # Back: the summary again.
    page.go_back()
    expect(page).to_have_url(f"{big.base}/#/graph")
    settled(page, "clusters")
