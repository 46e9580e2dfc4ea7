"""Memory health latency on the design.md section 7 workload, both stores.

    .venv/bin/python bench/bench_health.py [--sizes 10000 100000] [--stores memory neo4j]
        [--neo4j-uri bolt://...] [--polls 50] [--edits 20]

Per size and store, in a fresh process each: a full ingest, then a dashboard's whole memory
health (brain/service/health.py `report_json`: counts per scope, 10 hubs, 10 most wanted and
a page of 20 of each list, what graphql/memory-health.graphql asks) timed as

- `first`: the first question after the ingest (the embedded store counts its counters here);
- `poll`: asked again with nothing changed (answered from the store's cache of answers: the
  embedded store's until its next write, Neo4j's until its change log moves);
- `computed`: the same with that cache emptied each time (the embedded store's answers made
  from its counters; Neo4j's from its queries);
- `after_edit`: right after a one-note edit is synced (the edit's time not counted; the
  embedded store's counters were updated by the write, the changed groups' sorted forms are
  rebuilt here), admin and agent in turn,

each as an admin and as an agent (its own scope and shared), p50 and p95 in ms, and how many
times the store counted its counters from scratch (`recounts`: an edit must add none).
On Neo4j a second store on its own driver (`reader.*`: what a replica's process holds) asks
too: its first question and polls, then after each edit the same question as the writer's
(`reader.*.after_edit`: it follows the write through the change log, or counts again), and
its `reader.recounts` and `reader.followed`. `--profile real` generates bench/workload.py's
real-memory shape.
Writes bench/results/health.json with the machine's load (`uptime`) before and after each run.

`--code before=/path/to/old/checkout --code after=.` runs each size and store once per
checkout, one after the other (interleaved, so the machine's load drifts hit both alike);
`--computed-polls` bounds the uncached questions (an old Neo4j answer took seconds each).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

# A new process on the database the driver wrote: its first dashboard question, admin then
# agent (what a server started after the writer pays), and whether it counted.
FRESH = r"""
import json, sys, time
from brain.service.health import health_ask, report_json
from brain.store.neo4j.store import Neo4jStore
from brain.store.visibility import EVERYTHING, Reach
out = {}
t, c = time.perf_counter(), time.process_time()
store = Neo4jStore.connect(sys.argv[1], read_only=True)
out["fresh.connect"] = round((time.perf_counter() - t) * 1000, 2)
# Its counts first (what `memoryHealth { scopes total }` asks): from the writer's tally in the
# database when it matches the graph (brain/store/neo4j/health/tally.py), else counted.
for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(sys.argv[2]))):
    walls, cpus = [], []
    for _ in range(20):
        t, c = time.perf_counter(), time.process_time()
        store.health_counts(health_ask(reach, None, 30))
        walls.append(round((time.perf_counter() - t) * 1000, 2))
        cpus.append(round((time.process_time() - c) * 1000, 2))
    out[f"fresh.{who}.counts_first"], out[f"fresh.{who}.counts_first_cpu"] = walls[0], cpus[0]
    rest = sorted(walls[1:])
    out[f"fresh.{who}.counts_poll"] = {"p50": rest[len(rest) // 2], "p95": rest[int(0.95 * len(rest))],
                                       "cpu_p50": sorted(cpus[1:])[len(rest) // 2]}
out["fresh.tallied"] = getattr(store, "health_tallied", None)
for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(sys.argv[2]))):
    t, c = time.perf_counter(), time.process_time()
    report_json(store, health_ask(reach, None, 30), 30, 10, 10, 20)
    out[f"fresh.{who}.first"] = round((time.perf_counter() - t) * 1000, 2)
    out[f"fresh.{who}.first_cpu"] = round((time.process_time() - c) * 1000, 2)
out["fresh.recounts"] = store.health_recounts()
print(json.dumps(out))
"""

DRIVER = r"""
import json, statistics, subprocess, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.service.health import health_ask, report_json
from brain.store.visibility import EVERYTHING, Reach

root, kind, uri, polls, edits, agent, computed_polls = (
    Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6],
    int(sys.argv[7]))
