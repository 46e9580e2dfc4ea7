"""The mentions' share of an ingest as the sum of its parts: steadier than bench/bench_mentions.py's
difference of two whole ingests, whose plain ingests alone varied by 15-40% run to run on an
idle machine (stop 56).

    BRAIN_SEMANTIC=off python bench/mention_share_parts.py --root WS [WS ...] [--rounds 7]

Parsing in-process (BRAIN_INGEST_WORKERS=1), for each workspace (one a shape): one seeded sync
that captures what the mention parts are given, then, alternating round by round with a plain
sync of the same files (the denominator), the CPU of:

- `vocabulary`: the walk's names by scope and every scope's built vocabulary
  (brain/ingest/mention_seeds.py walk_vocabulary, ScopedVocabulary.for_scope);
- `tables`: the Rust twin's copy of each scope's names (NameIndex.native_table);
- `count_extra`: the seeded keyword count less the plain one on the same chunks
  (brain/index/seeded_counting.py count_and_seed against count_block);
- `seed_of`: each note's seed from the count's candidates (brain/parse/mention_seeds.py);
- `sweep`: the whole workspace's mentions from the seeds (brain/service/mention_sweep.py).

The parts a sync runs (all but the sweep) are timed as it runs them: with no cyclic
collection (brain/gcpause.py); the sweep as `brain check --mentions` runs it. Each plain sync
runs in a new process, as a user's `brain ingest` does: in one process, each sync's
`gc.freeze` kept the last one's cyclic garbage for good (53,000 objects, 24 MB a round at
10,000 notes; `gc.collect` cannot free frozen objects), so each round ran in a bigger heap
than the last, one no user's ingest has, and its CPU swung 3.3-5.7 s over one run. The
denominator is the sync's own CPU in that process (`plain_sync`: not the interpreter's start
and imports, reported beside it as `plain_process`, from the process's rusage); the spread of
its rounds is reported.

Medians of the rounds; the share is their sum over the plain sync's median CPU. A parse
helper process (the default on more than one core) also receives the vocabulary pickled and
builds its own tables: `helper_extra` is that per helper, not in the sum.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

os.environ.setdefault("BRAIN_SEMANTIC", "off")
os.environ["BRAIN_INGEST_WORKERS"] = "1"

import brain.index.seeded_counting as seeded_counting
import brain.ingest.memory_files as memory_files
from brain.gcpause import gc_paused
from brain.index.counting import count_block
from brain.ingest.mention_seeds import walk_vocabulary
from brain.parse.mention_seeds import ScopedVocabulary, Vocabulary, seed_of
from brain.service.brain import Brain
from brain.service.mention_sweep import sweep_mentions
from brain.store.memory.store import MemoryStore


def cpu(part: Callable[[], object], paused: bool) -> float:
    """The part's CPU; `paused`: with no cyclic collection, as a sync runs it."""
    c0 = time.process_time()
    if paused:
        with gc_paused(settle=False):
            part()
    else:
        part()
    return time.process_time() - c0


def plain_sync(root: Path) -> tuple[float, float]:
    """A plain sync in a new process: its CPU, and the whole process's (rusage)."""
    command = [sys.executable, __file__, "--plain", "--root", str(root)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert child.stdout is not None
    out = child.stdout.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"plain sync of {root}: exit {child.returncode}")
    return float(json.loads(out)["sync_cpu_s"]), usage.ru_utime + usage.ru_stime


def plain_child(root: Path) -> None:
    """The child's side of `plain_sync`: one sync into a new in-process store."""
    c0 = time.process_time()
    fresh = Brain(root, MemoryStore())
    fresh.sync()
    fresh.close()
    print(json.dumps({"sync_cpu_s": time.process_time() - c0}), flush=True)


