"""Fill brain's vector cache for a benchmark workspace that this machine cannot embed whole.

    .venv/bin/python bench/fill_vector_cache.py --cache-dir DIR --real 3000 ROOT [ROOT ...]

MiniLM embeds ~8 notes a second per process on this machine's two loaded cores: 100,000
notes would take hours. Ingest looks every note's vector up in the cache (BRAIN_CACHE_DIR,
`vectors-<model>.sqlite`, keyed by the sha256 of exactly the text embedded,
brain.search.embedding.embedding_text) and embeds only the misses. So this puts a vector
under every note's key before the benchmark, and the benchmark's ingest, the store's vector
index and the related queries then run as in production, embedding nothing.

What is real and what is not:
- the keys: the texts are collected by brain's own indexer (EmbeddingIndexer's catch-up over
  a MemoryStore holding the workspace), so they are the keys a real ingest asks for;
- vectors already in the cache stay (real MiniLM vectors of those very notes);
- `--real` notes in all (those already there count) get their own real MiniLM vector
  (brain's encoder, the same model and window as the cache's file name says);
- every other note gets a SYNTHETIC vector: the real vector of a sampled note, chosen
  deterministically among the real notes whose name starts with the same word where there
  are any (notes named alike stay near each other, as their real vectors would), plus
  Gaussian noise (sigma `--sigma`, default 0.01, as bench/bench_vector_rows.py), renormalized.
The counts of each kind are printed and written next to the cache (`<file>.filled.json`).
The cache folder should be the benchmark's own: synthetic vectors must never reach a real one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from brain.store.base import GraphStore, SearchIndex

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def store_texts(store: GraphStore) -> list[str]:
    """The texts brain's indexer embeds for every memory of `store` (its catch-up's listing,
    bodies read back as it reads them, brain.search.embedding.embedding_text)."""
    return [text for _, _, text in store_notes(store)]


def store_notes(store: GraphStore) -> list[tuple[str, str, str]]:
    """(id, content hash, embedded text) of every memory of `store`."""
    from brain.search.embedding import embedding_text
    from brain.search.indexer import EmbeddingIndexer
    from brain.store.base import MemoryFilter

    reader = EmbeddingIndexer(store, cast("SearchIndex", store), None)
    memories = store.list_memories(MemoryFilter())
    out: list[tuple[str, str, str]] = []
    for start in range(0, len(memories), 1000):
        batch = reader._with_bodies(memories[start : start + 1000])
        out += [(m.id, m.hash, embedding_text(m)) for m in batch]
    return out


def put_from_cache(
    store: GraphStore, notes: list[tuple[str, str, str]], cache_dir: Path, rows: int
) -> dict[str, object]:
    """Put every memory's cached vector into `store` through its own `put_vectors`, `rows` a
    call (the indexer's catch-up puts 32 a call: 3,125 Neo4j transactions at 100,000 notes).
    `notes`: `store_notes(store)`. Returns the seconds of the first calls and of all of them."""
    import time

    from brain.search.embedding import VectorCache, model_name, text_key

    cache = VectorCache(model_name(), cache_dir)
    found = cache.get_many(text_key(t) for _, _, t in notes)
    cache.close()
    index = cast("SearchIndex", store)
    times: list[float] = []
    started = time.perf_counter()
    for start in range(0, len(notes), rows):
        chunk = notes[start : start + rows]
        t0 = time.perf_counter()
        index.put_vectors([(i, h, found[text_key(t)]) for i, h, t in chunk])
        times.append(time.perf_counter() - t0)
    return {"put_rows_per_call": rows, "put_calls": len(times),
            "put_s": round(time.perf_counter() - started, 1),
            "put_first_calls_s": [round(t, 2) for t in times[:5]]}


def note_texts(root: Path) -> list[str]:
    """The texts for every note of the workspace at `root` (ingested into a MemoryStore)."""
    from brain.service.brain import Brain
    from brain.store.memory.store import MemoryStore

    store = MemoryStore()
    brain = Brain(root, store)
    brain.sync()
    try:
        return store_texts(store)
    finally:
        brain.close()


def _pick(key: str, n: int) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little") % n


def _first_word(text: str) -> str:
    return text.split(" ", 1)[0].split(".", 1)[0].lower()


def fill(roots: list[Path], cache_dir: Path, real: int, sigma: float) -> dict[str, object]:
    """Fill the cache for the workspaces at `roots` (each ingested here first)."""
    texts = [text for root in roots for text in note_texts(root)]
    return {"workspaces": [str(r) for r in roots], **fill_texts(texts, cache_dir, real, sigma)}


def fill_texts(all_texts: list[str], cache_dir: Path, real: int, sigma: float) -> dict[str, object]:
    """A vector in the cache under every text's key: real for `real` texts, else synthetic."""
    import numpy as np

    from brain.search.embedding import MiniLMEncoder, VectorCache, model_name, text_key

    model = model_name()
    texts = {text_key(t): t for t in all_texts}
    cache = VectorCache(model, cache_dir)
    assert cache.path is not None, "the cache folder is not usable"
    # The keys a fill made up, kept beside the vectors (brain reads only `vectors`): a
    # second fill neither counts them as real nor draws from them.
    marks = sqlite3.connect(cache.path, isolation_level=None)
    marks.execute("CREATE TABLE IF NOT EXISTS synthetic (key TEXT PRIMARY KEY)")
    made_up = {k for (k,) in marks.execute("SELECT key FROM synthetic")}
    cached = cache.get_arrays(texts)
    known = {k: v for k, v in cached.items() if k not in made_up}
    already = len(known)
    todo = [k for k in texts if k not in cached]
    # The notes to embed for real: spread over the workspace, deterministic.
    todo.sort(key=lambda k: _pick(k, 1 << 62))
    encode = todo[: max(0, real - already)]
    started = time.perf_counter()
    if encode:
        encoder = MiniLMEncoder()
        assert encoder.name == model, (encoder.name, model)
        for start in range(0, len(encode), 64):
            chunk = encode[start : start + 64]
            real_rows = list(zip(chunk, encoder.encode_bytes([texts[k] for k in chunk]), strict=True))
            cache.put_arrays(real_rows)
            known.update(real_rows)
    embed_s = time.perf_counter() - started
    sample = sorted(known)  # every real vector of these workspaces' notes
    groups: dict[str, list[str]] = defaultdict(list)
    for key in sample:
        groups[_first_word(texts[key])].append(key)
    rng = np.random.default_rng(42)
    synthetic = [k for k in todo if k not in known]
    rows: list[tuple[str, bytes]] = []
    for key in synthetic:
        pool = groups.get(_first_word(texts[key])) or sample
        base = np.frombuffer(known[pool[_pick(key, len(pool))]], dtype="<f4").astype(np.float64)
        drawn = base + rng.normal(0.0, sigma, base.shape)
        rows.append((key, (drawn / np.linalg.norm(drawn)).astype("<f4").tobytes()))
    cache.close()
    # One transaction (the cache's own puts commit a row at a time: ~300 rows/s here).
    with marks:
        marks.execute("BEGIN")
        marks.executemany("INSERT OR IGNORE INTO synthetic VALUES (?)", [(k,) for k in synthetic])
        marks.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
    marks.close()
    report: dict[str, object] = {
        "notes": len(texts), "model": model,
        "real_already_cached": already, "real_embedded_now": len(encode),
        "embed_s": round(embed_s, 1), "synthetic_now": len(synthetic), "sigma": sigma,
        "synthetic_before": len(cached) - already,
        "groups_with_real_vectors": len(groups),
    }
    Path(f"{cache.path}.filled.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def main() -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("roots", type=Path, nargs="+")
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--real", type=int, default=3000, help="notes with their own real vector, at least")
    parser.add_argument("--sigma", type=float, default=0.01)
    args = parser.parse_args()
    print(json.dumps(fill(args.roots, args.cache_dir, args.real, args.sigma)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
