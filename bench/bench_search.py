"""Search on the design.md section 7 workload: query latency, indexing cost, embeddings, memory.

    .venv/bin/python bench/bench_search.py [--sizes 10000 100000] [--stores memory neo4j]
        [--neo4j-uri bolt://...] [--queries 200] [--runs 2]
    .venv/bin/python bench/bench_search.py --meaning [--runs 5] [--sizes 10000]

`--meaning` measures search by meaning alone (bench/search_quality.py), each in a fresh process:
the encoder's notes per CPU-second on numpy and on ONNX Runtime over 256 of the workload's notes
(interleaved runs, alternating which goes first; medians), a first start's time until every
note is searchable by meaning (the embedding helper's CPU and wall clock, nothing cached), and
recall@3 / MRR per class of query on the labelled set (keyword, semantic, fused).

Per size and store, in a fresh process each (so peak RSS is that run's own):
- ingest cost of the keyword index: a full ingest with the index, and one with its updates
  turned off (embedded: the parse helpers count no words and the index takes none; Neo4j:
  the full-text index dropped first);
- query latency p50/p95 of keyword, semantic and fused search as an admin and as an agent,
  over queries drawn from the workload's own words (1-3 words);
- embedding throughput (notes/s) of the packaged model on a sample of the workload's notes,
  and from it the time until semantic search is ready for all notes (an estimate: embedding
  100,000 notes on this 2-core machine takes hours, which a benchmark does not wait for).
  Semantic and fused latencies are measured over a vector index filled with one real vector
  per sampled note, repeated to the workload's size: the scan costs the same.
Also: the install size of the model package and its runtime (numpy, tokenizers).
Writes bench/results/search.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

DRIVER = r"""
import json, os, random, resource, sys, time, statistics
from pathlib import Path
import brain.store.memory.search as memory_search
from brain.model import MemoryNode
from brain.search.embedding import embedding_text, load_encoder
from brain.search.service import Mode
from brain.service.brain import Brain
from brain.store.base import MemoryFilter

root, store_kind, uri, index_on, n_queries, sample, keep = (
    Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6]),
    sys.argv[7] == "1")
if store_kind == "memory":
    from brain.store.memory.store import MemoryStore
    store = MemoryStore()
    if not index_on:  # no index at all: neither counted by the parse helpers nor written here
        MemoryStore.keyword_counts = False
        memory_search.KeywordIndex.apply = lambda self, batch, previous=None: None
else:
    from brain.store.neo4j.store import Neo4jStore
    store = Neo4jStore.connect(uri)
    if not keep:  # --queries-only: the graph this workspace left there is synced, not rebuilt
        store.clear()
    if not index_on:
        store._driver.execute_query("DROP INDEX memory_text IF EXISTS", database_=store.database)
    else:
        store.ensure_schema()
brain = Brain(root, store)
def cpu_all():
    # This process and its finished children: a full ingest parses in helper processes, so
    # this process's CPU alone would make the index's share of the work look far bigger.
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
t0, c0, a0 = time.perf_counter(), time.process_time(), cpu_all(); brain.sync()
ingest_s, ingest_cpu_s = time.perf_counter() - t0, time.process_time() - c0
out = {"ingest_s": ingest_s, "ingest_cpu_s": ingest_cpu_s, "ingest_cpu_all_s": cpu_all() - a0,
       "memories": brain.stats().memories, "load_ingest": os.getloadavg()[0]}
if not index_on or n_queries == 0:
    if store_kind == "neo4j" and not index_on:
        store.ensure_schema()
    print(json.dumps(out)); sys.exit(0)

memories = store.list_memories(MemoryFilter())
if store_kind == "memory":
    # The keyword index alone, built from scratch over every note (what a full ingest adds).
    from brain.store.base import WriteBatch
    keywords = memory_search.KeywordIndex()
    t, c = time.perf_counter(), time.process_time()
    for start in range(0, len(memories), 500):
        keywords.apply(WriteBatch(memories=memories[start:start + 500]))
    out["keyword_index_build_s"] = time.perf_counter() - t
    out["keyword_index_build_cpu_s"] = time.process_time() - c
    t = time.perf_counter(); out["keyword_index_image_mb"] = len(keywords.image()) / 1e6
    out["keyword_index_image_s"] = time.perf_counter() - t
    del keywords
