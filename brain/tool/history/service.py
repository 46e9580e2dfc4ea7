"""The history side of the memory service: keep versions, record changes, retention, the cap.

Split from brain/tool/service.py by concept: everything here is about what the write history
keeps (log.py records, blobs.py versions, retention.py prunes, cap.py caps, all in
brain/tool/history/); the service's reads and writes call it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from brain.budgets import history_caps
from brain.config.messages import ConfigError
from brain.config.operator import load_settings
from brain.ingest.memory_files import content_hash
from brain.tool.access import Actor
from brain.tool.history.blobs import BlobStore, PruneReport
from brain.tool.history.cap import HistoryMeter, HistoryUsage
from brain.tool.history.log import History, HistoryRecord, iso_time
from brain.tool.history.retention import Retention

if TYPE_CHECKING:
    from brain.service.brain import Brain
    from brain.tool.history.external import ExternalRecorder

log = logging.getLogger(__name__)

# A write at a history cap prunes first, unless nothing was written since a prune this recent.
PRESSURE_PRUNE_SECONDS = 60.0


class HistoryKeeping:
    root: Path
    brain: Brain | None
    history: History
    blobs: BlobStore
    meter: HistoryMeter
    clock: Callable[[], float]
    _retention: Retention | None
    _pressure_mark: int = -1  # the history's size when the cap last made a prune run
    # Records the changes made outside brain while its brain syncs (history/external.py).
    external: ExternalRecorder | None = None

    def keep_versions(self, *versions: bytes | None) -> None:
        """Both sides of a write, so its diff can be shown (also a file first made on disk)."""
        for data in versions:
            if data is not None:
                self.blobs.put(data)

    def record(
        self, actor: Actor, command: str, scope: str, rel: str, before: str | None,
        after: str | None, **extra: str,
    ) -> HistoryRecord:
        """Append the history record of a change made, then prune when retention is due."""
        record = self.history.append(
            at=iso_time(self.clock()), actor=actor.label, agent=actor.agent, via=actor.via,
            command=command, scope=scope, path=rel, before=before, after=after, **extra,
        )
        retention = self.retention()
        if retention is not None and retention.due():
            self._prune(retention)
        return record

    def _log_size(self) -> int:
        try:
            return self.history.path.stat().st_size
        except OSError:
            return 0

    def _prune(self, retention: Retention) -> None:
        try:
            retention.prune(self.history.all(), self.clock())
        except OSError as exc:  # retention never fails the write it follows
            log.warning("history retention could not prune %s: %s", self.blobs.directory, exc)
        self.meter.forget()  # blobs went: count again from the files

    def history_usage(self) -> HistoryUsage:
        """What the history keeps against its caps (for /healthz and metrics)."""
        return self.meter.usage(history_caps())

    def check_history_room(self, actor: Actor, shown: str, old: bytes | None, new: bytes) -> None:
        """Refuse (`history-full`) a write whose versions would pass a history cap, after
        retention removed what it may; called before the file is touched."""
        versions = {content_hash(d): len(d) for d in (old, new) if d is not None}
        retention = self.retention()

        def make_room() -> bool:
            # A refused agent retrying in a loop appends nothing: then one walk of the blobs
            # a minute is enough (retention spares versions younger than an hour anyway).
            mark = self._log_size()
            idle = mark == self._pressure_mark and retention is not None
            if retention is None or (idle and retention.ran_within(PRESSURE_PRUNE_SECONDS)):
                return False
            self._pressure_mark = mark
            self._prune(retention)
            return True

        policy = None if retention is None else retention.policy
        self.meter.check(actor.agent, shown, versions, history_caps(), make_room, policy)

    def retention(self) -> Retention | None:
        """The blob store's retention (the operator's [history], brain/config/operator.py); None
        while those settings are invalid: nothing is deleted under a policy that could not be read."""
        if self._retention is None:
            try:
                settings = (
                    self.brain.settings if self.brain is not None
                    else load_settings(os.environ, workspace=self.root)
                )
                policy = settings.history
            except ConfigError as exc:
                log.warning("history retention is paused: %s", exc)
                return None
            self._retention = Retention(self.blobs, policy)
        return self._retention

    def prune_history(self) -> PruneReport | None:
        """Prune the blob store now (otherwise it happens after writes, at most hourly)."""
        retention = self.retention()
        if retention is None:
            return None
        report = retention.prune(self.history.all(), self.clock())
        self.meter.forget()
        return report


