"""The first minute in a real VS Code: code-server with the packaged extension, in Chromium.

    .venv/bin/python bench/bench_vscode.py [--runs 3] [--notes 10000] [--skip-example]

Each run starts a fresh code-server (so a fresh language server, found in the workspace's
`.venv` with no setting) on a workspace, then measures what a person waits for after opening
a note in the browser:

- open a note that has a broken link on disk -> its red squiggle on screen (first diagnostics);
- open another note, type `[[` at its end -> the suggest widget on screen (first completion list);
- peak RSS of the language server process (VmHWM, sampled at the end of the run).

On examples/workspace and on the generator's 10,000-note workload. Prints medians and the
worst run, and writes bench/results/vscode.json. Needs what tests/vscode needs (chromium,
npm; code-server is installed into ~/.cache/brain-ci on first use).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from bench.workload import generate  # noqa: E402
from tests.vscode.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    code_server_entry,
    make_venv,
    running,
    vsix,
)
from tests.vscode.workbench import SQUIGGLE_ERROR, Workbench  # noqa: E402

CACHE = Path.home() / ".cache" / "brain-ci"
BROKEN = "[[no-such-note-for-the-benchmark]]"


def example_workspace(tmp: Path) -> tuple[Path, str, str]:
    root = tmp / "example"
    shutil.copytree(REPO / "examples" / "workspace", root)
    make_venv(root)
    # incident-2026-11-03 has a broken link on disk; paging-etiquette gets the completion
    return root, "memory/on-call/incident-2026-11-03.md", "memory/on-call/paging-etiquette.md"


def large_workspace(notes: int) -> tuple[Path, str, str]:
    """The generator's workload with two notes of our own (names no other agent uses, so quick
    open finds exactly them): one with a broken link, one to complete in."""
    root = CACHE / f"vscode-workload-{notes}"
    if not (root / ".workload.json").exists():
        generate(root, notes)
    if not (root / ".venv").exists():
        make_venv(root)
    agent = sorted(p for p in (root / "memory").iterdir() if p.is_dir() and p.name != "shared")[0]
    broken, other = agent / "bench-vscode-broken.md", agent / "bench-vscode-complete.md"
    broken.write_text(f"---\ndescription: a broken link for the benchmark\n---\nSee also {BROKEN}.\n")
    other.write_text("---\ndescription: completion for the benchmark\n---\nSee also\n")
    return root, broken.relative_to(root).as_posix(), other.relative_to(root).as_posix()


def server_rss_mb(code_server_pid: int) -> float | None:
    """VmHWM of the `brain lsp` process below code-server."""
    for child in psutil.Process(code_server_pid).children(recursive=True):
        try:
            if child.cmdline()[-1:] == ["lsp"] and any("brain" in part for part in child.cmdline()):
                for line in Path(f"/proc/{child.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except (psutil.Error, OSError):
            continue
    return None


def one_run(browser: Any, entry: list[str], package: Path, root: Path, broken: str, other: str,
            home: Path) -> dict[str, float | None]:
    with running(entry, home, root, package) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(server.url)
        bench = Workbench(page, home / "shots")
        bench.wait_ready(timeout=300)
        opened = bench.open_file(broken)
        page.locator(SQUIGGLE_ERROR).first.wait_for(timeout=600_000)
        diagnostics = time.monotonic() - opened
        opened = bench.open_file(other)
        bench.go_to_end()
        bench.type("\n[[")
        bench.suggestions(timeout=600)
        completion = time.monotonic() - opened
        rss = server_rss_mb(server.proc.pid) if server.proc else None
        context.close()
    return {"first_diagnostics_s": diagnostics, "first_completion_s": completion, "server_peak_rss_mb": rss}


def summarize(runs: list[dict[str, float | None]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": runs}
    for key in runs[0]:
        values = [r[key] for r in runs if r[key] is not None]
        if values:
            out[key] = {"median": round(statistics.median(values), 3), "max": round(max(values), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--skip-example", action="store_true")
    args = parser.parse_args()

    entry, package = code_server_entry(), vsix()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="brain-bench-vscode-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        workloads = [] if args.skip_example else [("examples/workspace", example_workspace(Path(tmp)))]
        if args.notes:
            workloads.append((f"{args.notes} notes", large_workspace(args.notes)))
        for name, (root, broken, other) in workloads:
            runs = []
            for run in range(args.runs):
                home = Path(tmp) / f"home-{len(results)}-{run}"
                result = one_run(browser, entry, package, root, broken, other, home)
                shown = {k: v and round(v, 3) for k, v in result.items()}
                print(f"{name} run {run + 1}: {json.dumps(shown)}")
                runs.append(result)
            results[name] = summarize(runs)
            print(f"{name}: {json.dumps({k: v for k, v in results[name].items() if k != 'runs'})}")
        browser.close()
    out = HERE / "results" / "vscode.json"
    out.parent.mkdir(exist_ok=True)
    earlier = json.loads(out.read_text()) if out.exists() else {}  # other workloads' last figures
    out.write_text(json.dumps({**earlier, **results}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
