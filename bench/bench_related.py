"""Related notes (issue 42 item 5: GraphQL `Memory.related`, `brain related`): what one costs.

    .venv/bin/python bench/bench_related.py [--sizes 10000 100000] [--stores memory neo4j]
        [--semantic off on] [--neo4j-uri bolt://...] [--sample 100] [--code LABEL=PATH ...]

Per size, store and semantic setting, in a fresh process: a full ingest (with semantic on,
then the wait for every note's embedding: the ONNX MiniLM encoder, cached between runs in
BRAIN_CACHE_DIR), then `related_to` (brain.service.mentions, what every front end calls) for
`--sample` notes spread over the workspace, each as its own agent, timed whole (p50/p95 ms)
and by part: the note's links, the keyword query, the query's embedding, the vector query;
`whole_cpu` is the whole's CPU time (the process's), which a loaded machine moves less.
`--profile real` uses bench/workload.py's real-memory shape.
The parts are timed on their own calls after the whole one, so they add up to about the
whole. `--code` runs each case once per checkout, one after the other (before/after).
`--existing ROOT` measures on a Neo4j database that already holds the workspace at ROOT.
`--filled-cache DIR` runs with BRAIN_CACHE_DIR=DIR, where bench/fill_vector_cache.py puts
a vector under every note's key between the ingest and the indexer's start (real MiniLM
vectors for `--real` notes, the others synthetic: a real one of a sampled note plus noise):
ingest, the store's vector index and related then run as in production with embeddings on,
and the model embeds nothing (`embedded_now` is 0), so 100,000 notes are measured, which
embedding would take hours here. The part "embed" is the note's vector read from the cache,
as related reads it. `--server-pid` (the Neo4j JVM): its CPU per related call (`server_cpu`). On Neo4j,
`vector_reads` counts the vector part's index reads per query (it widens k until enough
neighbours are in the reader's reach). `--profile-out FILE`: cProfile of the whole calls,
run again after the timed pass (so the profiler's cost is not in the figures).
Writes bench/results/related.json with the load average of each run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from bench.bench_ingest import workspace  # noqa: E402

DRIVER = r"""
import json, os, statistics, sys, time
from dataclasses import replace
from pathlib import Path
from brain.service.brain import Brain
from brain.service.mentions import body_and_line, linked_ids, related_to
from brain.search.related import EMBED_CHARS, top_terms
from brain.index.text import title_of
from brain.store.base import MemoryFilter, SearchWhere
from brain.store.visibility import Reach
try:  # the keyword part as related asks it (a checkout before the common-word cut has none)
    from brain.search.related import COMMON
    common = {"common": COMMON}
except ImportError:
    common = {}

root, kind, uri, sample = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
if kind == "memory":
    from brain.store.memory.store import MemoryStore
    store = MemoryStore()
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    if os.environ.get("BENCH_EXISTING") != "1":
        store.clear()
brain = Brain(root, store)
if os.environ.get("BENCH_EXISTING") == "1" and kind != "memory":  # the graph --root was written to
    out = {"ingest_s": None}
else:
    t0 = time.perf_counter(); brain.sync(); out = {"ingest_s": round(time.perf_counter() - t0, 1)}
if os.environ.get("BENCH_FILL_REAL"):  # --filled-cache: a vector for every note, before the indexer looks
    sys.path.append(os.environ["BENCH_REPO"])
    from bench.fill_vector_cache import fill_texts, put_from_cache, store_notes
    t0 = time.perf_counter()
    notes = store_notes(store)
    out["filled"] = fill_texts([t for _, _, t in notes], Path(os.environ["BRAIN_CACHE_DIR"]),
                               int(os.environ["BENCH_FILL_REAL"]), 0.01)
    out["fill_s"] = round(time.perf_counter() - t0, 1)
    if os.environ.get("BENCH_PUT_ROWS"):  # --put-rows: the vectors put in bigger calls than the indexer's
        out["put"] = put_from_cache(store, notes, Path(os.environ["BRAIN_CACHE_DIR"]),
                                    int(os.environ["BENCH_PUT_ROWS"]))
search = brain.search
if os.environ.get("BRAIN_SEMANTIC") != "off":
    t0 = time.perf_counter()
    search.indexer.wait(3600)
    out["embedded_s"] = round(time.perf_counter() - t0, 1)
    out["embedded_now"] = search.indexer.embedded_now  # notes the model encoded: 0 on a filled cache
    out["vectors"] = len(search.index.vector_hashes())
