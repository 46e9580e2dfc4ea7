"""The maintenance report a dashboard asks for, read again only when the graph has changed.

The report is the deterministic pass over every note of its scope (brain/maintain/run.py
`find`): at 10,000 notes it reads every body back, compares the near-duplicate candidates and
checks every link. Profiled at 10,000 notes on 2 shared cores (issue 43): near-duplicate pairs
47% of it, reading the bodies 26%, the links 13%; seconds of CPU a request, while the
dashboard asks on every visit and the answer changes only when the graph does. So the last
report of each scope is kept with the number of batches the brain had applied when the pass
began (`Brain.changes`: a sync's, an editor's, a replica's from the writer's log), the day
(expired daily notes are counted by the date) and the settings: any batch since, another day
or other settings, and the pass runs again. A batch applied while a pass runs leaves its
report marked with the count before it, so the next request runs the pass again.

One pass at a time per brain: a second request for the same report waits for the first
rather than running its own (ten dashboards would otherwise run ten passes at once).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from brain.config.operator import MaintainConfig
from brain.maintain.findings import MaintenanceReport
from brain.maintain.run import find
from brain.registry import OnePer
from brain.service.brain import Brain

MAX_KEPT = 64  # reports kept per brain (one per scope asked for; past it, all are dropped)

Key = tuple[str | None, int, date, MaintainConfig]


@dataclass
class _Kept:
    lock: threading.Lock = field(default_factory=threading.Lock)
    reports: dict[Key, MaintenanceReport] = field(default_factory=dict)


_KEPT: OnePer[Brain, _Kept] = OnePer(lambda brain: _Kept())


def kept_report(brain: Brain, scope: str | None, config: MaintainConfig) -> MaintenanceReport:
    """`find(brain, scope)`, the same report object until the graph, the day or `config` changes.
    Callers only read it (an applying run calls `find` itself)."""
    kept = _KEPT(brain)
    with kept.lock:
        today = datetime.now(UTC).date()
        key: Key = (scope, brain.changes, today, config)  # the count before the pass reads anything
        found = kept.reports.get(key)
        if found is not None:
            return found
        report = find(brain, scope, config=config, today=today)
        if len(kept.reports) >= MAX_KEPT:
            kept.reports.clear()
        # Reports of older counts can never be asked for again: only the newest is kept.
        kept.reports = {k: r for k, r in kept.reports.items() if k[1:] == key[1:]}
        kept.reports[key] = report
        return report
