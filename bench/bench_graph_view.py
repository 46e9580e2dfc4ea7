"""The whole-workspace graph view in headless Chromium, against a real `brain serve`.

    .venv/bin/python bench/bench_graph_view.py [--sizes 10000,100000] [--profiles default,real] [--runs 3]

For each workload (bench/workload.py, both shapes: `default` and `--profile real`) and size, the
page opens #/graph. Past 5,000 notes that is the summary (GraphQL graphClusters: a disc per scope
and per cluster); the figures come from the page's own clock (`performance.now()`, marks the
view sets): the summary answered, first drawn, its layout settled (in the worker), the longest
the page's thread was blocked from the page's start to the settled layout (a 50 ms timer's
lateness), frame times while the camera is dragged and while it zooms (bench_ui's pan and zoom),
the JS heap; then a click on the largest cluster: its notes answered, drawn and settled, the
longest block meanwhile. The server's first summary is made in the background once it is ready
(`server_summary_ms`: the first ask's time, then a cached one). The load average is printed with
the figures: client, server and other work share the machine. Writes bench/results/graph_view.json
and the first run's screenshots (tests/ui/artifacts/graph-overview-<N>k[-real].png, -cluster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from math import nan
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
import httpx  # noqa: E402
from bench_api import start_server  # noqa: E402
from bench_ui import new_page, pan, zoom  # noqa: E402
from workload import generate  # noqa: E402

from tests.ui.server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ensure_built  # noqa: E402

# Installed before the page's own code: how late a 50 ms timer runs, from the start.
LAG = """window.__lag = []; window.__lagStop = false; { let last = performance.now();
  const tick = () => { const now = performance.now(); window.__lag.push([now, now - last - 50]); last = now;
    if (!window.__lagStop) setTimeout(tick, 50); }; setTimeout(tick, 50); }"""
CLUSTERS = (ROOT / "graphql" / "graph-clusters.graphql").read_text(encoding="utf-8")


def lag_until(page: Any, since: float = 0.0) -> float:
    """The longest the page's thread was blocked (ms) after `since` (page clock)."""
    lags = page.evaluate("window.__lag")
    return round(max((lag for at, lag in lags if at >= since), default=nan), 1)


def settled(page: Any, level: str) -> None:
    page.wait_for_selector(f".graph-canvas[data-level={level}][data-layout=settled]", timeout=600_000)


def one_run(browser: Any, base: str, shot: str | None) -> dict[str, Any]:
    page = new_page(browser)
    try:
        page.add_init_script(LAG)
        page.goto(f"{base}/#/graph")
        settled(page, "clusters")
        marks = page.evaluate(
            "Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))")
        data = page.evaluate("Object.assign({}, document.querySelector('.graph-canvas').dataset)")
        blocked = lag_until(page)
        heap = float(page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : NaN")) / 2**20
        page.wait_for_timeout(1000)  # labels are chosen once the drawing is still
        hubs = json.loads(page.locator(".graph-canvas").get_attribute("data-hubs") or "[]")
        if shot:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{shot}.png"))
        panned = pan(page)
        zoomed = zoom(page)
        # The largest cluster (as data-hubs noted it when still), opened as a click opens it: by its route.
        cluster = next(h for h in hubs if h[1] == "cluster" and not h[0].startswith("cluster:@"))
        clicked = float(page.evaluate("performance.now()"))
        page.evaluate("(id) => { location.hash = '#/graph?cluster=' + encodeURIComponent(id); }", cluster[0])
        settled(page, "cluster")
        drill = page.evaluate(
            "(t) => Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.startTime > t)"
            ".map((m) => [m.name, m.startTime - t]))", clicked)
        drill_data = page.evaluate("Object.assign({}, document.querySelector('.graph-canvas').dataset)")
        drill_blocked = lag_until(page, clicked)
        if shot:
            page.wait_for_timeout(1000)
            page.screenshot(path=str(ARTIFACTS / f"{shot}-cluster.png"))
        return {
            "nodes": int(data["nodes"]), "edges": int(data["edges"]),
            "answered_ms": round(marks.get("overview:answered", nan)),
            "first_drawn_ms": round(marks.get("overview:handed", nan)),
            "settled_ms": round(marks.get("overview:settled", nan)),
            "layout_ms": int(data["layoutMs"]), "iterations": int(data["layoutIterations"]),
            "reason": data["layoutReason"], "longest_block_ms": blocked,
            "pan": pan_round(panned), "zoom": pan_round(zoomed), "js_heap_mb": round(heap, 1),
            "cluster": {"id": cluster[0], "nodes": int(drill_data["nodes"]),
                        "edges": int(drill_data["edges"]),
                        "answered_ms": round(drill.get("overview:answered", nan)),
                        "first_drawn_ms": round(drill.get("overview:handed", nan)),
                        "settled_ms": round(drill.get("overview:settled", nan)),
                        "longest_block_ms": drill_blocked},
        }
    finally:
        page.close()


def pan_round(m: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 1) for k, v in m.items()}


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs))


def server_summary_ms(url: str) -> list[float]:
    """The summary's time as a client sees it: the first ask (made ahead, or waiting for it), then cached."""
    out = []
    for _ in range(2):
        t0 = time.perf_counter()
        answer = httpx.post(url, json={"query": CLUSTERS}, timeout=900).json()
        out.append(round((time.perf_counter() - t0) * 1000))
        assert "errors" not in answer, answer
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--profiles", default="default,real")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    ensure_built()
    report: dict[str, Any] = {"cpus": os.cpu_count(), "runs": args.runs,
                              "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for profile in args.profiles.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                name = f"workload-{size}" + ("" if profile == "default" else f"-{profile}")
                root = args.cache / name
                if not (root / ".workload.json").exists():
                    generate(root, size, profile=profile)
                process, url, _ = start_server(root, "memory")
                try:
                    time.sleep(2)  # the summary is made in the background once ready: the first ask waits
                    summary_ms = server_summary_ms(url)
                    base = url.removesuffix("/graphql").rstrip("/")
                    shot = f"graph-overview-{size // 1000}k" + ("" if profile == "default" else f"-{profile}")
                    runs = [one_run(browser, base, shot if k == 0 else None) for k in range(args.runs)]
                finally:
                    process.terminate()
                    process.wait(60)
                middle = sorted(runs, key=lambda r: r["settled_ms"])[len(runs) // 2]
                report[name] = {
                    "server_summary_ms": summary_ms,
                    "settled_ms_median": median_of(runs, "settled_ms"),
                    "first_drawn_ms_median": median_of(runs, "first_drawn_ms"),
                    "longest_block_ms_max": max(r["longest_block_ms"] for r in runs),
                    "median_run": middle,
                    "all_settled_ms": [r["settled_ms"] for r in runs],
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                }
                print(json.dumps({name: report[name]}, indent=2), flush=True)
        browser.close()
    out = HERE / "results" / "graph_view.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