out["semantic"] = search.status().state
memories = store.list_memories(MemoryFilter(), bodies=False)
picked = memories[:: max(1, len(memories) // sample)][:sample]
parts = {k: [] for k in ("whole", "whole_cpu", "server_cpu", "links", "keyword", "embed", "vector")}
def ms(t):
    return (time.perf_counter() - t) * 1000
server = os.environ.get("BENCH_SERVER_PID")
def server_ticks():  # the Neo4j JVM's utime + stime (10 ms ticks)
    fields = Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
out["load_start"] = [round(x, 2) for x in os.getloadavg()]
# Neo4j: the vector index's reads per vector query (it widens k until enough are in reach)
counting, rounds = False, []
index_read = getattr(search.index, "_read", None)
if index_read is not None:
    def counted_read(query, **params):
        if counting and "queryNodes" in query:
            rounds[-1] += 1
        return index_read(query, **params)
    search.index._read = counted_read
profiler = None
if os.environ.get("BENCH_PROFILE_OUT"):  # --profile-out: cProfile of the whole related calls only
    import cProfile
    profiler = cProfile.Profile()
for memory in picked:
    reach = Reach.of_agent(memory.scope)
    s0 = server_ticks() if server else 0
    t, c = time.perf_counter(), time.process_time()
    related_to(search, brain.root, memory, reach=reach, first=10)
    parts["whole"].append(ms(t)); parts["whole_cpu"].append((time.process_time() - c) * 1000)
    if server:
        parts["server_cpu"].append((server_ticks() - s0) * 10.0)
    t = time.perf_counter(); linked = linked_ids(store, memory); parts["links"].append(ms(t))
    body, _ = body_and_line(brain.root, memory)
    where, terms = SearchWhere(reach.scopes, **common), top_terms(memory, body)
    t = time.perf_counter(); search.index.keyword_search(terms, where, 10 + len(linked) + 1)
    parts["keyword"].append(ms(t))
    if search.status().ready:
        # As related does: the note's own vector from the cache, else its text encoded.
        t = time.perf_counter(); vector = search.indexer.note_vector(replace(memory, body=body))
        if vector is None:
            text = f"{title_of(memory.name)}. {memory.description}\n{body}"[:EMBED_CHARS]
            vector = search.indexer.query_vector(text)
        parts["embed"].append(ms(t))
        if vector is not None:
            rounds.append(0); counting = True
            t = time.perf_counter(); search.index.vector_search(vector, where, 10 + len(linked) + 1)
            parts["vector"].append(ms(t)); counting = False
def pct(v):
    if not v:
        return None
    o = sorted(v)
    return {"p50": round(statistics.median(o), 1), "p95": round(o[min(len(o) - 1, int(0.95 * len(o)))], 1)}
out.update({k: pct(v) for k, v in parts.items()})
if index_read is not None and rounds:
    out["vector_reads"] = {str(r): rounds.count(r) for r in sorted(set(rounds))}  # reads per query: calls
if profiler is not None:  # a second pass, after the timed one: the profiler's cost stays out of it
    for memory in picked:
        reach = Reach.of_agent(memory.scope)
        profiler.enable()
        related_to(search, brain.root, memory, reach=reach, first=10)
        profiler.disable()
    profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
out["n"] = len(picked)
out["load"] = [round(x, 2) for x in os.getloadavg()]
print(json.dumps(out))
brain.close()
"""


def main() -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["memory", "neo4j"], choices=("memory", "neo4j"))
    parser.add_argument("--semantic", nargs="+", default=["off", "on"], choices=("off", "on"))
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "related.json")
    parser.add_argument("--profile", default="default", choices=("default", "real"),
                        help="bench/workload.py's workload shape")
    parser.add_argument("--existing", type=Path, metavar="ROOT",
                        help="Neo4j: the workspace at ROOT is already in the database at --neo4j-uri "
                             "(no ingest: a 100,000-note one takes most of an hour on a loaded machine)")
    parser.add_argument("--filled-cache", type=Path, metavar="DIR",
                        help="BRAIN_CACHE_DIR for the runs, filled first by bench/fill_vector_cache.py "
                             "(real MiniLM vectors for --real notes, the rest drawn from them with "
                             "noise): 100,000 notes are measured with embeddings on, none computed")
    parser.add_argument("--real", type=int, default=3000, help="--filled-cache: notes with a real vector")
    parser.add_argument("--put-rows", type=int, help="--filled-cache: put the cached vectors into the store "
                        "in calls of this many rows before the indexer starts (it then finds them all there)")
    parser.add_argument("--server-pid", type=int, help="the Neo4j JVM: its CPU per related call")
    parser.add_argument("--profile-out", type=Path, help="cProfile stats of the whole related calls, a "
                        "second pass after the timed one, written here")
    args = parser.parse_args()
    codes = [tuple(c.split("=", 1)) for c in args.code] or [("", "")]
    rows: list[dict[str, object]] = []
    for size in args.sizes:
        root = args.existing or workspace(size, args.cache, profile=args.profile)
        for store in args.stores:
            for semantic in args.semantic:
                for label, path in codes:
                    env = {**os.environ, "BRAIN_SEMANTIC": "off" if semantic == "off" else "on",
                           "BENCH_EXISTING": "1" if args.existing else "0"}
                    if path:
                        env["PYTHONPATH"] = str(Path(path).resolve())
                    if args.filled_cache is not None:
                        env["BRAIN_CACHE_DIR"] = str(args.filled_cache.resolve())
                        env["BENCH_FILL_REAL"], env["BENCH_REPO"] = str(args.real), str(HERE.parent)
                    if args.put_rows:
                        env["BENCH_PUT_ROWS"] = str(args.put_rows)
                    if args.profile_out:
                        env["BENCH_PROFILE_OUT"] = str(args.profile_out.resolve())
                    if args.server_pid:
                        env["BENCH_SERVER_PID"] = str(args.server_pid)
                    done = subprocess.run(
                        [sys.executable, "-c", DRIVER, str(root), store, args.neo4j_uri, str(args.sample)],
                        capture_output=True, text=True, check=False, env=env,
                        cwd=path or None,  # `python -c` puts its directory first on sys.path
                    )
                    if done.returncode != 0:
                        print(done.stderr[-3000:], file=sys.stderr)
                        return done.returncode
                    row = {"notes": size, "store": store, "semantic_asked": semantic, "code": label,
                           "profile": args.profile,
                           **json.loads(done.stdout.strip().splitlines()[-1])}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
