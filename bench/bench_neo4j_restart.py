"""A writer's restart on Neo4j on an unchanged workspace: time to ready, files read, writes.

    .venv/bin/python bench/bench_neo4j_restart.py [--notes 10000] [--runs 5]
        [--brain-src DIR]   # also another checkout (e.g. the code before), interleaved

Each run is a fresh process (`python -c`, the way `brain serve` or `brain ingest` starts):
connect, then the first sync with the snapshot on (`brain/snapshot/image.py`; a Neo4j writer
keeps the ingester's state there, checked against the database's stamp), until the graph
is ready. Printed per run: spawn to ready, the sync's seconds, files read, graph write
transactions and what they changed. The first run of each checkout ingests (untimed).

Neo4j: BRAIN_BENCH_NEO4J_URI (required; the database is replaced by the workload's graph).
The load average is printed with every figure: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Run inside the measured process: stdout's last line is the JSON of one start.
PROBE = """
import json, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.store.neo4j.store import Neo4jStore
store = Neo4jStore.connect(sys.argv[1])
store.replace_foreign = True
brain = Brain(Path(sys.argv[2]), store, cache=True)
result = brain.sync()
ready = time.time()
out = {"ready_at": ready, "sync_s": result.seconds, "read": result.read,
       "transactions": store.transactions, "written": dict(store.last_write),
       "snapshot": getattr(brain.snapshots, "status", "none")}
brain.close()
print(json.dumps(out))
"""


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def start(src: Path, uri: str, root: Path, env: dict[str, str]) -> dict[str, object]:
    spawned = time.time()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, uri, str(root)], capture_output=True, text=True, check=True,
        env={**env, "PYTHONPATH": str(src)}, cwd=src,
    )
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    out["spawn_to_ready_s"] = round(float(str(out.pop("ready_at"))) - spawned, 3)
    out["load"] = load()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--brain-src", type=Path, help="another checkout of brain, run interleaved")
    args = parser.parse_args()
    uri = os.environ["BRAIN_BENCH_NEO4J_URI"]
    root = Path(f"/tmp/brain-bench/workload-{args.notes}")
    if not root.is_dir():
        sys.path.insert(0, str(ROOT))
        from bench.workload import generate

        generate(root, notes=args.notes)
    sources = {"this": ROOT, **({"other": args.brain_src.resolve()} if args.brain_src else {})}
    with tempfile.TemporaryDirectory(prefix="brain-restart-") as snapshots:
        env = {**os.environ, "BRAIN_SNAPSHOT_DIR": snapshots}
        runs: dict[str, list[dict[str, object]]] = {name: [] for name in sources}
        for name, src in sources.items():  # the first start of each: a full ingest, untimed
            first = start(src, uri, root, env)
            print(f"{name}: first start {first}", flush=True)
        for run in range(args.runs):
            for name, src in sources.items():
                out = start(src, uri, root, env)
                runs[name].append(out)
                print(f"{name} run {run + 1}: {json.dumps(out)}", flush=True)
    for name, results in runs.items():
        ready = statistics.median(float(str(r["spawn_to_ready_s"])) for r in results)
        sync = statistics.median(float(str(r["sync_s"])) for r in results)
        print(f"{name} ({sources[name]}): spawn to ready median {ready:.2f} s, sync median {sync:.2f} s, "
              f"files read {[r['read'] for r in results]}, graph transactions "
              f"{[r['transactions'] for r in results]}, load now {load()}")


if __name__ == "__main__":
    main()
