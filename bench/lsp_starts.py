"""Spawn -> the first completion (bench/bench_lsp.py): cold and warm starts of this server, or
of this server and another command interleaved (`--against`)."""

from __future__ import annotations

import asyncio
import os
import shlex
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil
from lsp_client import SERVER, Observed, doc, load, make_client, server_env
from lsprotocol import types
from pytest_lsp import client_capabilities

RETRY_S = 0.01  # between an empty first completion and the next request


async def first_completion_once(
    root: Path, cache_dir: Path, wait_snapshot: bool = False, server: list[str] | None = None
) -> dict[str, Any]:
    """Spawn -> the first completion after `[[` that has items, as an editor opening a note sees it."""
    seen = Observed()
    client = make_client(seen)
    note = sorted((root / "memory").glob("*/*.md"))[-1]
    uri = note.as_uri()
    text = note.read_text(encoding="utf-8").rstrip("\n") + "\n\nsee [["
    line = text.count("\n")
    started = time.perf_counter()
    await client.start_io(*(server or SERVER), env=server_env(cache_dir))
    await client.initialize_async(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        process_id=os.getpid(),
    ))
    initialized = time.perf_counter()
    client.initialized(types.InitializedParams())
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "markdown", 1, text)
    ))
    asked = 0
    while True:
        asked += 1
        result = await client.text_document_completion_async(
            types.CompletionParams(doc(uri), types.Position(line, len("see [[")))
        )
        if isinstance(result, types.CompletionList) and result.items:
            break
        await asyncio.sleep(RETRY_S)  # asking in a tight loop would take the server's CPU
    first_s = time.perf_counter() - started
    # CPU seconds the server spent until then: under a loaded machine, less noisy than the wall
    server = client._server
    assert server is not None
    cpu = psutil.Process(server.pid).cpu_times()
    items = len(result.items)
    await seen.wait(lambda: uri in seen.first_diagnostics, 600)
    await seen.wait(lambda: seen.progress_end is not None, 600)
    assert seen.progress_end is not None
    indexed_cpu = psutil.Process(server.pid).cpu_times()
    if wait_snapshot:  # the next (warm) start needs the snapshot this one writes
        snapshots = cache_dir / "snapshots"
        deadline = time.monotonic() + 120
        while not any(snapshots.glob("*.snapshot")) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "first_completion_s": first_s,
        "first_completion_cpu_s": cpu.user + cpu.system,
        # the child that walked the folders while the server imported (brain/lsp/startup/prewalk.py),
        # reaped by then: the CPU of the other core, beside the server's own
        "first_completion_child_cpu_s": cpu.children_user + cpu.children_system,
        "initialize_s": initialized - started,
        # What the server does once it answers initialize (the walk, the answer), apart from
        # its imports: the part of a start that a loaded machine blurs least.
        "after_initialize_s": first_s - (initialized - started),
        "first_completion_items": items,
        "completion_requests": asked,
        "first_diagnostics_s": seen.first_diagnostics[uri] - started,
        "indexed_s": seen.progress_end - started,
        "indexed_cpu_s": indexed_cpu.user + indexed_cpu.system,
    }


def measure_starts(root: Path, warm_dir: Path, scratch: Path, runs: int) -> dict[str, Any]:
    """Cold and warm starts, interleaved; the first cold start writes the warm one's snapshot."""
    results: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
    if runs < 1:
        return {}
    for number in range(runs):
        for kind in ("cold", "warm"):
            cache_dir = warm_dir if kind == "warm" or number == 0 else scratch / f"cold-{number}"
            prime = kind == "cold" and number == 0
            result = asyncio.run(first_completion_once(root, cache_dir, wait_snapshot=prime))
            results[kind].append(result)
            print(
                f"start {kind} {number + 1}: first completion {result['first_completion_s']:.2f} s "
                f"(server CPU {result['first_completion_cpu_s']:.2f} s, "
                f"its walk's child {result['first_completion_child_cpu_s']:.2f} s) "
                f"({result['first_completion_items']} items, {result['completion_requests']} requests), "
                f"initialize {result['initialize_s']:.2f} s, first diagnostics "
                f"{result['first_diagnostics_s']:.2f} s, indexed {result['indexed_s']:.2f} s "
                f"(server CPU {result['indexed_cpu_s']:.2f} s)  ({load()})",
                flush=True,
            )
    medians = {
        kind: {key: round(statistics.median(float(r[key]) for r in rs), 3) for key in rs[0]}
        for kind, rs in results.items()
    }
    for kind, median in medians.items():
        print(
            f"{kind} start, median of {runs}: spawn -> first completion {median['first_completion_s']:.2f} s "
            f"(server CPU {median['first_completion_cpu_s']:.2f} s, "
            f"child {median['first_completion_child_cpu_s']:.2f} s) "
            f"(goal {'< 1' if kind == 'warm' else '< 3'} s), initialize {median['initialize_s']:.2f} s, "
            f"after initialize {median['after_initialize_s']:.2f} s, first diagnostics "
            f"{median['first_diagnostics_s']:.2f} s, indexed {median['indexed_s']:.2f} s  ({load()})",
            flush=True,
        )
    return {"median": medians, "all_runs": results}


def compare_starts(
    root: Path, scratch: Path, servers: list[list[str]], runs: int, cold: bool = False,
    prime_with_ingest: bool = False,
) -> None:
    """First completions of several server commands, interleaved: warm (each primed by a cold
    start that writes its own snapshot and code cache), or cold (an empty cache folder each).
    `prime_with_ingest`: the snapshot is written by `brain ingest` instead (the server command
    with `lsp` replaced by `ingest`): at 100,000 notes a language server's cold start takes
    minutes, an ingest one or two."""
    names = ["this", "against"]
    kind = "cold" if cold else "warm"
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    if not cold:
        for name, server in zip(names, servers, strict=True):
            if prime_with_ingest:
                if server[-1] != "lsp":
                    raise SystemExit(f"--prime-with-ingest: {shlex.join(server)} does not end with `lsp`")
                subprocess.run([*server[:-1], "ingest", str(root)], env=server_env(scratch / name),
                               check=True, stdout=subprocess.DEVNULL)
            asyncio.run(first_completion_once(root, scratch / name, wait_snapshot=True, server=server))
    for number in range(runs):
        order = list(zip(names, servers, strict=True))
        for name, server in order if number % 2 == 0 else order[::-1]:  # neither always goes first
            cache_dir = scratch / (f"{name}-cold-{number}" if cold else name)
            result = asyncio.run(first_completion_once(root, cache_dir, server=server))
            results[name].append(result)
            print(
                f"{kind} {name} {number + 1}: first completion {result['first_completion_s']:.3f} s "
                f"(server CPU {result['first_completion_cpu_s']:.3f} s, child "
                f"{result['first_completion_child_cpu_s']:.3f} s, {result['first_completion_items']} items), "
                f"initialize {result['initialize_s']:.3f} s  ({load()})",
                flush=True,
            )
    for name, server in zip(names, servers, strict=True):
        rs = results[name]
        print(
            f"{name} ({shlex.join(server)}), median of {runs} {kind} starts: spawn -> first completion "
            f"{statistics.median(r['first_completion_s'] for r in rs):.3f} s, server CPU "
            f"{statistics.median(r['first_completion_cpu_s'] for r in rs):.3f} s, initialize "
            f"{statistics.median(r['initialize_s'] for r in rs):.3f} s  ({load()})",
            flush=True,
        )