def measure(root: Path, rounds: int) -> dict[str, Any]:
    chunks: list[tuple[list[tuple[str, str, str]], list[Vocabulary | None]]] = []
    seeds_in: list[tuple[str, int, Vocabulary, list[Any] | None]] = []
    count_and_seed = seeded_counting.count_and_seed

    def capture_count(rows: Sequence[tuple[str, str, str]], vocabularies: Sequence[Vocabulary | None]) -> Any:
        chunks.append((list(rows), list(vocabularies)))
        return count_and_seed(rows, vocabularies)

    def capture_seed(body: str, line: int, words: Vocabulary, found: list[Any] | None = None) -> Any:
        seeds_in.append((body, line, words, None if found is None else list(found)))
        return seed_of(body, line, words, found)

    brain = Brain(root, MemoryStore())
    brain.ingester.seed_mentions = True
    # Patched where the ingest looks them up, for this one sync.
    with (mock.patch.object(seeded_counting, "count_and_seed", capture_count),
          mock.patch.object(memory_files, "seed_of", capture_seed)):
        brain.sync()
    seeds = brain.ingester.mention_seeds
    assert seeds is not None
    rels = list(brain.ingester.files)
    classify = brain.ingester.layout.classify
    scopes = list(seeds.vocabulary.names)

    def vocabulary() -> ScopedVocabulary:
        built = walk_vocabulary(rels, classify)
        for scope in scopes:
            built.for_scope(scope)
        return built

    def tables() -> None:
        for scope in scopes:
            index = seeds.vocabulary.for_scope(scope).index
            index._native = None  # built again, as a new process does
            index.native_table()

    def count_seeded() -> None:
        for rows, vocabularies in chunks:
            count_and_seed(rows, vocabularies)

    def count_plain() -> None:
        for rows, _vocabularies in chunks:
            count_block(rows)

    def seeding() -> None:
        for body, line, words, found in seeds_in:
            seed_of(body, line, words, None if found is None else list(found))

    mentions: list[int] = []

    def sweep() -> None:
        mentions.append(sum(len(found) for _m, found in sweep_mentions(brain.store, root, seeds=seeds)))

    # What a parse helper adds: the vocabulary read back from its pickle, and its tables.
    sent = pickle.dumps(seeds.vocabulary)

    def helper_extra() -> None:
        for scoped in pickle.loads(sent)._scopes.values():
            scoped.index.native_table()

    steps: dict[str, Callable[[], object]] = {
        "vocabulary": vocabulary, "tables": tables, "count_seeded": count_seeded,
        "count_plain": count_plain, "seed_of": seeding, "sweep": sweep, "helper_extra": helper_extra,
    }
    parts: dict[str, list[float]] = {name: [] for name in ("plain_sync", "plain_process", *steps)}
    for _ in range(rounds):
        synced, whole = plain_sync(root)
        parts["plain_sync"].append(synced)
        parts["plain_process"].append(whole)
        for name, step in steps.items():
            parts[name].append(cpu(step, paused=name != "sweep"))
    med = {k: statistics.median(v) for k, v in parts.items()}
    count_extra = med["count_seeded"] - med["count_plain"]
    synced_runs = parts["plain_sync"]
    summed = med["vocabulary"] + med["tables"] + count_extra + med["seed_of"] + med["sweep"]
    brain.close()
    return {
        "root": root.name, "notes": len(seeds_in), "mentions": sorted(set(mentions)), "rounds": rounds,
        **{f"{k}_cpu_s": round(v, 4) for k, v in med.items()},
        "count_extra_cpu_s": round(count_extra, 4),
        "mentions_cpu_s": round(summed, 4), "share": round(summed / med["plain_sync"], 4),
        "plain_sync_runs_s": [round(x, 3) for x in parts["plain_sync"]],
        "plain_sync_spread": round((max(synced_runs) - min(synced_runs)) / med["plain_sync"], 4),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, nargs="+", required=True, help="workspaces (one a shape)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)  # plain_sync's child
    args = parser.parse_args()
    if args.plain:
        plain_child(args.root[0])
        return
    for root in args.root:
        print(json.dumps(measure(root, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
