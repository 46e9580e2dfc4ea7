"""Full ingest, no-change rescan, `brain check`, and restarts from the snapshot, on the
design.md section 7 workload.

    .venv/bin/python bench/bench_ingest.py [--sizes 1000 10000 100000] [--runs 3] [--layout space]

`--layout space` runs the same on the space workload (10% of the files not markdown) and
writes bench/results/ingest-space.json; compare files/s and peak RSS with the latchai figures.
`--layout mindlink|lab` runs the latchai workload reshaped into that layout
(bench/workload_layouts.py: the same notes' bytes and mtimes), written to ingest-<layout>.json.
`--iwe PATH` times `iwe count` beside `brain ingest`. `--profiles default real` runs each
size on both workload profiles (bench/workload.py `--profile`). `--versus` (with `--iwe`) times
only `brain ingest --no-cache` against `iwe count`, process start to exit, in rounds that
alternate the two tools and the profiles, so a change of the machine's load hits all of them:
wall and CPU seconds (the process and its helpers, from wait4) and peak RSS, medians, with the
load average of each round. `--serve` also times a warm `brain serve`
to ready, first answer and files checked (bench/bench_warm_serve.py; that script alone skips
the ingests).

Every run is a fresh process (so peak RSS is that run's own), on a generated workspace that
is cached between runs. `cold`: a start without a snapshot (full ingest, then the snapshot
is written, timed apart); `warm`: a restart that loads it and rescans (what `brain serve` and
`brain lsp` do on an unchanged workspace). `brain ingest` is timed from process start to
exit, and beside `iwe count` when --iwe names the binary. Prints medians and the machine's
load, and writes bench/results/ingest.json. CPU seconds (of the ingesting process and of its
parse helpers) are given beside the times: on a shared machine they move less with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_warm_serve import describe, measure  # noqa: E402
from workload import PROFILES, generate  # noqa: E402
from workload_layouts import RESHAPERS, generate_layout  # noqa: E402

# The parse helpers' own peak RSS, read from /proc while they run. Not RUSAGE_CHILDREN: a
# child spawned by vfork and exec (subprocess) starts its ru_maxrss at the parent's RSS of
# that moment, so it reported the ingesting process's size, not the helper's (VmHWM is the
# high-water mark of the helper's own address space since exec). A helper's VmHWM only
# grows, so a poll every 50 ms misses at most its last 50 ms.
HELPER_WATCH = """
import os, threading
helper_peaks = {}
together = [0]  # the most this process and its helpers held at one moment (KB, sampled)
def _status(pid, key):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
def _watch_helpers():
    me = os.getpid()
    while True:
        try:
            kids = open(f"/proc/{me}/task/{me}/children").read().split()
        except OSError:
            kids = []
        now = _status(me, "VmRSS:")
        for kid in kids:
            helper_peaks[kid] = max(helper_peaks.get(kid, 0), _status(kid, "VmHWM:"))
            now += _status(kid, "VmRSS:")
        together[0] = max(together[0], now)
        threading.Event().wait(0.02)
threading.Thread(target=_watch_helpers, daemon=True).start()
def helper_rss():
    peaks = list(helper_peaks.values())
    # The samples can miss a spike shorter than 20 ms: at one moment there was at least each
    # process's own high-water mark (this one's often comes after its helpers have gone).
    most = max(together[0], _status(os.getpid(), "VmHWM:"), max(peaks, default=0))
    return {"worker_peak_rss_mb": max(peaks, default=0) / 1024, "workers_rss_mb": sum(peaks) / 1024,
            "workers": len(peaks), "together_peak_rss_mb": most / 1024}
"""

DRIVER = HELPER_WATCH + """
import json, resource, sys, time
from pathlib import Path
try:
    from brain.service.brain import Brain
except ImportError:  # a tree from before brain/service/ (bench_ingest_ab.py --old)
    from brain.service import Brain
