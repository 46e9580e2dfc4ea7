"""The whole-workspace summary (graphClusters) after an edit: kept from the write, not made again.

    .venv/bin/python bench/bench_clusters_kept.py [--sizes 10000,100000] [--profiles default,real]

For each workload (bench/workload.py), ingests it into the embedded store, makes the summary
once (the full read a server makes ahead, `first_build`), then makes `--edits` edits as an editor
does (`Brain.set_overlay`: the workspace's files are not touched), alternating a note whose links
change (a link added to a hub, one broken) and a new note linking three others, and times the
next summary after each (wall and CPU of this process, p50/p95), then checks the last one
against a fresh full count. Writes bench/results/clusters_kept.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from workload import generate  # noqa: E402

from brain.service.brain import Brain  # noqa: E402
from brain.service.cluster_counts import ClusterKeeper  # noqa: E402
from brain.service.clusters import summarize  # noqa: E402
from brain.store.base import MemoryFilter  # noqa: E402
from brain.store.memory.store import MemoryStore  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1)


def one(root: Path, edits: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    brain = Brain(root, MemoryStore())
    brain.sync()
    ingest = time.perf_counter() - t0
    keeper = ClusterKeeper(brain.store)
    brain.subscribe(lambda change: keeper.changed(change.id))
    w0, c0 = time.perf_counter(), time.process_time()
    keeper.summary()
    first = ((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000)
    notes = brain.store.list_memories(MemoryFilter(), bodies=False)
    rng = random.Random(7)
    walls, cpus, syncs = [], [], []
    for k in range(edits):
        victim = rng.choice(notes)
        others = [rng.choice(notes).name for _ in range(3)]
        if k % 2:
            rel, text = victim.path, f"---\ndescription: edited\n---\n[[{others[0]}]] [[no-such-{k}]]\n"
        else:
            folder = victim.path.rsplit("/", 1)[0]
            rel, text = f"{folder}/bench-new-{k}.md", "---\ndescription: new\n---\n" + " ".join(
                f"[[{o}]]" for o in others) + "\n"
        s0 = time.perf_counter()
        brain.set_overlay(rel, text)
        syncs.append((time.perf_counter() - s0) * 1000)
        w0, c0 = time.perf_counter(), time.process_time()
        kept = keeper.summary()
        walls.append((time.perf_counter() - w0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
    all_notes = brain.store.list_memories(MemoryFilter(), bodies=False)
    fresh = summarize(all_notes, brain.store.links_from([n.id for n in all_notes]))
    assert kept == fresh, "the kept summary differs from a fresh count"
    brain.close()
    return {
        "notes": len(all_notes), "ingest_s": round(ingest, 1), "builds": keeper.builds,
        "first_build_ms": {"wall": round(first[0]), "cpu": round(first[1])},
        "after_edit_ms": {"p50": pct(walls, 0.5), "p95": pct(walls, 0.95), "max": round(max(walls), 1),
                          "cpu_p50": pct(cpus, 0.5), "cpu_p95": pct(cpus, 0.95)},
        "edit_sync_ms_p50": round(statistics.median(syncs), 1),
        "clusters": len(kept.clusters), "edges": len(kept.edges),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--profiles", default="default,real")
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/brain-bench"))
    args = parser.parse_args()
    report: dict[str, Any] = {"cpus": os.cpu_count()}
    for profile in args.profiles.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            name = f"workload-{size}" + ("" if profile == "default" else f"-{profile}")
            root = args.cache / name
            if not (root / ".workload.json").exists():
                generate(root, size, profile=profile)
            before = [round(x, 2) for x in os.getloadavg()]
            report[name] = {**one(root, args.edits), "load_before": before,
                            "load_after": [round(x, 2) for x in os.getloadavg()]}
            print(json.dumps({name: report[name]}), flush=True)
    out = HERE / "results" / "clusters_kept.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
