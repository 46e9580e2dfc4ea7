"""The whole-workspace graph view in headless Chromium: time to a settled layout, and frame times.

    .venv/bin/python bench/bench_graph_view.py [--sizes 10000,100000] [--runs 3]

For each size: the page opens #/graph and the figures come from its own clock
(`performance.now()`, marks the view sets): the overview answered, first drawn, the layout
settled (the worker's ForceAtlas2 converged, or stopped at its time budget: the reason is
reported), and its iterations; frame times of the page while the layout runs (the page's own
thread, which the worker leaves free); then, settled, frame times while the camera is dragged
and while it zooms (bench_ui's pan and zoom).

10,000 is the real workload (bench/workload.py) behind a real `brain serve`. 100,000 notes would
take that server minutes and gigabytes to read on this shared machine, so past --real-max the
overview's answer is made here instead, with the workload's shape (agents and shared notes,
five links a note mostly within the scope, 5% broken, one REMEMBERS edge a note) and cut by the
server's own rule (brain.service.overview.overview_backbone, the same budget the page asks for),
and handed to the page by Playwright in place of the server's answer; the page, the worker and
the drawing are the ones measured either way. The load average is printed with the figures:
client, server and other work share the machine. Writes bench/results/graph_view.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from math import nan
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import percentiles, start_server  # noqa: E402
from bench_ui import new_page, pan, zoom  # noqa: E402
from workload import generate  # noqa: E402

from brain.model import LinkStatus  # noqa: E402
from brain.service.overview import overview_backbone  # noqa: E402
from tests.ui.server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ensure_built  # noqa: E402

LAG = """() => { window.__lag = []; let last = performance.now();
  window.__lagTimer = setInterval(() => {
    const now = performance.now(); window.__lag.push(now - last - 50); last = now; }, 50); }"""

# What the page asks for by default (web/src/ops.ts OVERVIEW_EDGE_BUDGET).
EDGE_BUDGET = 100_000


def synthetic_overview(notes: int, agents: int = 8, seed: int = 7) -> dict[str, Any]:
    """A graphOverview answer of `notes` notes with the workload's shape, cut as the server cuts it."""
    rng = random.Random(seed)
    scopes = ["shared"] + [f"agent-{a}" for a in range(agents)]
    ids: list[str] = []
    kind: list[str] = []
    scope_of: list[str | None] = []
    for a in range(agents):
        ids.append(f"agent:agent-{a}")
        kind.append("agent")
        scope_of.append(f"agent-{a}")
    members: dict[str, list[int]] = {s: [] for s in scopes}
    for i in range(notes):
        s = "shared" if i % 10 == 0 else scopes[1 + i % agents]
        members[s].append(len(ids))
        ids.append(f"memory:{s}/note-{i}")
        kind.append("memory")
        scope_of.append(s)
    missing = max(5, notes // 40)
    first_missing = len(ids)
    for m in range(missing):
        ids.append(f"unresolved:missing-{m}")
        kind.append("unresolved")
        scope_of.append(None)
    sources: list[int] = []
    targets: list[int] = []
    statuses: list[LinkStatus | None] = []
    for s, nodes in members.items():
        for n in nodes:
            if s != "shared":
                sources.append(scopes.index(s) - 1)
                targets.append(n)
                statuses.append(None)
            for _ in range(5):
                roll = rng.random()
                if roll < 0.05:
                    sources.append(n)
                    targets.append(first_missing + rng.randrange(missing))
                    statuses.append(LinkStatus.BROKEN)
                    continue
                pool = members["shared"] if roll < 0.2 else nodes
                sources.append(n)
                targets.append(rng.choice(pool))
                statuses.append(LinkStatus.RESOLVED)
    cut = overview_backbone(sources, targets, statuses, len(ids), EDGE_BUDGET)
    status_name = {None: None, LinkStatus.RESOLVED: "resolved", LinkStatus.BROKEN: "broken"}
    columns = {
        "id": ids, "kind": kind, "label": [i.split("/")[-1].split(":")[-1] for i in ids], "scope": scope_of,
        "type": [None] * len(ids), "problems": [0] * len(ids), "memoryOff": [False] * len(ids),
        "degree": cut.degree,
        "source": [sources[i] for i in cut.kept], "target": [targets[i] for i in cut.kept],
        "status": [status_name[statuses[i]] for i in cut.kept],
    }
    return {"data": {"graphOverview": {"truncated": False, "edgeTotal": cut.total, "columns": columns}}}


def one_run(browser: Any, base: str, answer: bytes | None, shot: str | None) -> dict[str, Any]:
    page = new_page(browser)
    try:
        if answer is not None:
            def overview(route: Any) -> None:
                if "graphOverview" in (route.request.post_data or ""):
                    route.fulfill(status=200, content_type="application/json", body=answer)
                else:
                    route.continue_()
            page.route("**/graphql", overview)
        page.goto(f"{base}/#/graph")
        page.wait_for_selector(".graph-canvas[data-layout]", timeout=300_000)
        # How late a 50 ms timer on the page's thread runs while the worker lays out: the time
        # the page could not answer a person (it draws each batch of positions the worker sends).
        page.evaluate(LAG)
        page.wait_for_selector(".graph-canvas[data-layout=settled]", timeout=300_000)
        during = [max(0.0, f) / 1000 for f in page.evaluate("clearInterval(window.__lagTimer), window.__lag")]
        marks = page.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))")
        data = page.evaluate("Object.assign({}, document.querySelector('.graph-canvas').dataset)")
        heap = float(page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : NaN")) / 2**20
        placing = page.evaluate("performance.getEntriesByName('labels', 'measure').map((e) => e.duration)")
        page.wait_for_timeout(1000)  # labels are chosen once the drawing is still
        if shot:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{shot}.png"))
        panned = pan(page)
        zoomed = zoom(page)
        busy = percentiles(during) if during else {"p50_ms": nan, "p95_ms": nan, "n": 0}
        return {
            "nodes": int(data["nodes"]), "edges": int(data["edges"]),
            "answered_ms": round(marks.get("overview:answered", nan)),
            "first_drawn_ms": round(marks.get("overview:handed", nan)),
            "settled_ms": round(marks.get("overview:settled", nan)),
            "layout_ms": int(data["layoutMs"]), "iterations": int(data["layoutIterations"]),
            "level": data.get("layoutLevel"),
            "reason": data["layoutReason"],
            "page_lag_while_laying_out": pan_round({**{k: busy[k] for k in ("p50_ms", "p95_ms", "n")},
                                                    "max_ms": max(during, default=nan) * 1000}),
            "pan": pan_round(panned), "zoom": pan_round(zoomed), "js_heap_mb": round(heap, 1),
            "label_placement_max_ms": round(max(placing, default=nan), 1),
        }
    finally:
        page.close()


def pan_round(m: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 1) for k, v in m.items()}


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real-max", type=int, default=10_000,
                        help="past this many notes the overview is synthetic")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    ensure_built()
    sizes = [int(s) for s in args.sizes.split(",")]
    real = min(sizes[0], args.real_max)
    root = args.cache / f"workload-{real}"
    if not (root / ".workload.json").exists():
        generate(root, real)
    process, url, _ = start_server(root, "memory")
    base = url.removesuffix("/graphql").rstrip("/")
    report: dict[str, Any] = {"cpus": os.cpu_count(), "runs": args.runs,
                              "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for size in sizes:
                answer = None if size <= args.real_max else json.dumps(synthetic_overview(size)).encode()
                shot = f"graph-overview-{size // 1000}k" if size % 1000 == 0 else f"graph-overview-{size}"
                runs = [one_run(browser, base, answer, shot if k == 0 else None)
                        for k in range(args.runs)]
                middle = sorted(runs, key=lambda r: r["settled_ms"])[len(runs) // 2]
                report[str(size)] = {
                    "overview": "real" if answer is None else "synthetic",
                    "settled_ms_median": median_of(runs, "settled_ms"),
                    "first_drawn_ms_median": median_of(runs, "first_drawn_ms"),
                    "layout_ms_median": median_of(runs, "layout_ms"), "median_run": middle,
                    "all_settled_ms": [r["settled_ms"] for r in runs], "reasons": [r["reason"] for r in runs],
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                }
                print(json.dumps({size: report[str(size)]}, indent=2), flush=True)
            browser.close()
    finally:
        process.terminate()
        process.wait(30)
    out = HERE / "results" / "graph_view.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