rng = random.Random(7)
encoder, reason = load_encoder()
if encoder is not None:
    picked = rng.sample(memories, min(sample, len(memories)))
    texts = [embedding_text(m) for m in picked]
    encoder.encode_texts(texts[:4])  # warm up
    t = time.process_time(); vectors = encoder.encode_texts(texts); dt = time.process_time() - t
    out["embed_notes_per_s"] = len(texts) / dt
    out["semantic_ready_estimate_s"] = len(memories) / out["embed_notes_per_s"]
    # One vector per note: a real one from the sample plus a little noise, so the index holds
    # as many distinct points as notes. Exact copies (a thousand per point at 100k) are not
    # what an index meets and made Neo4j's ANN search as an agent ask again and again.
    import numpy as np
    noise = np.random.default_rng(7)
    base = np.asarray(vectors, dtype=np.float32)
    rows = []
    for i, m in enumerate(memories):
        v = base[i % len(base)] + noise.normal(0.0, 0.01, base.shape[1]).astype(np.float32)
        rows.append((m.id, m.hash, (v / np.linalg.norm(v)).tolist()))
    t = time.perf_counter()
    for start in range(0, len(rows), 2000):
        store.put_vectors(rows[start:start + 2000])
    out["vector_load_s"] = time.perf_counter() - t
else:
    out["semantic"] = reason

