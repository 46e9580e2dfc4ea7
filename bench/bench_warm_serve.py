"""Warm `brain serve`: from spawn to ready, on a workspace whose snapshot is current.

    .venv/bin/python bench/bench_warm_serve.py [--sizes 100000] [--runs 3]
    .venv/bin/python bench/bench_warm_serve.py --sizes 100000 --runs 3 \
        --snapshots /tmp/brain-bench/snapshots-new --baseline /tmp/old-tree \
        --baseline-snapshots /tmp/brain-bench/snapshots-old

`--baseline` is a checkout of other brain code (e.g. `git worktree add /tmp/old-tree main`):
its runs and this code's are interleaved (old, new, old, new...) so both see the same load,
and each gets its own snapshot folder (a snapshot names the code that wrote it).

Also run by `bench/bench_ingest.py --serve` after its restarts. Each run spawns
`python -m brain serve WORKSPACE --port N` (a fresh process, the snapshot warm) and times:
`ready_s`, until /healthz answers 200; `query_s`, until a GraphQL query for one note answers
(what a client does first); `stats_s`, the first `stats` query after it (it needs the link
and name indexes, built on first use); `checked_s`, until /healthz no longer says
`checkingFiles` (the rescan that checks the snapshot against the disk, in the background); the server's
CPU seconds at ready and at checked (they move far less with the machine's load);
and the server's peak RSS (VmHWM) once checked. Prints medians and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
POLL_S = 0.02
TIMEOUT_S = 900.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_json(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, None


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int) -> float:
    """CPU seconds the process has used (user + system): on a shared machine this moves far
    less with the load than the wall clock."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_note(root: Path) -> str:
    scope = next(p for p in sorted((root / "memory").iterdir()) if p.is_dir())
    note = next(p for p in sorted(scope.iterdir()) if p.suffix == ".md")
    return note.relative_to(root).as_posix()


def until(check: Any, started: float) -> float:
    while not check():
        if time.perf_counter() - started > TIMEOUT_S:
            raise SystemExit("brain serve did not get there in time")
        time.sleep(POLL_S)
    return time.perf_counter() - started


def serve_once(root: Path, snapshots: Path, code: Path | None = None) -> dict[str, float]:
    """One warm start of `brain serve` (the snapshot in `snapshots` must be current), of the
    brain in `code` (a checkout: its folder comes first on the import path) or this one."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    path = first_note(root)
    env = {**os.environ, "BRAIN_SNAPSHOT_DIR": str(snapshots), "BRAIN_RESCAN_SECONDS": "3600"}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=code,
    )
    try:
        def healthy() -> bool:
            if process.poll() is not None:
                raise SystemExit(f"brain serve exited: {process.stderr.read() if process.stderr else ''}")
            return get_json(f"{base}/healthz")[0] == 200

        ready = until(healthy, started)
        ready_cpu = cpu_s(process.pid)
        query = {"query": "query($p: String!) { memory(path: $p) { id description } }",
                 "variables": {"p": path}}
        status, answer = get_json(f"{base}/graphql", query)
        if status != 200 or not answer["data"]["memory"]:
            raise SystemExit(f"the note query failed: {status} {answer}")
        answered = time.perf_counter() - started
        t = time.perf_counter()
        status, answer = get_json(f"{base}/graphql", {"query": "{ stats { memories links } }"})
        if status != 200 or not answer["data"]["stats"]["memories"]:
            raise SystemExit(f"the stats query failed: {status} {answer}")
        stats_s = time.perf_counter() - t
        checked = until(lambda: get_json(f"{base}/healthz")[1].get("checkingFiles") is not True,
                        started)
        rss = peak_rss_mb(process.pid)
        checked_cpu = cpu_s(process.pid)
    finally:
        process.terminate()
        process.wait(30)
    return {"ready_s": ready, "ready_cpu_s": ready_cpu, "query_s": answered, "stats_s": stats_s,
            "checked_s": checked, "checked_cpu_s": checked_cpu,
            "peak_rss_mb": rss, "load1": os.getloadavg()[0]}


def measure(root: Path, snapshots: Path, runs: int) -> dict[str, Any]:
    return summarize([serve_once(root, snapshots) for _ in range(runs)])


def summarize(results: list[dict[str, float]]) -> dict[str, Any]:
    summary: dict[str, Any] = {
        f"{key}_median": round(statistics.median(r[key] for r in results), 3) for key in results[0]
    }
    summary["runs"] = results
    return summary


def describe(size: int, summary: dict[str, Any]) -> str:
    return (
        f"{size:>7} notes: warm `brain serve` ready {summary['ready_s_median']} s "
        f"(CPU {summary['ready_cpu_s_median']} s), "
        f"first note query answered {summary['query_s_median']} s, then stats "
        f"{summary['stats_s_median']} s, files checked {summary['checked_s_median']} s "
        f"(CPU {summary['checked_cpu_s_median']} s), "
        f"peak RSS {summary['peak_rss_mb_median']} MB (medians of {len(summary['runs'])}; "
        f"load {summary['load1_median']})"
    )


def warm_up(root: Path, snapshots: Path, size: int, code: Path | None = None) -> None:
    """Write the snapshot with a cold ingest, unless one is there (it must be current)."""
    if not list(snapshots.glob("*.snapshot")):
        print(f"{size:>7} notes: writing the snapshot first (a cold ingest)", flush=True)
        subprocess.run([sys.executable, "-m", "brain", "ingest", str(root)], check=True,
                       env={**os.environ, "BRAIN_SNAPSHOT_DIR": str(snapshots)},
                       capture_output=True, cwd=code)


def interleaved(root: Path, runs: int, sides: dict[str, tuple[Path, Path | None]]) -> dict[str, Any]:
    """`runs` warm starts of each side ({name: (snapshots, code)}), taking turns."""
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(runs):
        for name, (snapshots, code) in sides.items():
            results[name].append(serve_once(root, snapshots, code))
    return {name: summarize(found) for name, found in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--snapshots", type=Path, help="the snapshot folder (default: snapshots-<size>)")
    parser.add_argument("--baseline", type=Path, help="a checkout of other brain code, run in turns")
    parser.add_argument("--baseline-snapshots", type=Path, help="its snapshot folder")
    args = parser.parse_args()
    if (args.baseline is None) != (args.baseline_snapshots is None):
        raise SystemExit("--baseline and --baseline-snapshots go together")
    report: dict[str, Any] = {}
    for size in args.sizes:
        root = args.cache / f"workload-{size}"
        snapshots = args.snapshots or args.cache / f"snapshots-{size}"
        if not (root / ".workload.json").exists():
            raise SystemExit(f"no workload at {root}: run bench/bench_ingest.py --sizes {size} first")
        warm_up(root, snapshots, size)
        if args.baseline is None:
            report[str(size)] = measure(root, snapshots, args.runs)
            print(describe(size, report[str(size)]), flush=True)
            continue
        warm_up(root, args.baseline_snapshots, size, args.baseline)
        sides = {"baseline": (args.baseline_snapshots, args.baseline), "this": (snapshots, None)}
        report[str(size)] = interleaved(root, args.runs, sides)
        for name, summary in report[str(size)].items():
            print(f"{name:>8}: {describe(size, summary)}", flush=True)
    out = HERE / "results" / "warm-serve.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