FRESH = sys.argv[8]  # the fresh process's script (bench_health.py FRESH)
reader = None  # Neo4j: a second store on its own driver, as a replica's process holds
if kind == "memory":
    from brain.store.memory.store import MemoryStore
    store = MemoryStore()
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    store.clear()
brain = Brain(root, store)
started = time.perf_counter()
brain.sync()
ingest = time.perf_counter() - started
if kind != "memory":
    reader = Neo4jStore.connect(uri)
    reader.health_stamp_ttl = 0.0  # the position read on every question (in service: once a second)

def dashboard(reach, on=None):
    report_json(on or store, health_ask(reach, None, 30), 30, 10, 10, 20)

cpu = []  # the CPU time (this process's) of each timed call, beside its wall time

def timed(fn, *args):
    t, c = time.perf_counter(), time.process_time()
    fn(*args)
    cpu.append((time.process_time() - c) * 1000)
    return (time.perf_counter() - t) * 1000

def pct(samples, cpus=None):
    ordered = sorted(samples)
    out = {"p50": round(statistics.median(ordered), 2),
           "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), "n": len(ordered)}
    if cpus:
        c = sorted(cpus)
        out["cpu_p50"] = round(statistics.median(c), 2)
        out["cpu_p95"] = round(c[min(len(c) - 1, int(0.95 * len(c)))], 2)
    return out

def timed_n(n, fn, *args):
    del cpu[:]
    walls = [timed(fn, *args) for _ in range(n)]
    return pct(walls, list(cpu))

out = {"ingest_s": round(ingest, 1)}
for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(agent))):
    out[f"{who}.first"] = round(timed(dashboard, reach), 2)
    out[f"{who}.poll"] = timed_n(polls, dashboard, reach)
    def uncached(reach=reach):
        for name in ("_health", "_health_index"):  # the counters' kept answers (this code and older)
            index = getattr(store, name, None)
            if index is not None:
                index.answers.clear()
        if isinstance(getattr(store, "_health_answers", None), dict):  # Neo4j's, before the counters
            store._health_answers.clear()
        dashboard(reach)
    out[f"{who}.computed"] = timed_n(computed_polls, uncached)
if reader is not None:  # the second process: its first question counts, then it follows
    for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(agent))):
        out[f"reader.{who}.first"] = round(timed(dashboard, reach, reader), 2)
        out[f"reader.{who}.first_cpu"] = round(cpu[-1], 2)
        out[f"reader.{who}.poll"] = timed_n(polls, dashboard, reach, reader)
    if hasattr(reader, "health_lean_count"):  # the first count both ways, in new stores
        small = sum(1 for _ in root.rglob("*.md")) <= 20_000  # the plain count: minutes at 100,000
        for how in ("lean", "plain") if small else ("lean",):
            other = Neo4jStore.connect(uri)
            other.health_lean_count = how == "lean"
            out[f"first_count.{how}"] = round(timed(dashboard, EVERYTHING, other), 2)
            out[f"first_count.{how}_cpu"] = round(cpu[-1], 2)
            other.close()
notes = sorted((root / "memory" / agent).glob("*.md"))
after = {"admin": [], "agent": [], "reader.admin": [], "reader.agent": []}
after_cpu = {k: [] for k in after}
for i in range(edits):  # each edit followed by one caller's question, admin and agent in turn
    path = notes[i % len(notes)]
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\nedited {i} [[{notes[(i + 1) % len(notes)].stem}]]\n")
    brain.sync([str(path.relative_to(root))])
    who, reach = ("admin", EVERYTHING) if i % 2 == 0 else ("agent", Reach.of_agent(agent))
    after[who].append(timed(dashboard, reach))
    after_cpu[who].append(cpu[-1])
    if reader is not None:
        after[f"reader.{who}"].append(timed(dashboard, reach, reader))
        after_cpu[f"reader.{who}"].append(cpu[-1])
for who, samples in after.items():
    if samples:
        out[f"{who}.after_edit"] = pct(samples, after_cpu[who])
if reader is not None:  # a process started now: its first question, as a dashboard server's
    getattr(store, "_health_tally_settle", lambda: None)()  # a tally waiting its second: stored
    fresh = subprocess.run([sys.executable, "-c", FRESH, uri, agent],
                           capture_output=True, text=True, check=True)
    out.update(json.loads(fresh.stdout.splitlines()[-1]))
