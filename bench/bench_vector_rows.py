"""The embedded store's vector search alone, at row counts no embedding run here reaches.

    .venv/bin/python bench/bench_vector_rows.py --base /tmp/base-checkout --cache-file VECTORS.sqlite
        [--rows 10000 100000] [--queries 60]

Embedding 100,000 notes with MiniLM takes hours on this machine's two loaded cores, so this
measures the part of a related query that grows with the vectors: `VectorIndex.search`.
Rows are real MiniLM vectors from brain's vector cache (`--cache-file`, filled by a run of
bench_related_versus.py), each drawn again with a little noise (sigma 0.01, renormalized) to
reach `--rows` without exact ties; scopes as bench/workload.py spreads them (eight agents,
a tenth shared). Queries are rows' own vectors, asked as their agent (its scope and
`shared`) for 17 (a page of 10 plus the note and its links), base and this checkout
alternating per query in one process, answers checked identical. p50/p95 wall and CPU ms.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

AGENTS = 8


def pct(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def main() -> int:
    import numpy as np

    from brain.store.base import SearchWhere
    from brain.store.memory.vectors import VectorIndex

    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--cache-file", type=Path, required=True)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    base_file = args.base / "brain/store/memory/search.py"
    spec = importlib.util.spec_from_file_location("base_memory_search", base_file)
    assert spec is not None
    assert spec.loader is not None
    base_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(base_mod)
    with sqlite3.connect(args.cache_file) as db:
        blobs = db.execute("SELECT vector FROM vectors").fetchall()
    real = np.stack([np.frombuffer(blob, dtype="<f4") for (blob,) in blobs])
    rng = np.random.default_rng(42)
    for rows in args.rows:
        drawn = real[rng.integers(0, len(real), rows)] + rng.normal(0, 0.01, (rows, real.shape[1]))
        drawn = (drawn / np.linalg.norm(drawn, axis=1, keepdims=True)).astype(np.float32)
        scopes = ["shared" if i % 10 == 0 else f"agent-{i % AGENTS}" for i in range(rows)]
        ids = [f"memory:{scopes[i]}/note-{i:06d}" for i in range(rows)]
        facts = {ids[i]: ("h", scopes[i], None) for i in range(rows)}
        sides = {"base": base_mod.VectorIndex(facts.get), "change": VectorIndex(facts.get)}
        for index in sides.values():
            index.put([(ids[i], "h", drawn[i]) for i in range(rows)])
        times: dict[str, dict[str, list[float]]] = {s: {"wall": [], "cpu": []} for s in sides}
        load_start = os.getloadavg()
        for q, row in enumerate(range(0, rows, rows // args.queries)):
            where = SearchWhere(frozenset({scopes[row], "shared"}))
            answers = {}
            for side in (("base", "change") if q % 2 == 0 else ("change", "base")):
                t0, c0 = time.perf_counter(), time.process_time()
                answers[side] = sides[side].search(drawn[row], where, 17)
                times[side]["wall"].append((time.perf_counter() - t0) * 1000)
                times[side]["cpu"].append((time.process_time() - c0) * 1000)
            assert [i for i, _ in answers["base"]] == [i for i, _ in answers["change"]], row
            for (_, a), (_, b) in zip(answers["base"], answers["change"], strict=True):
                assert abs(a - b) <= 1e-5, (row, a, b)
        print(json.dumps({
            "rows": rows, "queries": len(times["base"]["wall"]), "identical": True,
            "load_start": [round(x, 1) for x in load_start],
            "load_end": [round(x, 1) for x in os.getloadavg()],
            **{side: {k: pct(v) for k, v in parts.items()} for side, parts in times.items()},
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