brain = Brain(Path(sys.argv[1]))
t0 = time.perf_counter(); first = brain.sync(); t1 = time.perf_counter()
again = brain.sync(); t2 = time.perf_counter()
stats = brain.stats()
own = resource.getrusage(resource.RUSAGE_SELF)
helpers = resource.getrusage(resource.RUSAGE_CHILDREN)
self_rss = own.ru_maxrss
print(json.dumps({**helper_rss(),
    "ingest_s": t1 - t0, "rescan_s": t2 - t1, "files": first.files, "parsed": first.parsed,
    "rescan_read": again.read, "rescan_parsed": again.parsed,
    "memories": stats.memories, "links": stats.links, "broken": stats.broken,
    "peak_rss_mb": self_rss / 1024,
    "cpu_s": own.ru_utime + own.ru_stime, "worker_cpu_s": helpers.ru_utime + helpers.ru_stime,
}))
"""


RESTART = HELPER_WATCH + """
import json, resource, sys, time
from pathlib import Path
try:
    from brain.service.brain import Brain
except ImportError:  # a tree from before brain/service/ (bench_ingest_ab.py --old)
    from brain.service import Brain
t0 = time.perf_counter()
brain = Brain(Path(sys.argv[1]), cache=True)
result = brain.sync(); t1 = time.perf_counter()
assert brain.snapshots is not None
brain.close(); t2 = time.perf_counter()
print(json.dumps({**helper_rss(),
    "start_s": t1 - t0, "close_s": t2 - t1, "loaded": brain.snapshots.loaded,
    "load_s": brain.snapshots.load_seconds, "read": result.read,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def restart(root: Path, snapshots: Path, cold: bool) -> dict[str, float]:
    env = {**os.environ, "BRAIN_SNAPSHOT_DIR": str(snapshots)}
    if cold:
        for old in snapshots.glob("*.snapshot"):
            old.unlink()
    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(root)], check=True, capture_output=True, text=True, env=env
    )
    result: dict[str, float] = json.loads(out.stdout)
    result["snapshot_mb"] = sum(p.stat().st_size for p in snapshots.glob("*.snapshot")) / 1e6
    return result


def timed_command(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env, cwd=cwd)
    return time.perf_counter() - started


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def workspace(size: int, cache: Path, layout: str = "latchai", profile: str = "default") -> Path:
    if layout in RESHAPERS:
        return generate_layout(cache / f"workload-{layout}-{size}", size, layout, cache)
    name = f"workload-{size}" if layout == "latchai" else f"workload-{layout}-{size}"
    root = cache / (name if profile == "default" else f"{name}-{profile}")
    if not (root / ".workload.json").exists():
        generate(root, size, layout=layout, profile=profile)
    return root


def rusage_command(argv: list[str], cwd: Path | None = None) -> dict[str, float]:
    """Wall seconds, CPU seconds (the process and every child it waited for: brain's parse
    helpers) and peak RSS in MB (the largest of them) of one command, from start to exit."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{argv} exited with {proc.returncode}: {err[-2000:]}")
    if proc.stderr:
        proc.stderr.close()
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024}


def versus(roots: dict[str, Path], iwe: str, runs: int) -> dict[str, object]:
    """`brain ingest --no-cache` against `iwe count` on each workspace, interleaved: every
    round runs each profile with both tools, and the tools' order flips each round."""
    tools = {
        "brain": lambda root: [sys.executable, "-m", "brain", "ingest", str(root), "--no-cache"],
        "iwe": lambda root: [iwe, "count"],
    }
    got: dict[str, dict[str, list[dict[str, float]]]] = {p: {t: [] for t in tools} for p in roots}
    loads: list[float] = []
    for round_ in range(runs):
        order = list(tools) if round_ % 2 == 0 else list(reversed(tools))
        for profile, root in roots.items():
            for tool in order:
                before = os.getloadavg()[0]
                r = rusage_command(tools[tool](root), cwd=root)
                r["load"] = before
                got[profile][tool].append(r)
                loads.append(before)
                print(f"round {round_ + 1} {profile:>8} {tool:>5}: {r['wall_s']:.2f} s wall, "
                      f"{r['cpu_s']:.2f} s CPU, peak {r['peak_rss_mb']:.0f} MB; load {before:.2f}",
                      flush=True)
    report: dict[str, object] = {"runs": runs, "loads": loads}
    for profile, by_tool in got.items():
        med = {t: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for t, rs in by_tool.items()}
        b, i = med["brain"], med["iwe"]
        report[profile] = {**{f"{t}_{k}": round(v, 3) for t, m in med.items() for k, v in m.items()},
                           "wall_ratio": round(b["wall_s"] / i["wall_s"], 2),
                           "cpu_ratio": round(b["cpu_s"] / i["cpu_s"], 2)}
        print(f"{profile}: brain {b['wall_s']:.2f} s wall / {b['cpu_s']:.2f} s CPU / "
              f"{b['peak_rss_mb']:.0f} MB; iwe {i['wall_s']:.2f} s / {i['cpu_s']:.2f} s / "
              f"{i['peak_rss_mb']:.0f} MB; ratio wall {b['wall_s'] / i['wall_s']:.2f}, "
              f"CPU {b['cpu_s'] / i['cpu_s']:.2f} (medians of {runs}; {load()})", flush=True)
    return report


def run_once(root: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root)], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    started = time.perf_counter()
    check = subprocess.run(
        [sys.executable, "-m", "brain", "check", str(root), "--format", "json"],
        capture_output=True, text=True,
    )
    result["check_s"] = time.perf_counter() - started
    result["check_exit"] = check.returncode
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--layout", choices=("latchai", "space", *RESHAPERS), default="latchai")
    parser.add_argument("--iwe", help="the iwe binary (cargo install iwe), to time `iwe count` beside")
    parser.add_argument("--profiles", nargs="+", choices=PROFILES, default=["default"],
                        help="the workload profiles (bench/workload.py --profile)")
    parser.add_argument("--versus", action="store_true",
                        help="only `brain ingest --no-cache` against `iwe count`, interleaved")
    parser.add_argument("--serve", action="store_true",
                        help="also time a warm `brain serve` to ready (bench/bench_warm_serve.py)")
    args = parser.parse_args()
    report: dict[str, object] = {
        "cpus": os.cpu_count(), "runs": args.runs, "layout": args.layout,
        "load_average": list(os.getloadavg()), "sizes": {},
    }
    if args.versus:
        if not args.iwe:
            parser.error("--versus needs --iwe")
        for size in args.sizes:
            roots = {p: workspace(size, args.cache, args.layout, p) for p in args.profiles}
            report["sizes"][str(size)] = versus(roots, args.iwe, args.runs)  # type: ignore[index]
        out = HERE / "results" / "ingest-versus.json"
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {out}")
        return
    for size, profile in [(size, p) for size in args.sizes for p in args.profiles]:
        root = workspace(size, args.cache, args.layout, profile)
        count = args.runs if size < 100_000 else max(1, args.runs // 2)
        print(f"{size:>7} notes: before: {load()}", flush=True)
        runs = [run_once(root) for _ in range(count)]
        med = {k: statistics.median(float(r[k]) for r in runs) for k in runs[0]}
        summary = {
            "runs": len(runs),
            "ingest_s_median": round(med["ingest_s"], 3),
            "ingest_files_per_s": round(med["files"] / med["ingest_s"]),
            "rescan_s_median": round(med["rescan_s"], 4),
            "rescan_speedup": round(med["ingest_s"] / med["rescan_s"], 1),
            "check_s_median": round(med["check_s"], 3),
            "peak_rss_mb": round(med["peak_rss_mb"], 1),
            "worker_peak_rss_mb": round(med["worker_peak_rss_mb"], 1),
            # The ingesting process and every helper at their own peaks (an upper bound of
            # the memory the ingest needed at once: the peaks need not coincide).
            "peak_rss_with_workers_mb": round(med["peak_rss_mb"] + med["workers_rss_mb"], 1),
            "workers": int(med["workers"]),
            "cpu_s_median": round(med["cpu_s"], 2),
            "worker_cpu_s_median": round(med["worker_cpu_s"], 2),
            "memories": int(med["memories"]),
            "links": int(med["links"]),
            "broken": int(med["broken"]),
            "all_ingest_s": [round(float(r["ingest_s"]), 3) for r in runs],
        }
        snapshots = args.cache / f"snapshots-{size}"
        snapshots.mkdir(exist_ok=True)
        colds, warms = [], []
        for _ in range(count):
            colds.append(restart(root, snapshots, cold=True))
            warms.append(restart(root, snapshots, cold=False))
        assert all(w["loaded"] and not w["read"] for w in warms), warms
        env = {**os.environ, "BRAIN_SNAPSHOT_DIR": str(snapshots)}
        brain_cmd = [sys.executable, "-m", "brain", "ingest", str(root)]
        ingest_cold = [timed_command([*brain_cmd, "--no-cache"], env) for _ in range(count)]
        ingest_warm = [timed_command(brain_cmd, env) for _ in range(count)]
        iwe = [timed_command([args.iwe, "count"], None, root) for _ in range(count)] if args.iwe else []
        summary.update({
            "cold_start_s_median": round(statistics.median(r["start_s"] for r in colds), 3),
            "cold_snapshot_write_s_median": round(statistics.median(r["close_s"] for r in colds), 3),
            "cold_peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in colds), 1),
            "cold_peak_rss_with_workers_mb": round(
                statistics.median(r["peak_rss_mb"] + r["workers_rss_mb"] for r in colds), 1),
            "warm_start_s_median": round(statistics.median(r["start_s"] for r in warms), 3),
            "warm_load_s_median": round(statistics.median(r["load_s"] for r in warms), 3),
            "warm_peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in warms), 1),
            "snapshot_mb": round(colds[-1]["snapshot_mb"], 1),
            "brain_ingest_process_s_median": round(statistics.median(ingest_cold), 3),
            "brain_ingest_process_warm_s_median": round(statistics.median(ingest_warm), 3),
            "load_after": load(),
        })
        if iwe:
            summary["iwe_count_s_median"] = round(statistics.median(iwe), 3)
            ratio = statistics.median(ingest_cold) / statistics.median(iwe)
            summary["brain_ingest_over_iwe"] = round(ratio, 2)
        if args.serve:
            summary["warm_serve"] = measure(root, snapshots, count)
            print(describe(size, summary["warm_serve"]), flush=True)
        key = str(size) if profile == "default" else f"{size}-{profile}"
        report["sizes"][key] = summary  # type: ignore[index]
        print(
            f"{size:>7} notes: ingest {summary['ingest_s_median']} s "
            f"({summary['ingest_files_per_s']} files/s), rescan {summary['rescan_s_median']} s "
            f"({summary['rescan_speedup']}x faster), check {summary['check_s_median']} s, "
            f"peak RSS {summary['peak_rss_mb']} MB (+ {summary['workers']} workers of up to "
            f"{summary['worker_peak_rss_mb']} MB: {summary['peak_rss_with_workers_mb']} MB in all), "
            f"CPU {summary['cpu_s_median']} s (+ workers {summary['worker_cpu_s_median']} s)",
            flush=True,
        )
        print(
            f"{size:>7} notes: restart cold {summary['cold_start_s_median']} s "
            f"(+ snapshot write {summary['cold_snapshot_write_s_median']} s, {summary['snapshot_mb']} MB), "
            f"warm {summary['warm_start_s_median']} s (load {summary['warm_load_s_median']} s), "
            f"peak RSS cold {summary['cold_peak_rss_mb']} MB "
            f"({summary['cold_peak_rss_with_workers_mb']} MB with workers), "
            f"warm {summary['warm_peak_rss_mb']} MB; "
            f"`brain ingest` process {summary['brain_ingest_process_s_median']} s cold, "
            f"{summary['brain_ingest_process_warm_s_median']} s warm"
            + (f", `iwe count` {summary['iwe_count_s_median']} s "
               f"(ratio {summary['brain_ingest_over_iwe']})" if iwe else "")
            + f"; {summary['load_after']}",
            flush=True,
        )
    out = HERE / "results" / ("ingest.json" if args.layout == "latchai" else f"ingest-{args.layout}.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
