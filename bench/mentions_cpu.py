"""CPU seconds (this process and its parse helpers) of an ingest, and of `brain check --mentions`'s
seeding and sweep, or of the reference sweep: a figure the machine's load moves less than wall
time (bench/bench_mentions.py gives the wall-time shares).

    BRAIN_SEMANTIC=off python bench/mentions_cpu.py WORKSPACE plain|seeded|reference
"""

import json
import resource
import sys
from pathlib import Path

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore


def cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


root, mode = Path(sys.argv[1]), sys.argv[2]
brain = Brain(root, MemoryStore())
brain.ingester.seed_mentions = mode == "seeded"
c0 = cpu()
brain.sync()
c1 = cpu()
out: dict[str, object] = {"mode": mode, "ingest_cpu": round(c1 - c0, 2)}
if mode != "plain":
    from brain.service.mention_sweep import sweep_mentions

    n = sum(len(f) for _m, f in sweep_mentions(brain.store, brain.root, seeds=brain.ingester.mention_seeds))
    out["sweep_cpu"] = round(cpu() - c1, 2)
    out["mentions"] = n
print(json.dumps(out))
brain.close()
