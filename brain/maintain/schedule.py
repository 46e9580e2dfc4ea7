"""Scheduled maintenance in `brain serve` (seeds/003 "Idle maintain"): off unless asked for.

With `[maintain] enabled = true` in the operator config (or BRAIN_MAINTAIN_ENABLED=1), the
deterministic pass runs with `--apply` semantics once a day during the local hour
`daily_local_hour` (default 2), capped at `max_changes_per_run`. Each run's changes are
memory-tool writes (history, via `maintain`) and the run itself is one more history record
with its report (command `maintain`), which is also how a restart within the hour knows the day's run is done.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta

from brain.config.operator import MaintainConfig
from brain.maintain.findings import MaintenanceReport
from brain.maintain.run import maintain, record_run
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.service import MemoryService

log = logging.getLogger("brain.maintain")
Clock = Callable[[], datetime]
CHECK_SECONDS = 60.0


def local_now() -> datetime:
    return datetime.now().astimezone()


def next_run(now: datetime, hour: int, last: date | None) -> datetime:
    """When the next run is due: this hour if it is that hour and today's run is not done,
    else the next time the clock reaches `hour`."""
    today = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    if now.hour == hour and last != now.date():
        return now
    return today if today > now and last != now.date() else today + timedelta(days=1)


class MaintenanceScheduler:
    def __init__(
        self, brain: Brain, config: MaintainConfig, *, clock: Clock = local_now,
        service: MemoryService | None = None, report: Callable[[str], None] | None = None,
    ) -> None:
        self.brain = brain
        self.config = config
        self.clock = clock
        self.service = service or memory_service(brain)
        self.report = report or (lambda line: log.info("%s", line))
        self.last_run: date | None = self._last_recorded()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _last_recorded(self) -> date | None:
        for record in self.service.history.records(path="memory", limit=200):
            if record.command == "maintain" and record.report and "localDay" in record.report:
                try:
                    return date.fromisoformat(str(record.report["localDay"]))
                except ValueError:
                    continue
        return None

    def due(self, now: datetime) -> bool:
        return now.hour == self.config.daily_local_hour and self.last_run != now.date()

    def tick(self) -> MaintenanceReport | None:
        """Run the pass if it is due (and the graph is read); the report, or None."""
        now = self.clock()
        if not self.brain.ready or not self.due(now):
            return None
        self.last_run = now.date()
        report = maintain(self.brain, None, apply=True, config=self.config, service=self.service)
        record_run(self.service, report, local_day=now.date())
        self.report(f"scheduled maintenance: {report.summary()}")
        return report

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="brain-maintain", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _loop(self) -> None:
        while not self._stop.wait(CHECK_SECONDS):
            try:
                self.tick()
            except Exception:  # a failed run must not end the server; the next day tries again
                log.exception("scheduled maintenance failed")

    def describe(self) -> str:
        when = next_run(self.clock(), self.config.daily_local_hour, self.last_run)
        return (
            f"scheduled maintenance daily at {self.config.daily_local_hour:02d}:00 local time, at most "
            f"{self.config.max_changes_per_run} changes a run (next: {when:%Y-%m-%d %H:%M})"
        )
