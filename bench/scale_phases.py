"""Where a cold first sync's memory goes, phase by phase (issue 43, goal 5).

    PYTHONPATH=$PWD .venv/bin/python bench/scale_phases.py /tmp/brain-bench/workload-100000

`bench_scale.py` reports a run's peak RSS only; at 1,000,000 notes that peak moved by a
gigabyte between two versions of the code and nothing said in which phase. This runs one
cold sync and the snapshot's write (`Brain(cache=True)`: set BRAIN_SNAPSHOT_DIR to an empty
folder) with the RSS sampled every 20 ms from /proc/self/status, and prints, as JSON, the
peak of each phase (the parts, the last part, the one count of memory health where the store
has `resume_health`, `stats`, the snapshot's write) with each phase's start (wall seconds,
CPU seconds, RSS), and the link memo's tables as the last part drops them.
"""

from __future__ import annotations

import json
import resource
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brain.ingest.parts as parts
import brain.store.linking as linking
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore

STARTED = time.perf_counter()
phase = ["start"]
peaks: dict[str, float] = {}
marks: list[tuple[float, float, str, float]] = []
memo: list[dict[str, int]] = []


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mark(name: str) -> None:
    marks.append((round(time.perf_counter() - STARTED, 1), round(time.process_time(), 1), name,
                  round(rss_mb())))
    phase[0] = name


def sample() -> None:
    while True:
        now, at = rss_mb(), phase[0]
        if now > peaks.get(at, 0.0):
            peaks[at] = now
        time.sleep(0.02)


def timed(owner: Any, name: str, label: str) -> None:
    method: Callable[..., Any] = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        mark(label)
        try:
            return method(*args, **kwargs)
        finally:
            mark("after " + label)

    setattr(owner, name, wrapped)


def main() -> None:
    root = Path(sys.argv[1])
    threading.Thread(target=sample, daemon=True).start()
    write_part = parts.PartWriter._write_part

    def first_part(self: parts.PartWriter, notes: Any) -> None:
        if phase[0] == "sync":
            mark("parts")
        write_part(self, notes)

    parts.PartWriter._write_part = first_part  # type: ignore[method-assign]
    timed(parts.PartWriter, "finish", "last part")
    if hasattr(MemoryStore, "resume_health"):
        timed(MemoryStore, "resume_health", "health count")
    timed(Brain, "stats", "stats")
    timed(Brain, "close", "snapshot write")
    clear = linking.ResolutionMemo.clear

    def cleared(self: linking.ResolutionMemo) -> None:
        sizes = {k: len(v) for k, v in vars(self).items() if isinstance(v, dict)}
        sizes["near_answers"] = sum(len(d) for d in self.near.values())
        memo.append(sizes)
        clear(self)

    linking.ResolutionMemo.clear = cleared  # type: ignore[method-assign]
    mark("open")
    brain = Brain(root, cache=True)
    mark("sync")
    brain.sync()
    brain.stats()
    brain.close()
    mark("end")
    time.sleep(0.05)
    own, helpers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "marks": marks, "peak_mb": {k: round(v) for k, v in peaks.items()},
        "high_water_mb": own.ru_maxrss // 1024, "cpu_s": round(own.ru_utime + own.ru_stime, 1),
        "helper_cpu_s": round(helpers.ru_utime + helpers.ru_stime, 1), "memo": memo[-1:],
    }, indent=1))


if __name__ == "__main__":
    main()
