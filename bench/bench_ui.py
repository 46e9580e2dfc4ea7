"""The web UI in headless Chromium against a real `brain serve` on the 10,000-note workload.

    .venv/bin/python bench/bench_ui.py [--notes 10000] [--runs 5] [--samples 30]
    .venv/bin/python bench/bench_ui.py --url http://127.0.0.1:8765 --only list,expand

(`--url` measures a `brain serve` already running on the same workload, e.g. two builds side by
side with BRAIN_WEB_DIST, to interleave old and new; `--only` takes some of the measures.)

Measured (times from the page's own clock, `performance.now()`):

* first rendered memory list: navigation start to the first row of the Shared table;
* first drawn graph overview: navigation start to every node and edge in the drawing, then
  one more frame; and whether it stays pannable: frame times while the camera is dragged, and
  while it zooms (wheel in and out);
* label placement (which labels the drawing shows, none over another): the time of each
  placement (`performance.measure('labels')`) over the overview, the pan and a zoom in, and the
  labels then drawn;
* open a note: from asking for a note (the route changes) to its editor showing its text;
* expand a node: from a click on a neighbour in the details panel to its neighbours drawn;
* the page's JS heap with the overview loaded; the bundle's size, raw and gzipped.

Goals (issue 10): list < 1 s, expand p95 < 100 ms, overview < 3 s and pannable. Client and
server share the machine: the load average is printed with the figures. Prints a summary and
writes bench/results/ui.json (a full run on its own server).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import sys
import time
from math import isnan, nan
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from bench_api import peak_rss_mb, percentiles, start_server  # noqa: E402
from workload import generate  # noqa: E402

from tests.ui.server import CHROMIUM, CHROMIUM_ARGS, ensure_built  # noqa: E402

DIST = ROOT / "brain" / "api" / "web_dist"

# Resolves once `check()` is true, polled every animation frame, then waits one more frame so
# what changed is painted; answers the time it took from `t0`.
WAIT = """async ([t0, check]) => {
  const ok = new Function('return (' + check + ')');
  const deadline = performance.now() + 60000;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error('timed out: ' + check);
    await new Promise((r) => requestAnimationFrame(r));
  }
  await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t0;
}"""


def rounded(x: float) -> float | None:
    return None if isnan(x) else round(x)


def new_page(browser: Any) -> Any:
    # The app's CSP forbids eval; the bench's own probes (wait_for_function) need it.
    return browser.new_page(viewport={"width": 1400, "height": 860}, bypass_csp=True)


def bundle() -> dict[str, float]:
    files = [p for p in (DIST / "assets").iterdir() if p.is_file()]
    raw = sum(p.stat().st_size for p in files)
    gz = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
    # What the first screen (the memory list) loads: the entry and what index.html preloads.
    page = (DIST / "index.html").read_text()
    first = [DIST / "assets" / name for name in re.findall(r'href="assets/([^"?]+)', page)]
    first += [DIST / "assets" / "app.js"]
    first_gz = sum(len(gzip.compress(p.read_bytes(), 9)) for p in first)
    return {"files": len(files), "raw_kib": round(raw / 1024, 1), "gzip_kib": round(gz / 1024, 1),
            "first_screen_gzip_kib": round(first_gz / 1024, 1)}


def first_list(browser: Any, base: str) -> float:
    page = new_page(browser)
    try:
        page.goto(f"{base}/#/memory/shared")
        page.wait_for_selector("table.files tbody tr td a")
        return float(page.evaluate(WAIT, [0, "document.querySelector('table.files tbody tr td a')"]))
    finally:
        page.close()


Measures = dict[str, float]


def first_overview(browser: Any, base: str) -> tuple[float, Measures, float, Measures, Measures]:
    page = new_page(browser)
    try:
        page.goto(f"{base}/#/graph")
        drawn = "/^Whole workspace: /.test(document.querySelector('.graph-status')?.textContent ?? '')"
        took = float(page.evaluate(WAIT, [0, drawn]))
        heap = float(page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : NaN")) / 2**20
        # Settled before the pan: labels of a big drawing are chosen 100 ms after it is still
        # (label_placement reports that cost); the pan measures frames while dragging.
        page.wait_for_timeout(1000)
        frames = pan(page)
        zoomed = zoom(page)
        return took, frames, heap, labels(page), zoomed
    finally:
        page.close()


FRAMES = """() => { window.__frames = []; let last = performance.now();
  const tick = (t) => { window.__frames.push(t - last); last = t;
    if (window.__frames.length < 400) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def zoom(page: Any) -> dict[str, float]:
    """Wheels in and out on the middle for about a second: frame times while the camera glides."""
    page.wait_for_timeout(500)  # the pan's glide ends
    box = page.locator(".graph-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.evaluate(FRAMES)
    start = time.monotonic()
    step = 0
    while time.monotonic() - start < 1.0:
        step += 1
        page.mouse.wheel(0, -200 if step % 4 < 2 else 200)
        page.wait_for_timeout(60)
    frames = [f / 1000 for f in page.evaluate("window.__frames")[2:]]
    p = percentiles(frames)
    page.wait_for_timeout(500)
    return {"frame_p50_ms": p["p50_ms"], "frame_p95_ms": p["p95_ms"], "frames": p["n"]}


def pan(page: Any) -> dict[str, float]:
    """Drags the camera for about a second; the frame times say whether it stays interactive."""
    page.evaluate(FRAMES)
    box = page.locator(".graph-canvas").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    start = time.monotonic()
    step = 0
    while time.monotonic() - start < 1.0:
        step += 1
        page.mouse.move(x + 200 * ((step % 40) / 40 - 0.5), y + 100 * ((step % 20) / 20 - 0.5))
    page.mouse.up()
    frames = [f / 1000 for f in page.evaluate("window.__frames")[2:]]
    p = percentiles(frames)
    return {"frame_p50_ms": p["p50_ms"], "frame_p95_ms": p["p95_ms"], "frames": p["n"]}


def labels(page: Any) -> dict[str, float]:
    """Zooms in on the middle of the overview until it is still, then the placements' times."""
    box = page.locator(".graph-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(4):
        page.mouse.wheel(0, -300)
        page.wait_for_timeout(100)
    page.wait_for_timeout(800)
    took = page.evaluate("performance.getEntriesByName('labels', 'measure').map((e) => e.duration)")
    drawn = len(json.loads(page.locator(".graph-canvas").get_attribute("data-labels") or "[]"))
    return {"placements": len(took), "median_ms": round(statistics.median(took), 1) if took else nan,
            "max_ms": round(max(took), 1) if took else nan, "labels_drawn_zoomed_in": drawn}


def open_notes(browser: Any, base: str, files: list[str], samples: int, rng: random.Random) -> list[float]:
    page = new_page(browser)
    try:
        page.goto(f"{base}/#/memory/shared")
        page.wait_for_selector("table.files tbody tr")
        took: list[float] = []
        for rel in rng.sample(files, samples):
            scope, name = rel.split("/")[1:]
            hash_ = f"#/memory/{scope}/{name}"
            check = (f"document.querySelector('.scope-head h1')?.textContent === {json.dumps(rel)} "
                     "&& document.querySelector('.cm-content')?.textContent.length > 0")
            took.append(float(page.evaluate(
                "async ([h, wait, check]) => { const t0 = performance.now(); location.hash = h;"
                " return await (new Function('return ' + wait)())([t0, check]); }",
                [hash_, WAIT, check])) / 1000)
        return took
    finally:
        page.close()


def expands(browser: Any, base: str, ids: list[str], samples: int, rng: random.Random) -> list[float]:
    page = new_page(browser)
    took: list[float] = []
    try:
        for node in rng.sample(ids, samples):
            page.goto(f"{base}/#/graph?node={node}")
            label = node.removeprefix("memory:")
            page.wait_for_function(
                "([label, name]) => (document.querySelector('.graph-status')?.textContent ?? '')"
                ".startsWith(`Around ${label}, `)"
                " && document.querySelector('.details h2')?.textContent === name"
                " && document.querySelector('.details ul.links button')",
                arg=[label, label.split("/")[1]],
            )
            button = page.locator(".details ul.links button").first
            label = button.inner_text()
            done = json.dumps(f"from {label})")
            check = f"(document.querySelector('.graph-status')?.textContent ?? '').includes({done})"
            handle = button.element_handle()
            took.append(float(page.evaluate(
                "async ([b, wait, check]) => { const t0 = performance.now(); b.click();"
                " return await (new Function('return ' + wait)())([t0, check]); }",
                [handle, WAIT, check])) / 1000)
        return took
    finally:
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--url", help="measure this running `brain serve` (same workload), not a new one")
    parser.add_argument("--only", default="list,overview,open,expand",
                        help="which measures to take, comma-separated (default: all)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    ensure_built()
    root = args.cache / f"workload-{args.notes}"
    if not (root / ".workload.json").exists():
        generate(root, args.notes)  # brain serve only reads it: the cached copy is used as is
    files = sorted(str(p.relative_to(root)) for p in (root / "memory").glob("*/*.md"))
    process, url, ingest_s = start_server(root, "memory") if not args.url else (None, args.url, float("nan"))
    base = url.removesuffix("/graphql").rstrip("/")
    rng = random.Random(7)
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            lists = [first_list(browser, base) for _ in range(args.runs)] if "list" in only else [nan]
            overviews = ([first_overview(browser, base) for _ in range(args.runs)] if "overview" in only
                         else [(nan, {}, nan, {}, {})])
            opened = open_notes(browser, base, files, args.samples, rng) if "open" in only else [nan]
            ids = [f"memory:{f.split('/')[1]}/{f.split('/')[2].removesuffix('.md')}" for f in files]
            expanded = expands(browser, base, ids, args.samples, rng) if "expand" in only else [nan]
            browser.close()
        rss = peak_rss_mb(process.pid) if process else nan
    finally:
        if process:
            process.terminate()
            process.wait(30)
    report = {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "notes": args.notes, "cpus": os.cpu_count(), "runs": args.runs, "samples": args.samples,
        "server_ready_s": ingest_s, "server_peak_rss_mb": rounded(rss),
        "first_memory_list_ms": {"median": rounded(statistics.median(lists)),
                                 "all": [rounded(x) for x in lists]},
        "first_overview_ms": {"median": rounded(statistics.median(o[0] for o in overviews)),
                              "all": [rounded(o[0]) for o in overviews]},
        "overview_pan": overviews[len(overviews) // 2][1],
        "overview_zoom": overviews[len(overviews) // 2][4],
        "overview_js_heap_mb": round(statistics.median(o[2] for o in overviews), 1),
        "label_placement": overviews[len(overviews) // 2][3],
        "open_note": percentiles(opened),
        "expand_node": percentiles(expanded),
        "bundle": bundle(),
    }
    print(json.dumps(report, indent=2))
    if only >= {"list", "overview", "open", "expand"} and not args.url:
        out = HERE / "results" / "ui.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
