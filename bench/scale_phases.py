"""Where a cold first sync's CPU and memory go, phase by phase (issue 43, goal 5).

    PYTHONPATH=$PWD .venv/bin/python bench/scale_phases.py /tmp/brain-bench/workload-100000
    .venv/bin/python bench/bench_scale.py --sizes 1000000 --phases   # the same, inside bench_scale

`bench_scale.py` alone reports a run's peak RSS only; at 1,000,000 notes that peak moved by a
gigabyte between two versions of the code and nothing said in which phase. `install` wraps the
steps of a cold sync and of the snapshot's write, samples the RSS every 20 ms from
/proc/self/status, and `report` gives, per phase, the ingesting process's CPU seconds, wall
seconds, peak RSS and RSS when it was last left. The phases: `open` (the Brain), `walk` (the
walk's stats and names, the helpers' start), `link plan` (resolving each part's links:
`brain.ingest.parts.plan`), `store write` (each part's commit: the tables, the keyword index,
and on main the health counters part by part), `health count` (the one count at a first
sync's end, where the store has `resume_health`), `parse` (the rest of the sync: reading the
files, sending them to the parse helpers and loading their notes; the helpers' own CPU is
`helper_cpu_s`), `stats`, `snapshot write`. Works on any checkout (a phase it lacks is
absent), so main and a branch are measured by the same wrappers.
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

STARTED = time.perf_counter()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Phases:
    """The current phase (a stack: a wrapped step inside another is its own phase) and what
    each phase cost so far."""

    def __init__(self) -> None:
        self.stack = ["open"]
        self.since = (time.perf_counter(), time.process_time())
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.peak: dict[str, float] = {}
        self.left: dict[str, float] = {}
        self.order: list[str] = ["open"]
        self.memo: list[dict[str, int]] = []

    def _charge(self) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        at = self.stack[-1]
        self.wall[at] = self.wall.get(at, 0.0) + wall - self.since[0]
        self.cpu[at] = self.cpu.get(at, 0.0) + cpu - self.since[1]
        self.since = (wall, cpu)

    def enter(self, name: str) -> None:
        self._charge()
        self.stack.append(name)
        if name not in self.order:
            self.order.append(name)

    def leave(self) -> None:
        self._charge()
        self.left[self.stack.pop()] = rss_mb()

    def switch(self, name: str) -> None:
        """The phase outside every wrapped step (`parse` once the sync has begun)."""
        self._charge()
        self.stack[0] = name
        if name not in self.order:
            self.order.append(name)

    def sample(self) -> None:
        while True:
            now, at = rss_mb(), self.stack[-1]
            if now > self.peak.get(at, 0.0):
                self.peak[at] = now
            time.sleep(0.02)

    def wrap(self, owner: Any, name: str, label: str) -> None:
        method: Callable[..., Any] | None = getattr(owner, name, None)
        if method is None:
            return  # this checkout lacks the step

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.enter(label)
            try:
                return method(*args, **kwargs)
            finally:
                self.leave()

        setattr(owner, name, wrapped)

    def report(self) -> dict[str, Any]:
        self._charge()
        own = resource.getrusage(resource.RUSAGE_SELF)
        helpers = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {
            "phases": [{
                "phase": p, "cpu_s": round(self.cpu.get(p, 0.0), 1),
                "wall_s": round(self.wall.get(p, 0.0), 1),
                "peak_mb": round(self.peak.get(p, 0.0)), "left_mb": round(self.left.get(p, 0.0)),
            } for p in self.order],
            "high_water_mb": own.ru_maxrss // 1024, "cpu_s": round(own.ru_utime + own.ru_stime, 1),
            "helper_cpu_s": round(helpers.ru_utime + helpers.ru_stime, 1), "memo": self.memo[-1:],
        }


def install() -> Phases:
    """Wrap a cold sync's steps (import before the Brain is made) and start the sampler."""
    import brain.ingest.ingester as ingester
    import brain.ingest.parts as parts
    import brain.store.linking as linking
    from brain.service.brain import Brain
    from brain.store.memory.store import MemoryStore

    phases = Phases()
    threading.Thread(target=phases.sample, daemon=True).start()
    phases.wrap(ingester, "walk_starting", "walk")
    phases.wrap(parts, "plan", "link plan")
    phases.wrap(parts.PartWriter, "commit", "store write")
    phases.wrap(MemoryStore, "resume_health", "health count")
    phases.wrap(Brain, "stats", "stats")
    phases.wrap(Brain, "close", "snapshot write")
    sync = Brain.sync

    def synced(self: Any, *args: Any, **kwargs: Any) -> Any:
        phases.switch("parse")
        try:
            return sync(self, *args, **kwargs)
        finally:
            phases.switch("after sync")

    Brain.sync = synced  # type: ignore[method-assign]
    memo = getattr(linking, "ResolutionMemo", None)
    if memo is not None and hasattr(memo, "clear"):
        clear = memo.clear

        def cleared(self: Any) -> None:
            sizes = {k: len(v) for k, v in vars(self).items() if isinstance(v, dict)}
            near = getattr(self, "near", None)
            if isinstance(near, dict):
                sizes["near_answers"] = sum(len(d) for d in near.values())
            phases.memo.append(sizes)
            clear(self)

        memo.clear = cleared
    return phases


def main() -> None:
    """One cold sync and the snapshot's write (`Brain(cache=True)`: set BRAIN_SNAPSHOT_DIR to
    an empty folder), the phases printed as JSON."""
    root = Path(sys.argv[1])
    phases = install()
    from brain.service.brain import Brain

    brain = Brain(root, cache=True)
    brain.sync()
    brain.stats()
    brain.close()
    time.sleep(0.05)
    print(json.dumps(phases.report(), indent=1))


if __name__ == "__main__":
    main()
