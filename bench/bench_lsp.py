"""The language server on the design.md section 7 workload, through a real LSP client over stdio.

    .venv/bin/python bench/bench_lsp.py [--notes 10000] [--runs 3]

Each run starts `python -m brain lsp` afresh and drives it with pygls' LanguageClient (the
VS Code capability profile), measuring what a person waits for:

- time until the first diagnostics of a note opened right after the editor starts, and until
  indexing ends (the work-done progress `end`);
- completion after `[[` (as typed: `[[`, `[[r`, `[[re`, ...): request to response;
- diagnostics after an edit: `didChange` sent to `publishDiagnostics` of that version received;
- a rename whose WorkspaceEdit touches 50 files: request to response;
- an empty request (hover off any link), the floor every figure above stands on;
- peak RSS of the server process (VmHWM), and of its parse helpers during indexing (sampled);
- the first completion after spawn: `[[` typed in a note opened right after `initialized`, asked
  again 10 ms after each empty answer, until one has items; and the server's CPU seconds
  until then (less noisy than the wall clock on a loaded machine). brain is byte-compiled
  first, as an installed package is. Cold (an empty cache folder,
  so no snapshot) and warm (the snapshot the cold start wrote), interleaved.

    .venv/bin/python bench/bench_lsp.py --against "env PYTHONPATH=/tmp/old .venv/bin/python -m brain lsp"

compares the first completion of this checkout's server with another command's (e.g. an older
checkout), warm starts interleaved run by run on the same machine load, each primed by a cold
start that writes its snapshot; `--start-runs` pairs; `--cold` compares cold starts instead.
`--prime-with-ingest` writes those snapshots with `brain ingest` (at 100,000 notes a cold
server start takes minutes):

    .venv/bin/python bench/bench_lsp.py --notes 100000 --start-runs 3 --prime-with-ingest \
        --against "/tmp/old/.venv/bin/python -m brain lsp"

The workload is the seeded generator's, plus one shared note linked from 50 others (so the
rename has exactly 50 files to touch). Prints the median over runs of each run's p50 and p95,
and writes bench/results/lsp.json.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import os
import shlex
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil
from lsprotocol import types
from pytest_lsp import client_capabilities

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lsp_client import SERVER, Observed, doc, load, make_client, server_env  # noqa: E402
from lsp_starts import compare_starts, measure_starts  # noqa: E402
from workload import generate  # noqa: E402

TARGET = "bench-rename-target"
RENAMED = "bench-renamed-target"
RENAME_FILES = 50
TYPED = ["", "r", "re", "rel", "", "s", "sh", "shared/", "", "a", "al", "t", "to", "tok"]


# ------------------------------------------------------------------ workload


def workspace(notes: int, cache: Path) -> Path:
    root = cache / f"lsp-workload-{notes}"
    if not (root / ".workload.json").exists() or not (root / f"memory/shared/{TARGET}.md").exists():
        generate(root, notes)
        add_rename_target(root)
    return root


def add_rename_target(root: Path) -> None:
    """One shared note, linked from 50 notes spread over every scope, in several link forms."""
    (root / "memory/shared" / f"{TARGET}.md").write_text(
        "---\ndescription: A note fifty others link to\ntype: reference\n---\n\n# Details\n\nx\n",
        encoding="utf-8",
    )
    notes = sorted(p for p in (root / "memory").glob("*/*.md") if p.stem != TARGET)
    step = len(notes) // RENAME_FILES
    forms = [
        f"[[shared/{TARGET}]]", f"[[shared/{TARGET}#Details|the details]]", f"![[memory:shared/{TARGET}]]",
    ]
    for number, path in enumerate(notes[::step][:RENAME_FILES]):
        with path.open("a", encoding="utf-8") as out:
            out.write(f"\nAlso see {forms[number % len(forms)]}.\n")


# ------------------------------------------------------------------ one run


class TreeRss:
    """Samples the RSS of a process and its children (the parse helpers) in a thread."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak_tree = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                total = self.process.memory_info().rss
                for child in self.process.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        total += child.memory_info().rss
                self.peak_tree = max(self.peak_tree, total)
            except psutil.Error:
                return
            self.stop.wait(0.05)

    def high_water(self) -> int:
        """VmHWM: the kernel's own peak resident size of the server process."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return self.process.memory_info().rss


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def replace_line(uri: str, version: int, line: int, old: str, new: str) -> types.DidChangeTextDocumentParams:
    end = len(old.encode("utf-16-le")) // 2
    return types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri),
        [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, 0), types.Position(line, end)), text=new
        )],
    )


async def run_once(
    root: Path, completions: int, edits: int, renames: int, cache_dir: Path | None = None
) -> dict[str, Any]:
    seen = Observed()
    client = make_client(seen)
    started = time.perf_counter()
    env = server_env(cache_dir) if cache_dir is not None else None
    await client.start_io(*SERVER, env=env)
    server = client._server  # the subprocess
    assert server is not None
    rss = TreeRss(server.pid)
    await client.initialize_async(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        process_id=os.getpid(),
    ))
    client.initialized(types.InitializedParams())

    notes = sorted((root / "memory").glob("*/*.md"))
    agent_notes = [p for p in notes if p.parent.name != "shared"]
    first = agent_notes[0]
    first_uri = first.as_uri()
    opened = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(first_uri, "markdown", 1, first.read_text(encoding="utf-8"))
    ))
    await seen.wait(lambda: first_uri in seen.first_diagnostics, 600)
    first_diagnostics_s = seen.first_diagnostics[first_uri] - opened
    await seen.wait(lambda: seen.progress_end is not None, 600)
    assert seen.progress_end is not None
    indexed_s = seen.progress_end - started

    # completion after `[[`, as typed, on a line appended to an agent's note
    note = agent_notes[len(agent_notes) // 2]
    uri = note.as_uri()
    text = note.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    line = text.count("\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "markdown", 1, text)
    ))
    await seen.wait(lambda: uri in seen.first_diagnostics, 60)
    version, current = 1, ""
    completion_ms: list[float] = []
    empty_prefix_ms: list[float] = []
    items = 0
    for number in range(completions):
        typed = "see [[" + TYPED[number % len(TYPED)]
        version += 1
        client.text_document_did_change(replace_line(uri, version, line, current, typed))
        current = typed
        t0 = time.perf_counter()
        result = await client.text_document_completion_async(
            types.CompletionParams(doc(uri), types.Position(line, len(typed)))
        )
        elapsed = (time.perf_counter() - t0) * 1000
        completion_ms.append(elapsed)
        if typed.endswith("[["):
            empty_prefix_ms.append(elapsed)
            items = len(result.items) if isinstance(result, types.CompletionList) else 0

    # the floor: a request with nothing to compute (hover off any link), through the same pipes
    baseline_ms: list[float] = []
    for _ in range(100):
        t0 = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(doc(uri), types.Position(line + 1, 0)))
        baseline_ms.append((time.perf_counter() - t0) * 1000)

    # diagnostics after an edit: add a broken link, then take it away, and so on
    diagnostics_ms: list[float] = []
    for number in range(edits):
        new = f"see [[missing-{number}]]" if number % 2 == 0 else "see nothing"
        version += 1
        key = (uri, version)
        t0 = time.perf_counter()
        client.text_document_did_change(replace_line(uri, version, line, current, new))
        current = new
        await seen.wait(lambda key=key: key in seen.diagnostics, 60)  # type: ignore[misc]
        diagnostics_ms.append((seen.diagnostics[key] - t0) * 1000)

    # a rename touching 50 files, from inside the renamed note
    target = root / "memory/shared" / f"{TARGET}.md"
    target_uri = target.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(target_uri, "markdown", 1, target.read_text(encoding="utf-8"))
    ))
    await seen.wait(lambda: target_uri in seen.first_diagnostics, 60)
    rename_ms: list[float] = []
    touched = 0
    for _ in range(renames):
        t0 = time.perf_counter()
        edit = await client.text_document_rename_async(
            types.RenameParams(doc(target_uri), types.Position(5, 3), RENAMED)
        )
        rename_ms.append((time.perf_counter() - t0) * 1000)
        assert edit is not None
        assert edit.document_changes is not None
        touched = sum(isinstance(c, types.TextDocumentEdit) for c in edit.document_changes)

    peak_rss = rss.high_water()
    rss.stop.set()
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "indexed_s": indexed_s,
        "first_diagnostics_s": first_diagnostics_s,
        "completion_p50_ms": percentile(completion_ms, 50),
        "completion_p95_ms": percentile(completion_ms, 95),
        "completion_empty_p50_ms": percentile(empty_prefix_ms, 50),
        "completion_empty_p95_ms": percentile(empty_prefix_ms, 95),
        "completion_items": items,
        "empty_request_p50_ms": percentile(baseline_ms, 50),
        "empty_request_p95_ms": percentile(baseline_ms, 95),
        "diagnostics_p50_ms": percentile(diagnostics_ms, 50),
        "diagnostics_p95_ms": percentile(diagnostics_ms, 95),
        "rename_p50_ms": percentile(rename_ms, 50),
        "rename_p95_ms": percentile(rename_ms, 95),
        "rename_files": touched,
        "server_peak_rss_mb": peak_rss / 2**20,
        "tree_peak_rss_mb": rss.peak_tree / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--completions", type=int, default=280)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--renames", type=int, default=20)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--start-runs", type=int, default=3, help="cold and warm starts each")
    parser.add_argument("--only-start", action="store_true", help="measure the starts alone")
    parser.add_argument("--server", help="the command that starts the server (default: this brain's)")
    parser.add_argument("--against", help="another server's command: compare warm first completions")
    parser.add_argument("--cold", action="store_true", help="with --against: compare cold starts")
    parser.add_argument("--prime-with-ingest", action="store_true",
                        help="with --against: write each warm snapshot by `brain ingest` (big workspaces)")
    args = parser.parse_args()
    if args.server:
        SERVER[:] = shlex.split(args.server)
    # As `pip install` leaves it: byte-compiled. With PYTHONDONTWRITEBYTECODE set (as in some
    # dev shells) nothing else writes the .pyc files, and every start would compile ~75 modules.
    compileall.compile_dir(str(HERE.parent / "brain"), quiet=1)
    root = workspace(args.notes, args.cache)
    files = sum(1 for _ in root.rglob("*") if _.is_file())
    with tempfile.TemporaryDirectory(prefix="brain-bench-lsp-") as scratch:
        if args.against:
            compare_starts(root, Path(scratch), [list(SERVER), shlex.split(args.against)], args.start_runs,
                           args.cold, args.prime_with_ingest)
            return
        warm_dir = Path(scratch) / "warm"
        starts = measure_starts(root, warm_dir, Path(scratch), args.start_runs)
        if args.only_start:
            return
        report_runs(args, root, files, warm_dir, starts)


def report_runs(
    args: argparse.Namespace, root: Path, files: int, warm_dir: Path, starts: dict[str, Any]
) -> None:
    runs = []
    for number in range(args.runs):
        result = asyncio.run(run_once(root, args.completions, args.edits, args.renames, warm_dir))
        runs.append(result)
        print(
            f"run {number + 1}: indexed {result['indexed_s']:.1f} s, first diagnostics "
            f"{result['first_diagnostics_s']:.1f} s, completion p50/p95 {result['completion_p50_ms']:.1f}/"
            f"{result['completion_p95_ms']:.1f} ms, diagnostics p50/p95 {result['diagnostics_p50_ms']:.1f}/"
            f"{result['diagnostics_p95_ms']:.1f} ms, rename ({result['rename_files']} files) p50/p95 "
            f"{result['rename_p50_ms']:.0f}/{result['rename_p95_ms']:.0f} ms, server peak RSS "
            f"{result['server_peak_rss_mb']:.0f} MB  ({load()})",
            flush=True,
        )
    median = {key: statistics.median(float(r[key]) for r in runs) for key in runs[0]}
    report = {
        "notes": args.notes,
        "files": files,
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "samples": {"completions": args.completions, "edits": args.edits, "renames": args.renames},
        "median": {key: round(value, 2) for key, value in median.items()},
        "indexing_files_per_s": round(files / median["indexed_s"]),
        "goals": {
            "completion_p95_under_30_ms": median["completion_p95_ms"] < 30,
            "diagnostics_p95_under_100_ms": median["diagnostics_p95_ms"] < 100,
        },
        "all_runs": runs,
        "starts": starts,
        "load": os.getloadavg(),
    }
    print(
        f"\n{args.notes:,} notes ({files:,} files), median of {args.runs} runs:\n"
        f"  indexing (start to progress end)   {median['indexed_s']:.1f} s "
        f"({report['indexing_files_per_s']:,} files/s)\n"
        f"  first diagnostics after opening    {median['first_diagnostics_s']:.1f} s\n"
        f"  completion after [[  p50 / p95     {median['completion_p50_ms']:.1f} / "
        f"{median['completion_p95_ms']:.1f} ms   (goal p95 < 30 ms; bare [[: "
        f"{median['completion_empty_p50_ms']:.1f} / {median['completion_empty_p95_ms']:.1f} ms, "
        f"{int(median['completion_items'])} items)\n"
        f"  empty request round trip p50/p95   {median['empty_request_p50_ms']:.1f} / "
        f"{median['empty_request_p95_ms']:.1f} ms   (the floor: pipes, JSON, both event loops)\n"
        f"  diagnostics after an edit p50/p95  {median['diagnostics_p50_ms']:.1f} / "
        f"{median['diagnostics_p95_ms']:.1f} ms   (goal p95 < 100 ms)\n"
        f"  rename touching {int(median['rename_files'])} files p50/p95  {median['rename_p50_ms']:.0f} / "
        f"{median['rename_p95_ms']:.0f} ms\n"
        f"  peak RSS: server {median['server_peak_rss_mb']:.0f} MB, with parse helpers "
        f"{median['tree_peak_rss_mb']:.0f} MB (sampled)\n  ({load()})"
    )
    out = HERE / "results" / "lsp.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
