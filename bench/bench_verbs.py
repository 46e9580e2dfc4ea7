"""The layouts' memory verbs against a real `brain serve`: latency per verb over HTTP.

    .venv/bin/python bench/bench_verbs.py [--agents 8] [--files 1000] [--calls 200]

A space workspace (`layout = "space"`) of `--agents` agents with `--files` files each, in
nested folders, one in ten of them binary; and a mindlink workspace of the same size
(entries and daily notes). The server is a separate process (`python -m brain serve WS
--port 0`); one client makes one call at a time over one keep-alive connection (httpx).
Measured per verb (`--calls` calls each, p50/p95/p99 in ms):

* space: read of a text file, read of a binary file (metadata), read of a folder (a listing
  with sizes), write of a new nested file, write replacing a file, delete of a folder of five
  files;
* mindlink: memory_get, memory_write (update an entry), memory_delete, memory_search.

Every write is the whole path: the agent's lock, checks, secret scan, atomic replace with
fsyncs, the graph updated, the history record fsynced. Client and server share the machine's
cores. Prints a summary, the server's peak RSS, and writes bench/results/verbs.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from bench_api import peak_rss_mb, percentiles, start_server  # noqa: E402

TEXT = "# Note {i}\n\nA line about the launch, the venue and [[notes/n{j}]].\n" + "More text.\n" * 20
ENTRY = (
    "---\nname: e{i}\ndescription: Entry {i} about release notes and venues.\ntype: project\n---\n\n"
    "The release {i} moves to the venue {j}.\n"
)


def make_space(root: Path, agents: int, files: int) -> None:
    (root / "brain.toml").write_text('layout = "space"\n')
    rng = random.Random(7)
    for a in range(agents):
        for i in range(files):
            folder = root / f"agent{a}/memory/f{i % 20}/g{i % 7}"
            folder.mkdir(parents=True, exist_ok=True)
            if i % 10 == 9:
                (folder / f"blob{i}.bin").write_bytes(rng.randbytes(2048))
            else:
                (folder / f"n{i}.md").write_text(TEXT.format(i=i, j=rng.randrange(files)))


def make_mindlink(root: Path, agents: int, files: int) -> None:
    (root / "brain.toml").write_text('layout = "mindlink"\n')
    rng = random.Random(7)
    for a in range(agents):
        entries = root / f"agent{a}/memory/entries"
        entries.mkdir(parents=True)
        for i in range(files):
            (entries / f"e{i}.md").write_text(ENTRY.format(i=i, j=rng.randrange(files)))
        for d in range(1, 29):
            (root / f"agent{a}/memory/2026-11-{d:02d}.md").write_text(f"Day {d}: worked on e{d}.\n")


def timed(calls: int, call: Callable[[int], httpx.Response]) -> dict[str, float]:
    samples: list[float] = []
    for n in range(calls):
        started = time.perf_counter()
        response = call(n)
        samples.append(time.perf_counter() - started)
        if response.status_code >= 400:
            raise SystemExit(f"{response.request.method} {response.request.url}: {response.text}")
    return percentiles(samples)


def bench_space(http: httpx.Client, agents: int, files: int, calls: int) -> dict[str, Any]:
    rng = random.Random(1)

    def text_path() -> str:
        i = rng.choice([k for k in range(files) if k % 10 != 9][:500])
        return f"/api/space/agent{rng.randrange(agents)}/f{i % 20}/g{i % 7}/n{i}.md"

    out: dict[str, Any] = {}
    out["read text"] = timed(calls, lambda n: http.get(text_path()))
    out["read binary"] = timed(calls, lambda n: http.get(
        f"/api/space/agent{n % agents}/f{9 % 20}/g{9 % 7}/blob9.bin"))
    out["read folder"] = timed(calls, lambda n: http.get(f"/api/space/agent{n % agents}/f{n % 20}"))
    out["write new"] = timed(calls, lambda n: http.put(
        f"/api/space/agent{n % agents}/new/{n}/deep/note.md", json={"content": f"# New {n}\n"}))
    out["write replace"] = timed(calls, lambda n: http.put(
        text_path(), json={"content": f"# Replaced {n}\n\nText.\n"}))
    for n in range(calls):
        for k in range(5):
            http.put(f"/api/space/agent{n % agents}/gone/{n}/f{k}.md", json={"content": "x\n"})
    out["delete folder of 5"] = timed(calls, lambda n: http.delete(f"/api/space/agent{n % agents}/gone/{n}"))
    return out


def bench_mindlink(http: httpx.Client, agents: int, files: int, calls: int) -> dict[str, Any]:
    rng = random.Random(2)
    out: dict[str, Any] = {}
    out["memory_get"] = timed(calls, lambda n: http.get(
        f"/api/mindlink/agent{rng.randrange(agents)}/entries/e{rng.randrange(files)}.md"))
    out["memory_write"] = timed(calls, lambda n: http.put(
        f"/api/mindlink/agent{n % agents}/entries/e{rng.randrange(files)}.md",
        json={"content": ENTRY.format(i=n, j=n) + f"Updated {n}.\n"}))
    out["memory_delete"] = timed(calls, lambda n: http.delete(
        f"/api/mindlink/agent{n % agents}/entries/e{files - 1 - n // agents}.md"))
    http.get("/api/mindlink/agent0/search", params={"query": "warm up"}, timeout=600)
    out["memory_search"] = timed(calls, lambda n: http.get(
        f"/api/mindlink/agent{n % agents}/search", params={"query": f"release venue {n}"}))
    return out


def run(layout: str, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    root = scratch / layout
    root.mkdir()
    (make_space if layout == "space" else make_mindlink)(root, args.agents, args.files)
    process, url, read_s = start_server(root, "memory")
    try:
        with httpx.Client(base_url=url.removesuffix("/graphql"), timeout=60) as http:
            bench = bench_space if layout == "space" else bench_mindlink
            verbs = bench(http, args.agents, args.files, args.calls)
        rss = peak_rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(30)
    return {"files": args.agents * args.files, "read_s": read_s, "peak_rss_mb": rss, "verbs": verbs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    results: dict[str, Any] = {"agents": args.agents, "files_per_agent": args.files, "calls": args.calls}
    with tempfile.TemporaryDirectory(prefix="bench-verbs-") as scratch:
        for layout in ("space", "mindlink"):
            results[layout] = found = run(layout, args, Path(scratch))
            print(f"{layout}: {found['files']:,} files, read in {found['read_s']:.1f} s, "
                  f"server peak RSS {found['peak_rss_mb']:.0f} MB")
            for verb, figures in found["verbs"].items():
                print(f"  {verb:20} p50 {figures['p50_ms']:7.2f} ms  p95 {figures['p95_ms']:7.2f} ms  "
                      f"p99 {figures['p99_ms']:7.2f} ms  (n={figures['n']})")
    out = HERE / "results" / "verbs.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