search = brain.search  # the indexer finds every vector current: nothing to embed
search.indexer.wait(timeout=600)
words = sorted({w for m in rng.sample(memories, 200) for w in m.body.split() if w.isalpha() and len(w) > 3})
queries = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(n_queries)]
agents = sorted({m.scope for m in memories if m.scope != "shared"})
modes = [Mode.KEYWORD] + ([Mode.SEMANTIC, Mode.HYBRID] if encoder is not None else [])
for mode in modes:
    for as_agent in (False, True):
        times, cpu = [], []
        for i, q in enumerate(queries):
            agent = agents[i % len(agents)] if as_agent else None
            t, c = time.perf_counter(), time.process_time()
            search.search(q, agent=agent, mode=mode, limit=10)
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        times.sort(); cpu.sort()
        key = f"{mode.value}{'_agent' if as_agent else ''}"
        out[key + "_p50_ms"] = statistics.median(times)
        out[key + "_p95_ms"] = times[int(len(times) * 0.95) - 1]
        # CPU time of this process: what a query costs when the machine is not shared (the
        # wall clock above includes waiting for a core; on Neo4j the work is in the server).
        out[key + "_cpu_p50_ms"] = statistics.median(cpu)
        out[key + "_cpu_p95_ms"] = cpu[int(len(cpu) * 0.95) - 1]
        out[key + "_load"] = os.getloadavg()[0]
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
brain.close()
print(json.dumps(out))
"""


def workspace(size: int, cache: Path) -> Path:
    root = cache / f"workload-{size}"
    if not (root / ".workload.json").exists():
        generate(root, size)
    return root


def run(
    root: Path, store: str, uri: str, index_on: bool, queries: int, sample: int, keep: bool = False
) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root), store, uri, "1" if index_on else "0", str(queries),
         str(sample), "1" if keep else "0"],
        check=True, capture_output=True, text=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{store} {'with' if index_on else 'without'} keyword index: {json.dumps(result)}", flush=True)
    return result


def install_size_mb() -> dict[str, float]:
    import importlib.util

    out: dict[str, float] = {}
    for module in ("brain_minilm", "numpy", "tokenizers", "onnxruntime"):
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            continue
        folder = Path(spec.origin).parent
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        out[module] = round(size / 1e6, 1)
    return out


def meaning(args: argparse.Namespace) -> int:
    import search_quality

    from brain.search.minilm_onnx import onnx_model

    runtimes = ["onnx", "numpy"] if onnx_model() is not None else ["numpy"]
    root = workspace(args.sizes[0], args.cache)
    runs: dict[str, list[dict[str, object]]] = {r: [] for r in runtimes}
    for i in range(args.runs):
        for runtime in runtimes if i % 2 == 0 else runtimes[::-1]:
            runs[runtime].append(search_quality.throughput(root, runtime, 256))
    report: dict[str, object] = {"install_mb": install_size_mb(), "uptime": os.getloadavg()}
    for runtime, rows in runs.items():
        rates = [round(float(str(r["notes_per_cpu_s"])), 1) for r in rows]
        report[f"{runtime}_notes_per_cpu_s"] = round(statistics.median(rates), 1)
        report[f"{runtime}_notes_per_cpu_s_all"] = rates
        report[f"{runtime}_load_all"] = [r["load"] for r in rows]
    report["first_start"] = search_quality.first_start(root)
    report["relevance"] = search_quality.relevance()
    print(json.dumps(report, indent=2))
    out: Path = args.out.with_name("search_meaning.json")
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["memory", "neo4j"])
    parser.add_argument("--neo4j-uri", default=os.environ.get("BRAIN_TEST_NEO4J_URI", ""))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sample", type=int, default=64, help="notes embedded to measure notes/s")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--ingest-only", action="store_true",
                        help="only the ingest cost of the keyword index (more runs in less time)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "search.json")
    parser.add_argument("--queries-only", action="store_true",
                        help="Neo4j: keep the graph an earlier run left (an hour's ingest at 100k) "
                             "and measure the queries only")
    parser.add_argument("--meaning", action="store_true",
                        help="throughput per runtime, first start, relevance per class "
                             "(bench/search_quality.py)")
    args = parser.parse_args()
    if args.meaning:
        return meaning(args)
    report: dict[str, object] = {"install_mb": install_size_mb(), "results": []}
    print(f"install size (MB): {report['install_mb']}")
    for size in args.sizes:
        root = workspace(size, args.cache)
        for store in args.stores:
            if store == "neo4j" and not args.neo4j_uri:
                print("neo4j: skipped (no --neo4j-uri / BRAIN_TEST_NEO4J_URI)")
                continue
            if args.queries_only:
                only = {"size": size, "store": store, "queries_only": True,
                        **run(root, store, args.neo4j_uri, True, args.queries, args.sample, keep=True)}
                report["results"].append(only)  # type: ignore[union-attr]
                continue
            # Interleaved, alternating which goes first: the machine's load drifts over minutes,
            # and runs of one kind back to back would measure the drift as index cost.
            with_index: list[dict[str, float]] = []
            without: list[dict[str, float]] = []
            for i in range(args.runs):
                order = [True, False] if i % 2 == 0 else [False, True]
                for index_on in order:
                    if index_on:
                        queries = 0 if args.ingest_only else args.queries
                        with_index.append(run(root, store, args.neo4j_uri, True, queries, args.sample))
                    else:
                        without.append(run(root, store, args.neo4j_uri, False, 0, 0))
            row: dict[str, object] = {"size": size, "store": store}
            for key in with_index[0]:
                values = [r[key] for r in with_index if isinstance(r.get(key), int | float)]
                row[key] = round(statistics.median(values), 2) if values else with_index[0][key]
            for key in ("ingest_s", "ingest_cpu_s", "ingest_cpu_all_s"):
                row[key + "_all"] = [round(r[key], 2) for r in with_index]
                row[key + "_without_index_all"] = [round(r[key], 2) for r in without]
                base = statistics.median(r[key] for r in without)
                row[key.replace("ingest", "ingest_without_index")] = round(base, 2)
                row[key.replace("ingest", "keyword_index_cost_pct").replace("_s", "")] = round(
                    100 * (float(row[key]) / base - 1), 1
                )
            print(json.dumps(row))
            report["results"].append(row)  # type: ignore[union-attr]
    out: Path = args.out
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
