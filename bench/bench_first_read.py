"""The first read after a first sync into the embedded store: it builds the link index
(`MemoryStore._ensure_indexes` -> `LinkTable.index_into`), which a user of `brain serve` at
100,000 notes met as a 20 s first answer after "ready". Base code against this code,
interleaved, each in a fresh process.

    .venv/bin/python bench/bench_first_read.py [--sizes 10000 100000] [--profiles default real]
        [--code base=/tmp/base --code change=.] [--runs 5] [--ingest-runs 1]

Per workspace (bench/workload.py's shape, read in place from `--workdir`/ws-N-PROFILE, generated
there if missing; nothing is written into it):

* `ingest` (`--ingest-runs` rounds, one process a code in turn): a full first sync into a
  MemoryStore (semantic search off), then the first read of each kind (backlinks, a page of
  backlinks, a neighbourhood, nodes, links by key), each timed as the first read of a store
  whose index is unbuilt (the index is dropped before each kind, as a first sync leaves it).
  The first process of the first round also keeps the link table as the sync left it
  (`--workdir`/table-N-PROFILE.pkl) for the next part.
* `table` (`--runs` rounds): a fresh process a code loads that table and builds the index
  from it once (the collector paused, as the store does): wall and CPU in ms, the
  process's peak RSS before and after the build (MB).

Medians over the rounds, `uptime` before and after. Writes bench/results/first_read.json (or `--out`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

INGEST = r"""
import hashlib, json, os, pickle, resource, sys, time
os.environ["BRAIN_SEMANTIC"] = "off"
from pathlib import Path
from brain.ingest.ingester import Ingester
from brain.store.memory.links.index import LinkIndex
from brain.store.memory.store import MemoryStore
root, keep = Path(sys.argv[1]), sys.argv[2]
store = MemoryStore()
t, c = time.perf_counter(), time.process_time()
Ingester(root, store).sync()
out = {"ingest": [(time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000]}
if keep != "-":
    with open(keep, "wb") as f:
        pickle.dump(store._out.__dict__, f, protocol=5)
out["rss_after_ingest_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
ids = sorted(store._memories)
some = ids[:: max(1, len(ids) // 20)][:20]
hub = max(store._out.targets(ids[:2000]).items(), key=lambda kv: len(kv[1]))[0]
keys = [i.rsplit("/", 1)[-1] for i in some]
kinds = {
    "links_to": lambda: store.links_to(some),
    "backlinks": lambda: store.backlinks(some, 10),
    "neighborhood": lambda: store.neighborhood(hub, 2, 200),
    "get_nodes": lambda: store.get_nodes(["unresolved:" + keys[0], *some]),
    "links_with_keys": lambda: store.links_with_keys(keys),
}
answers = {}
for kind, read in kinds.items():
    store._links, store._indexed = LinkIndex(), False  # as the first sync left it
    t, c = time.perf_counter(), time.process_time()
    answers[kind] = read()
    out[kind] = [(time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000]
out["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["answers"] = hashlib.sha1(repr(answers).encode()).hexdigest()  # equal across codes
print(json.dumps(out))
"""

TABLE = r"""
import json, pickle, resource, sys, time
from brain.gcpause import gc_paused
from brain.store.memory.links.index import LinkIndex
from brain.store.memory.links.table import LinkTable
with open(sys.argv[1], "rb") as f:
    state = pickle.load(f)
table = LinkTable.__new__(LinkTable)
table.__dict__.update(state)
del state
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
index = LinkIndex()
t, c = time.perf_counter(), time.process_time()
with gc_paused():  # as MemoryStore._ensure_indexes builds it
    table.index_into(index)
out = {"build": [(time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000],
       "rss_before_mb": before, "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
       "targets": len(index.incoming), "keys": len(index.by_key)}
print(json.dumps(out))
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def run(code: str, args: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve()), "BRAIN_SEMANTIC": "off",
           "PYTHONHASHSEED": "0"}  # the answers hash alike across processes
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False,
                          env=env, cwd=code)
    if done.returncode:
        raise SystemExit(done.stderr)
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        if isinstance(value, list):
            out[key] = {"wall_ms": round(statistics.median(r[key][0] for r in runs), 1),
                        "cpu_ms": round(statistics.median(r[key][1] for r in runs), 1)}
        elif isinstance(value, int | float):
            out[key] = round(statistics.median(r[key] for r in runs), 1)
        else:
            out[key] = sorted({r[key] for r in runs})
    out["runs"] = len(runs)
    return out


def main(argv: list[str] | None = None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--profiles", nargs="+", default=["default", "real"], choices=("default", "real"))
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ingest-runs", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/brain-bench-health-fresh"))
    parser.add_argument("--tables", type=Path, default=Path("/tmp/brain-bench-first-read"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "first_read.json")
    args = parser.parse_args(argv)
    codes = [tuple(c.split("=", 1)) for c in args.code] or [("change", ".")]
    args.tables.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        for profile in args.profiles:
            root = args.workdir / f"ws-{size}-{profile}"
            kept = root / ".workload.json"
            if not (kept.exists() and json.loads(kept.read_text())["notes"] == size):
                generate(root, size, profile=profile)
            table = args.tables / f"table-{size}-{profile}.pkl"
            row: dict[str, Any] = {"notes": size, "profile": profile, "uptime_before": uptime()}
            ingests: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in codes}
            for round_ in range(args.ingest_runs):
                for i, (label, path) in enumerate(codes):
                    keep = str(table) if round_ == 0 and i == 0 else "-"
                    ingests[label].append(run(path, ["-c", INGEST, str(root), keep]))
                    print(size, profile, label, "ingest", ingests[label][-1], flush=True)
            builds: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in codes}
            for _ in range(args.runs):
                for label, path in codes:  # interleaved
                    builds[label].append(run(path, ["-c", TABLE, str(table)]))
                    print(size, profile, label, "table", builds[label][-1], flush=True)
            row["ingest"] = {label: medians(r) for label, r in ingests.items() if r}
            row["table"] = {label: medians(r) for label, r in builds.items()}
            row["uptime_after"] = uptime()
            rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