recounts = getattr(store, "health_recounts", None)
out["recounts"] = recounts() if recounts else None
if reader is not None:
    out["reader.recounts"] = reader.health_recounts()
    out["reader.followed"] = getattr(reader, "health_followed", None)
print(json.dumps(out))
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


WRITER_FIRST = r"""
import json, sys, time
from brain.service.health import health_ask, report_json
from brain.store.neo4j.store import Neo4jStore
from brain.store.visibility import EVERYTHING
store = Neo4jStore.connect(sys.argv[1])
t, c = time.perf_counter(), time.process_time()
report_json(store, health_ask(EVERYTHING, None, 30), 30, 10, 10, 20)
out = {"writer.admin.first": round((time.perf_counter() - t) * 1000, 2),
       "writer.admin.first_cpu": round((time.process_time() - c) * 1000, 2),
       "writer.recounts": store.health_recounts()}
store.close()
print(json.dumps(out))
"""


def existing(args: argparse.Namespace) -> int:
    """The first questions of processes on a graph already written (a 100,000-note ingest
    takes most of an hour on a loaded machine: written once, measured here)."""
    agent = args.agent
    rows = []
    row: dict[str, object] = {"notes": args.sizes[0], "store": "neo4j", "mode": "existing",
                              "uptime_before": uptime()}
    done = subprocess.run([sys.executable, "-c", WRITER_FIRST, args.neo4j_uri],
                          capture_output=True, text=True, check=True)
    row.update(json.loads(done.stdout.splitlines()[-1]))
    for i in range(args.existing):
        fresh = subprocess.run([sys.executable, "-c", FRESH, args.neo4j_uri, agent],
                               capture_output=True, text=True, check=True)
        row[f"run{i}"] = json.loads(fresh.stdout.splitlines()[-1])
    row["uptime_after"] = uptime()
    print(json.dumps(row), flush=True)
    rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["memory", "neo4j"], choices=("memory", "neo4j"))
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--polls", type=int, default=50)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--computed-polls", type=int, default=20)
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=PATH",
                        help="a checkout to run (its PYTHONPATH); repeat to interleave")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/brain-bench-health"))
    parser.add_argument("--profile", default="default", choices=("default", "real"),
                        help="bench/workload.py's workload shape")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "health.json")
    parser.add_argument("--agent", default="release-writer", help="the agent of --existing")
    parser.add_argument("--existing", type=int, metavar="N", default=0,
                        help="Neo4j only: on the graph already at --neo4j-uri (no ingest, no edit), "
                             "a writable process's first dashboard (it counts and stores the tally), "
                             "then N fresh processes' (FRESH); --sizes names the size for the row")
    args = parser.parse_args(argv)
    if args.existing:
        return existing(args)
    codes = [tuple(c.split("=", 1)) for c in args.code] or [("", "")]
    results: list[dict[str, object]] = []
    for size in args.sizes:
        root = args.workdir / (f"ws-{size}" if args.profile == "default" else f"ws-{size}-{args.profile}")
        for store in args.stores:
            for label, path in codes:
                info = generate(root, size, profile=args.profile)  # again: the last run's edits undone
                agent = info.agent_names[0]
                env = {**os.environ, "PYTHONPATH": str(Path(path).resolve())} if path else None
                before = uptime()
                done = subprocess.run(
                    [sys.executable, "-c", DRIVER, str(root), store, args.neo4j_uri, str(args.polls),
                     str(args.edits), agent, str(args.computed_polls), FRESH],
                    capture_output=True, text=True, check=False, env=env,
                    cwd=path or None,  # `python -c` puts its directory first on sys.path
                )
                if done.returncode != 0:
                    print(done.stderr, file=sys.stderr)
                    return done.returncode
                row = {"notes": size, "store": store, "code": label, "profile": args.profile,
                       **json.loads(done.stdout.splitlines()[-1]),
                       "uptime_before": before, "uptime_after": uptime()}
                print(json.dumps(row), flush=True)
                results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
