"""Memory health on Neo4j in a process that just started: each question of a dashboard (counts,
hubs, most wanted, a page of each list; as an admin and as an agent) timed the first time
and warm, base code against this code, interleaved.

    .venv/bin/python bench/bench_health_fresh.py --neo4j-uri bolt://... [--sizes 10000]
        [--profile default|real] [--code base=/tmp/base --code change=.] [--runs 5] [--existing]

Per size: the workload (bench/workload.py, `--profile`) ingested into the database with the
first `--code` (skipped with `--existing`: the graph already there, e.g. a 100,000-note
ingest written once), then a writable process of the last `--code` asks once (it counts the
graph and stores the tally, brain/store/neo4j/health/tally.py), then `--runs` rounds of one
fresh read-only process per `--code`, in turn. Each fresh process asks the dashboard's
questions in report_json's order, admin then agent, timing each (`first`: the process's
first time; the very first question of the process is `admin.counts`), then asks the whole
dashboard `--warm` times more (`warm`: p50/p95 per question). CPU (this process's) and wall
in ms, medians over the runs of each `first`, and `uptime` before and after. Whether a
fresh process counted the graph (`recounts`) and how many answers came from the tally.
Writes bench/results/health_fresh.json (or `--out`).
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

FRESH = r"""
import json, sys, time
from brain.service.health import health_ask
from brain.store.health import HealthList
from brain.store.neo4j.store import Neo4jStore
from brain.store.visibility import EVERYTHING, Reach
uri, agent, warm = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Neo4jStore.connect(uri, read_only=True)
asks = {"admin": health_ask(EVERYTHING, None, 30), "agent": health_ask(Reach.of_agent(agent), None, 30)}
questions = [("counts", lambda a: store.health_counts(a)), ("hubs", lambda a: store.health_hubs(a, 10)),
             ("wanted", lambda a: store.health_wanted(a, 10))]
questions += [(w.value, lambda a, w=w: store.health_page(a, w, None, 21)) for w in HealthList]
def timed(fn, ask):
    t, c = time.perf_counter(), time.process_time()
    fn(ask)
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
out = {}
for who, ask in asks.items():
    for name, fn in questions:
        out[f"first.{who}.{name}"] = timed(fn, ask)
samples = {}
for _ in range(warm):
    for who, ask in asks.items():
        for name, fn in questions:
            samples.setdefault(f"warm.{who}.{name}", []).append(timed(fn, ask))
out.update(samples)
out["recounts"] = store.health_recounts()
out["tallied"] = getattr(store, "health_tallied", None)
store.close()
print(json.dumps(out))
"""

WRITER = r"""
import sys
from brain.service.health import health_ask, report_json
from brain.store.neo4j.store import Neo4jStore
from brain.store.visibility import EVERYTHING
store = Neo4jStore.connect(sys.argv[1])
report_json(store, health_ask(EVERYTHING, None, 30), 30, 10, 10, 20)
store.close()  # a tally still waiting is stored
"""


CLEAR = r"""
import sys
from brain.store.neo4j.store import Neo4jStore
store = Neo4jStore.connect(sys.argv[1])
store.clear()
store.close()
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def pct(values: list[Any]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def run(code: str, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve())}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False,
                          env=env, cwd=code)
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--profile", default="default", choices=("default", "real"))
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--existing", action="store_true", help="the graph is already in the database")
    parser.add_argument("--agent", default="release-writer", help="with --existing: the agent asking")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/brain-bench-health-fresh"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "health_fresh.json")
    args = parser.parse_args(argv)
    codes = [tuple(c.split("=", 1)) for c in args.code] or [("change", ".")]
    rows = []
    for size in args.sizes:
        root = args.workdir / f"ws-{size}-{args.profile}"
        kept = root / ".workload.json"  # a workload already written (the same seed) is reused
        if args.existing:
            agent = args.agent
        elif kept.exists() and json.loads(kept.read_text())["notes"] == size:
            agent = json.loads(kept.read_text())["agent_names"][0]
        else:
            agent = generate(root, size, profile=args.profile).agent_names[0]
        row: dict[str, object] = {"notes": size, "profile": args.profile, "uptime_before": uptime()}
        if not args.existing:
            run(codes[0][1], ["-c", CLEAR, args.neo4j_uri])
            ingest = ["-m", "brain", "ingest", str(root), "--store", "neo4j", "--neo4j-uri", args.neo4j_uri]
            run(codes[0][1], ingest)
        run(codes[-1][1], ["-c", WRITER, args.neo4j_uri])  # counts once and stores the tally
        found: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in codes}
        for _ in range(args.runs):
            for label, path in codes:  # interleaved
                found[label].append(json.loads(run(path, ["-c", FRESH, args.neo4j_uri, agent, str(args.warm)])
                                               .splitlines()[-1]))
        for label, runs in found.items():
            summary: dict[str, object] = {"recounts": [r["recounts"] for r in runs],
                                          "tallied": [r["tallied"] for r in runs]}
            for key in runs[0]:
                if key.startswith("first."):
                    summary[key] = {"wall": pct([r[key][0] for r in runs]),
                                    "cpu": pct([r[key][1] for r in runs])}
                elif key.startswith("warm."):
                    every = [s for r in runs for s in r[key]]
                    summary[key] = {"wall": pct([s[0] for s in every]), "cpu": pct([s[1] for s in every])}
            firsts = [sum(v[0] for k, v in r.items() if k.startswith("first.")) for r in runs]
            summary["first_dashboard_total_wall"] = pct(firsts)
            row[label] = summary
        row["uptime_after"] = uptime()
        print(json.dumps(row), flush=True)
        rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
