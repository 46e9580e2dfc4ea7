"""The native one-scan count with mention seeding on its own: its CPU over a workload's bodies,
base against change, with far less noise than a whole ingest's share (bench/mentions_cpu.py).

    # 1. the chunks and vocabularies a seeded first sync counts, captured in this process
    python bench/seeded_count_cpu.py capture WORKSPACE CHUNKS.pickle
    # 2. the count of them by the native module found first on the path (one process, JSON)
    python bench/seeded_count_cpu.py run CHUNKS.pickle ROUNDS
    # 3. base against change: `run` in fresh processes, each importing its own build of
    #    brain_native (a folder holding the module), alternated, ROUNDS a process
    python bench/seeded_count_cpu.py ab CHUNKS.pickle BASE_DIR CHANGE_DIR PAIRS ROUNDS

`run` times, with process_time, the seeded count (`count_block_seeded`) and the plain count
(`count_block`) of every chunk, alternated within the process, and reports each one's median
over the rounds and the seeded count's extra (seeded - plain), the part issue 42 asks to cut.
It also gives a digest of the seeded answers: base and change must print the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def capture(root: Path, out: Path) -> None:
    """Sync `root` in this process (no parse helpers), seeding mentions, and keep what each
    chunk's count was asked: its rows and each row's vocabulary (by its names)."""
    from brain.index import seeded_counting
    from brain.ingest import parse_helpers
    from brain.service.brain import Brain
    from brain.store.memory.store import MemoryStore

    parse_helpers.PARALLEL_MIN = 10**9  # every chunk counted here, where it is captured
    names: dict[int, list[str]] = {}
    chunks: list[tuple[list[tuple[str, str, str]], list[int | None]]] = []
    real = seeded_counting.count_and_seed

    def recording(rows: Any, vocabularies: Any) -> Any:
        rows = list(rows)
        ids: list[int | None] = []
        for v in vocabularies:
            if v is None:
                ids.append(None)
            else:
                names.setdefault(id(v), v.names)
                ids.append(id(v))
        chunks.append((rows, ids))
        return real(rows, vocabularies)

    seeded_counting.count_and_seed = recording
    brain = Brain(root, MemoryStore())
    brain.ingester.seed_mentions = True
    brain.sync()
    brain.close()
    out.write_bytes(pickle.dumps({"names": names, "chunks": chunks}))
    rows = sum(len(r) for r, _ in chunks)
    print(json.dumps({"chunks": len(chunks), "rows": rows, "vocabularies": len(names)}))


def run(path: Path, rounds: int) -> dict[str, Any]:
    import importlib

    brain_native: Any = importlib.import_module("brain_native")  # the build on the path first

    from brain.index.postings import split_slow
    from brain.ingest.parse_helpers import CHUNK
    from brain.parse.mention_seeds import Vocabulary

    data = pickle.loads(path.read_bytes())
    vocabularies = {k: Vocabulary(v) for k, v in data["names"].items()}
    tables = {k: v.index.native_table() for k, v in vocabularies.items()}
    work = []
    for rows, ids in data["chunks"]:
        # Cut as the parse helpers cut a sync (brain.ingest.parse_helpers.CHUNK notes a chunk):
        # a chunk's words are numbered afresh, so its first words are looked up afresh.
        for at in range(0, len(rows), CHUNK):
            texts = [t for row in rows[at:at + CHUNK] for t in row]
            seeding = [None if i is None else (tables[i], vocabularies[i].blank_links)
                       for i in ids[at:at + CHUNK]]
            work.append((texts, seeding))
    seeded_times, plain_times = [], []
    digest = ""
    for r in range(rounds):
        # Alternated, their order flipped each round: drift hits both alike.
        for which in ((0, 1) if r % 2 == 0 else (1, 0)):
            c0 = time.process_time()
            if which == 0:
                answers = [brain_native.count_block_seeded(t, split_slow, s) for t, s in work]
                seeded_times.append(time.process_time() - c0)
                if not digest:
                    digest = hashlib.sha256(repr(answers).encode()).hexdigest()[:16]
            else:
                for t, _s in work:
                    brain_native.count_block(t, split_slow)
                plain_times.append(time.process_time() - c0)
    seeded, plain = statistics.median(seeded_times), statistics.median(plain_times)
    return {"module": os.path.dirname(brain_native.__file__), "seeded_cpu": round(seeded, 4),
            "plain_cpu": round(plain, 4), "extra_cpu": round(seeded - plain, 4), "digest": digest,
            "load": os.getloadavg()[0]}


def ab(path: Path, base: Path, change: Path, pairs: int, rounds: int) -> None:
    results: dict[str, list[dict[str, Any]]] = {"base": [], "change": []}
    for p in range(pairs):
        order = [("base", base), ("change", change)] if p % 2 == 0 else [("change", change), ("base", base)]
        for label, folder in order:
            argv = [__file__, "run", str(path), str(rounds)]
            boot = (f"import sys; sys.path.insert(0, {str(folder)!r}); sys.argv = {argv!r}; "
                    f"exec(open({__file__!r}).read())")
            out = subprocess.run([sys.executable, "-c", boot], capture_output=True, text=True, check=True)
            results[label].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(label, out.stdout.strip(), flush=True)
    summary = {}
    for label, runs in results.items():
        summary[label] = {k: round(statistics.median(r[k] for r in runs), 4)
                          for k in ("seeded_cpu", "plain_cpu", "extra_cpu")}
        summary[label]["digests"] = sorted({r["digest"] for r in runs})
        summary[label]["load"] = [round(r["load"], 1) for r in runs]
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "capture":
        capture(Path(sys.argv[2]), Path(sys.argv[3]))
    elif command == "run":
        print(json.dumps(run(Path(sys.argv[2]), int(sys.argv[3]))))
    elif command == "ab":
        ab(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        raise SystemExit(__doc__)
