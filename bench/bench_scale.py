"""Growth to 1,000,000 notes: time, peak RSS and store size of a full ingest, per size and store.

    .venv/bin/python bench/bench_scale.py [--sizes 10000 100000 1000000] [--stores memory neo4j]
                                          [--profile default|real]
                                          [--neo4j-uri bolt://…] [--neo4j-state DIR]

Issue 15 asks for a graph that grows linearly to 1,000,000 notes, measured on both stores.
`bench_ingest.py` runs several full ingests per size (ingest, restarts, `brain ingest`), which
is hours at 1M; this runs one full ingest per size and store, each in a fresh process, on the
workspaces `bench/workload.py` writes (cached under --cache, like bench_ingest's):

* memory: a cold start with an empty snapshot folder (`Brain(cache=True).sync()`: the full
  ingest), the snapshot written (`close`), then a warm restart from that snapshot. Store size:
  the snapshot file.
* neo4j: the database cleared, then the full ingest (a first sync this big is written as a new
  generation). Store size: the server's data folder; the server's own peak RSS (VmHWM) is
  read from /proc when --neo4j-state names the tools/neo4j state folder of a local server.

For each: wall and CPU seconds (the process and its parse helpers), notes/s, peak RSS of the
process and of its helpers (each one's own peak, added: an upper bound, as the peaks need not
coincide), the most they held together at one moment (their RSS added, sampled every 20 ms,
and never less than any one process's own high-water mark), and the same per note, so growth
shows as a flat column. Prints a line per run with the load average and writes
bench/results/scale.json (merged with what an earlier run wrote for other sizes and stores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ingest import HELPER_WATCH  # noqa: E402
from workload import generate  # noqa: E402

# The helpers' peak RSS is read from /proc (bench_ingest.HELPER_WATCH): RUSAGE_CHILDREN of a
# vfork+exec child starts at the parent's size, so it named the parent's, not the helper's.
DRIVER = HELPER_WATCH + """
import json, os, resource, sys, time
from pathlib import Path
from brain.service.brain import Brain

root, kind, uri = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
phases_out = os.environ.get("BRAIN_BENCH_PHASES")
if phases_out:  # bench/scale_phases.py: CPU and RSS by phase, the same wrappers on any checkout
    sys.path.insert(0, os.environ["BRAIN_BENCH_DIR"])
    import scale_phases
    phases = scale_phases.install()
if kind == "memory":
    brain = Brain(root, cache=True)
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    store.clear()
    brain = Brain(root, store)
t0 = time.perf_counter(); result = brain.sync(); t1 = time.perf_counter()
stats = brain.stats()
mid = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
brain.close(); t2 = time.perf_counter()
if phases_out:
    Path(phases_out).write_text(json.dumps(phases.report()))
own, helpers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "ingest_s": t1 - t0, "close_s": t2 - t1, "files": result.files, "parsed": result.parsed,
    "memories": stats.memories, "links": stats.links, "broken": stats.broken,
    "cpu_s": mid[0].ru_utime + mid[0].ru_stime, "helper_cpu_s": mid[1].ru_utime + mid[1].ru_stime,
    "close_cpu_s": own.ru_utime + own.ru_stime - mid[0].ru_utime - mid[0].ru_stime,
    "peak_rss_mb": own.ru_maxrss / 1024, "helper_peak_rss_mb": helper_rss()["workers_rss_mb"],
    "together_peak_rss_mb": helper_rss()["together_peak_rss_mb"],
}))
"""

# A warm restart must run the code that wrote the snapshot (the snapshot is keyed by it):
# do not change the checkout while a run is going.
WARM = """
import json, resource, sys, time
from pathlib import Path
from brain.service.brain import Brain
t0 = time.perf_counter()
brain = Brain(Path(sys.argv[1]), cache=True)
result = brain.sync(); t1 = time.perf_counter()
assert brain.snapshots is not None and brain.snapshots.loaded, "the snapshot was not loaded"
own = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "warm_start_s": t1 - t0, "warm_read": result.read, "warm_cpu_s": own.ru_utime + own.ru_stime,
    "warm_peak_rss_mb": own.ru_maxrss / 1024,
}))
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def workspace(size: int, cache: Path, profile: str = "default") -> Path:
    root = cache / (f"workload-{size}" if profile == "default" else f"workload-{size}-{profile}")
    if not (root / ".workload.json").exists():
        generate(root, size, profile=profile)
    return root


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def peak_rss_of(pid: int) -> float | None:
    """VmHWM of a running process, in MB (the kernel's own high-water mark)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    started = time.perf_counter()
    # stderr passes through: a run that fails after half an hour must say why.
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True, env=env)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - started
    return result


def measure_memory(root: Path, phases: bool = False) -> tuple[dict[str, float], dict[str, object]]:
    """The cold run's figures and, with `phases`, its phase table (bench/scale_phases.py)."""
    with tempfile.TemporaryDirectory(prefix="brain-scale-") as snapshots:
        env = {**os.environ, "BRAIN_SNAPSHOT_DIR": snapshots}
        table = Path(snapshots) / "phases.json"
        if phases:
            env.update(BRAIN_BENCH_PHASES=str(table), BRAIN_BENCH_DIR=str(HERE))
        result = run([sys.executable, "-c", DRIVER, str(root), "memory", ""], env)
        found: dict[str, object] = json.loads(table.read_text()) if phases else {}
        table.unlink(missing_ok=True)
        result["store_mb"] = folder_bytes(Path(snapshots)) / 1e6
        env.pop("BRAIN_BENCH_PHASES", None)
        result.update(run([sys.executable, "-c", WARM, str(root)], env))
    return result, found


