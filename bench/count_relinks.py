"""How many links a first sync resolves more than once (issue 15: linear CPU of a first sync).

    .venv/bin/python bench/count_relinks.py /tmp/brain-bench/workload-10000

A first sync is written in parts (brain/ingest/parts.py). Each stored link is resolved once
when its note is written; every further resolution is a re-resolution (`linking.plan`'s
relinks: a stored link asked again because a name it asks for appeared). Counts them by
wrapping `linking._stored` and `plan` in this process (the parse helpers do not resolve), and
prints one JSON line: links stored, resolutions, re-resolutions, relinks that changed a link,
links fetched by `links_with_keys`, the CPU seconds of the sync and the load average.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from brain.ingest import ingester as ingest
from brain.ingest import parts as ingest_parts
from brain.service.brain import Brain
from brain.store import linking
from brain.store.memory.store import MemoryStore

counts = {"resolved": 0, "written": 0, "changed": 0, "fetched": 0, "plans": 0}
_stored, _plan, _fetch = linking._stored, linking.plan, MemoryStore.links_with_keys


def stored(*args: Any) -> Any:
    counts["resolved"] += 1
    return _stored(*args)


def plan(*args: Any, **kwargs: Any) -> Any:
    batch = _plan(*args, **kwargs)
    counts["plans"] += 1
    counts["written"] += sum(len(links) for links in batch.links.values())
    counts["changed"] += len(batch.relinks)
    return batch


def fetch(self: MemoryStore, keys: Any) -> Any:
    found = _fetch(self, keys)
    counts["fetched"] += len(found)
    return found


def main() -> None:
    root = Path(sys.argv[1])
    linking._stored = stored  # type: ignore[assignment]
    for module in (ingest, ingest_parts):  # both plan a first sync's parts (old and new code)
        module.__dict__["plan"] = plan
    MemoryStore.links_with_keys = fetch  # type: ignore[method-assign]
    brain = Brain(root, MemoryStore())
    cpu, wall = time.process_time(), time.perf_counter()
    brain.sync()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    again = counts["resolved"] - counts["written"]
    print(json.dumps({
        "workload": root.name, **counts, "reresolved": again, "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2), "load": os.getloadavg()[0],
    }))


if __name__ == "__main__":
    main()
