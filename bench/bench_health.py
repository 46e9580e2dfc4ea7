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

DRIVER = r"""
import json, statistics, sys, time
from pathlib import Path
from brain.service.brain import Brain
from brain.service.health import health_ask, report_json
from brain.store.visibility import EVERYTHING, Reach

root, kind, uri, polls, edits, agent, computed_polls = (
    Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6],
    int(sys.argv[7]))
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

def timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t) * 1000

def pct(samples):
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), "n": len(ordered)}

out = {"ingest_s": round(ingest, 1)}
for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(agent))):
    out[f"{who}.first"] = round(timed(dashboard, reach), 2)
    out[f"{who}.poll"] = pct([timed(dashboard, reach) for _ in range(polls)])
    def uncached(reach=reach):
        for name in ("_health", "_health_index"):  # the counters' kept answers (this code and older)
            index = getattr(store, name, None)
            if index is not None:
                index.answers.clear()
        if isinstance(getattr(store, "_health_answers", None), dict):  # Neo4j's, before the counters
            store._health_answers.clear()
        dashboard(reach)
    out[f"{who}.computed"] = pct([timed(uncached) for _ in range(computed_polls)])
if reader is not None:  # the second process: its first question counts, then it follows
    for who, reach in (("admin", EVERYTHING), ("agent", Reach.of_agent(agent))):
        out[f"reader.{who}.first"] = round(timed(dashboard, reach, reader), 2)
        out[f"reader.{who}.poll"] = pct([timed(dashboard, reach, reader) for _ in range(polls)])
notes = sorted((root / "memory" / agent).glob("*.md"))
after = {"admin": [], "agent": [], "reader.admin": [], "reader.agent": []}
for i in range(edits):  # each edit followed by one caller's question, admin and agent in turn
    path = notes[i % len(notes)]
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\nedited {i} [[{notes[(i + 1) % len(notes)].stem}]]\n")
    brain.sync([str(path.relative_to(root))])
    who, reach = ("admin", EVERYTHING) if i % 2 == 0 else ("agent", Reach.of_agent(agent))
    after[who].append(timed(dashboard, reach))
    if reader is not None:
        after[f"reader.{who}"].append(timed(dashboard, reach, reader))
for who, samples in after.items():
    if samples:
        out[f"{who}.after_edit"] = pct(samples)
recounts = getattr(store, "health_recounts", None)
out["recounts"] = recounts() if recounts else None
if reader is not None:
    out["reader.recounts"] = reader.health_recounts()
    out["reader.followed"] = getattr(reader, "health_followed", None)
print(json.dumps(out))
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


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
    args = parser.parse_args(argv)
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
                     str(args.edits), agent, str(args.computed_polls)],
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
