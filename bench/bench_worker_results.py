"""How the parse helpers should hand their results back: pickle against flat rows.

    .venv/bin/python bench/bench_worker_results.py [--notes 2000] [--runs 5]

A helper of a big ingest parses thousands of notes and sends the NoteChanges back over a pipe;
what it costs the main process (decoding) is what the ingest waits for. Compared: pickle of
the objects (what brain does), and brain/snapshot/rows.py's field rows packed with msgpack or pickle.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgpack  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import generate  # noqa: E402

from brain.ingest.memory_files import build_memory  # noqa: E402
from brain.snapshot import rows  # noqa: E402
from brain.store.linking import NoteChange  # noqa: E402
from brain.workspace import classify  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.notes)
        changes = []
        for path in sorted((Path(tmp) / "memory").rglob("*.md")):
            rel = path.relative_to(tmp).as_posix()
            role = classify(rel)
            changes.append(build_memory(rel, role.scope, role.name, path.read_bytes(), 0.0))
    codec = rows.codec(list[NoteChange])
    assert codec is not None
    to_rows, from_rows = codec
    ways = {
        "pickle objects": (lambda: pickle.dumps(changes, protocol=5), pickle.loads),
        "rows + msgpack": (
            lambda: msgpack.packb(to_rows(changes), use_bin_type=True),
            lambda b: from_rows(msgpack.unpackb(b, raw=False, use_list=True)),
        ),
        "rows + pickle": (
            lambda: pickle.dumps(to_rows(changes), protocol=5),
            lambda b: from_rows(pickle.loads(b)),
        ),
    }
    one, five, fifteen = os.getloadavg()
    print(f"{len(changes)} notes; load average {one:.2f} {five:.2f} {fifteen:.2f}")
    for name, (dump, load) in ways.items():
        dumps, loads, size = [], [], 0
        for _ in range(args.runs):
            t0 = time.perf_counter()
            blob = dump()
            t1 = time.perf_counter()
            back = load(blob)
            t2 = time.perf_counter()
            dumps.append(t1 - t0)
            loads.append(t2 - t1)
            size = len(blob)
        assert back == changes
        print(f"{name:>16}: encode {statistics.median(dumps) * 1000:7.1f} ms, "
              f"decode {statistics.median(loads) * 1000:7.1f} ms, {size / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()