def describe_phases(found: dict[str, object]) -> str:
    rows = found.get("phases", [])
    assert isinstance(rows, list)
    return "\n".join(
        f"    {r['phase']:<15} CPU {r['cpu_s']:>7.1f} s  wall {r['wall_s']:>7.1f} s  "
        f"peak {r['peak_mb']:>6} MB  left at {r['left_mb']:>6} MB" for r in rows)


def measure_neo4j(root: Path, uri: str, state: Path | None) -> dict[str, float]:
    env = dict(os.environ)
    result = run([sys.executable, "-c", DRIVER, str(root), "neo4j", uri], env)
    if state is not None:
        data = Path((state / "neo4j.data").read_text().strip())
        result["store_mb"] = folder_bytes(data) / 1e6
        server_rss = peak_rss_of(int((state / "neo4j.pid").read_text().strip()))
        if server_rss is not None:
            result["server_peak_rss_mb"] = server_rss
    return result


def per_note(result: dict[str, float]) -> dict[str, float]:
    n = max(1, int(result["memories"]))
    figures = {
        "notes_per_s": result["files"] / result["ingest_s"],
        "wall_us_per_note": result["ingest_s"] / n * 1e6,
        "cpu_us_per_note": (result["cpu_s"] + result["helper_cpu_s"]) / n * 1e6,
        "peak_rss_kb_per_note": result["peak_rss_mb"] * 1024 / n,
    }
    if "store_mb" in result:
        figures["store_bytes_per_note"] = result["store_mb"] * 1e6 / n
    return {k: round(v, 2) for k, v in figures.items()}


def describe(size: int, store: str, r: dict[str, float]) -> str:
    line = (
        f"{size:>8} notes, {store}: ingest {r['ingest_s']:.1f} s ({r['files'] / r['ingest_s']:.0f} files/s), "
        f"CPU {r['cpu_s']:.1f} s + helpers {r['helper_cpu_s']:.1f} s, close {r['close_s']:.1f} s, "
        f"peak RSS {r['peak_rss_mb']:.0f} MB + helpers (together) {r['helper_peak_rss_mb']:.0f} MB"
    )
    if "together_peak_rss_mb" in r:
        line += f", at one moment at most {r['together_peak_rss_mb']:.0f} MB"
    if "store_mb" in r:
        line += f", store {r['store_mb']:.0f} MB"
    if "server_peak_rss_mb" in r:
        line += f", server peak RSS {r['server_peak_rss_mb']:.0f} MB"
    if "warm_start_s" in r:
        line += f"; warm restart {r['warm_start_s']:.2f} s, RSS {r['warm_peak_rss_mb']:.0f} MB"
    return line + f" ({r['memories']:.0f} memories, {r['links']:.0f} links)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--stores", nargs="+", choices=("memory", "neo4j"), default=["memory"])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_BENCH_NEO4J_URI", ""))
    parser.add_argument("--neo4j-state", type=Path, help="the tools/neo4j state folder of the server")
    parser.add_argument("--profile", choices=("default", "real"), default="default",
                        help="bench/workload.py's profile (results keyed by size-profile past default)")
    parser.add_argument("--phases", action="store_true",
                        help="the embedded store's cold run by phase: CPU and RSS (bench/scale_phases.py)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scale.json")
    args = parser.parse_args()
    if "neo4j" in args.stores and not args.neo4j_uri:
        parser.error("--stores neo4j needs --neo4j-uri (tools/neo4j/neo4j.sh start prints one)")
    out = args.out
    report: dict[str, dict[str, object]] = json.loads(out.read_text()) if out.exists() else {}
    for size in args.sizes:
        root = workspace(size, args.cache, args.profile)
        label = str(size) if args.profile == "default" else f"{size}-{args.profile}"
        for store in args.stores:
            before = load()
            found: dict[str, object] = {}
            if store == "memory":
                result, found = measure_memory(root, args.phases)
            else:
                result = measure_neo4j(root, args.neo4j_uri, args.neo4j_state)
            entry = {**{k: round(v, 3) for k, v in result.items()}, **per_note(result),
                     "load_before": before, "load_after": load()}
            if found:
                entry["phases"] = found
            report.setdefault(store, {})[label] = entry
            print(describe(size, store, result) + f"; {before} -> {load()}", flush=True)
            if found:
                print(describe_phases(found), flush=True)
            out.parent.mkdir(exist_ok=True)
            out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
