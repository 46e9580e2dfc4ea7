"""Related notes with semantic search on: this checkout's vector search against another's, in one process.

    .venv/bin/python bench/bench_related_versus.py --base /tmp/base-checkout [--sizes 10000]
        [--profiles default real] [--stores memory neo4j] [--neo4j-uri bolt://...]
        [--neo4j-pid PID] [--sample 60] [--cache /tmp/brain-bench]

Per size, profile and store: one ingest and the wait for every note's vector (the ONNX
MiniLM encoder, whose vectors are cached in BRAIN_CACHE_DIR: fill it once and every later
run embeds nothing), then `related_to` (brain.service.mentions, what every front end calls)
for `--sample` notes spread over the workspace, each as its own agent, once with the base
checkout's vector search and once with this one's, the order flipping each note, so both
run on the same data under the same load. The base's code is its brain/store/memory/search.py
(`VectorIndex`, filled with the same vectors) and brain/store/neo4j/search.py
(`Neo4jSearch.vector_search`, bound to the same store). Each answer pair must be identical
(paths, order, scores to 1e-5): the run stops on the first that is not.

Reported per side: p50/p95 of the whole call's wall time and of this process's CPU time, and
for Neo4j with `--neo4j-pid` the server's CPU time (the JVM's utime+stime from /proc) per
call; the load average at the start and end. Prints one JSON row per case.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from bench.bench_ingest import workspace  # noqa: E402


def load_base(base: Path, rel: str, name: str) -> ModuleType:
    """The base checkout's module at `rel`, under its own name (its imports are this checkout's)."""
    spec = importlib.util.spec_from_file_location(name, base / rel)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def server_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def run_case(root: Path, store_kind: str, args: argparse.Namespace) -> dict[str, Any]:
    from brain.service.brain import Brain
    from brain.service.mentions import related_to
    from brain.store.base import GraphStore, MemoryFilter
    from brain.store.visibility import Reach

    store: GraphStore
    if store_kind == "memory":
        from brain.store.memory.store import MemoryStore

        store = MemoryStore()
    else:
        from brain.store.neo4j.store import Neo4jStore

        store = Neo4jStore.connect(args.neo4j_uri)
        store.clear()
    brain = Brain(root, store)
    t0 = time.perf_counter()
    brain.sync()
    ingest = time.perf_counter() - t0
    t0 = time.perf_counter()
    assert brain.search.indexer.wait(7200), "embeddings not ready"
    embedded = time.perf_counter() - t0
    assert brain.search.status().ready, brain.search.status().describe()

    # The two sides: swap the store's vector search between the base's and this checkout's.
    sides = ("base", "change")
    inner: Any = store  # the private parts swapped below
    if store_kind == "memory":
        base_mod = load_base(args.base, "brain/store/memory/search.py", "base_memory_search")
        ours = inner._vectors
        theirs = base_mod.VectorIndex(inner._memory_facts)
        held = ours.hashes()
        vectors = [(m.id, m.hash, brain.search.indexer.note_vector(m))
                   for m in store.list_memories(MemoryFilter()) if held.get(m.id) == m.hash]
        theirs.put([(i, h, v) for i, h, v in vectors if v is not None])
        assert len(theirs) == len(ours), (len(theirs), len(ours))

        def use(side: str) -> None:
            inner._vectors = ours if side == "change" else theirs
    else:
        base_mod = load_base(args.base, "brain/store/neo4j/search.py", "base_neo4j_search")
        ours_fn = type(store).vector_search
        theirs_fn = base_mod.Neo4jSearch.vector_search

        def use(side: str) -> None:
            fn = ours_fn if side == "change" else theirs_fn
            inner.vector_search = fn.__get__(store)

    memories = store.list_memories(MemoryFilter(), bodies=False)
    picked = memories[:: max(1, len(memories) // args.sample)][: args.sample]
    times: dict[str, dict[str, list[float]]] = {s: {"wall": [], "cpu": [], "server_cpu": []} for s in sides}
    load_start = os.getloadavg()
    for warm in picked[:3]:  # first calls load code and fill caches on both sides
        for side in sides:
            use(side)
            related_to(brain.search, brain.root, warm, reach=Reach.of_agent(warm.scope), first=10)
    for n, memory in enumerate(picked):
        reach = Reach.of_agent(memory.scope)
        answers = {}
        for side in (("base", "change") if n % 2 == 0 else ("change", "base")):
            use(side)
            s0, t0, c0 = server_cpu(args.neo4j_pid), time.perf_counter(), time.process_time()
            found = related_to(brain.search, brain.root, memory, reach=reach, first=10)
            wall, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
            times[side]["wall"].append(wall)
            times[side]["cpu"].append(cpu)
            if args.neo4j_pid is not None and store_kind == "neo4j":
                times[side]["server_cpu"].append((server_cpu(args.neo4j_pid) - s0) * 1000)
            answers[side] = found
        base, change = answers["base"], answers["change"]
        assert [r.path for r in base] == [r.path for r in change], (memory.id, base, change)
        for a, b in zip(base, change, strict=True):
            assert abs(a.score - b.score) <= 1e-5, (memory.id, a, b)
            assert a.terms == b.terms, (memory.id, a, b)
    row: dict[str, Any] = {
        "notes": len(memories), "store": store_kind, "ingest_s": round(ingest, 1),
        "embedded_wait_s": round(embedded, 1), "n": len(picked), "identical": True,
        "load_start": [round(x, 1) for x in load_start], "load_end": [round(x, 1) for x in os.getloadavg()],
    }
    for side, parts in times.items():
        row[side] = {k: pct(v) for k, v in parts.items() if v}
    brain.close()
    return row


def main() -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--profiles", nargs="+", default=["default", "real"], choices=("default", "real"))
    parser.add_argument("--stores", nargs="+", default=["memory", "neo4j"], choices=("memory", "neo4j"))
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--neo4j-pid", type=int, help="the Neo4j server's process, for its CPU time")
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    if os.environ.get("BRAIN_SEMANTIC", "").lower() in ("0", "off", "false", "no"):
        parser.error("this benchmark is of semantic search: unset BRAIN_SEMANTIC")
    for size in args.sizes:
        for profile in args.profiles:
            root = workspace(size, args.cache, profile=profile)
            for store_kind in args.stores:
                row = {"profile": profile, **run_case(root, store_kind, args)}
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
