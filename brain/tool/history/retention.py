"""How long the history keeps what each write changed: bounded, by count and by age per note.

Every write keeps both versions of the note in the blob store (brain/tool/history/blobs.py) so the
history can show its diff. Unbounded, that store grows with every save forever. So a write's
content is kept while it is one of the newest `keep_versions` writes of its note (a rename
counts for both paths), or younger than `keep_days` days; set by the operator (brain/config/operator.py:
`--config FILE` / BRAIN_CONFIG, or BRAIN_HISTORY_KEEP_VERSIONS and BRAIN_HISTORY_KEEP_DAYS):

    [history]
    keep_versions = 50
    keep_days = 90

Blobs no kept entry names are deleted; the entries themselves stay (history.jsonl is
append-only), and their diff then says the content is no longer kept. A prune runs at most
once an hour, after a write, in the process that wrote; it spares blobs younger than an hour
so a write between keeping its blob and appending its entry is never robbed of it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import datetime

from brain.config.operator import HistoryConfig
from brain.tool.history.blobs import BlobStore, PruneReport
from brain.tool.history.log import HistoryRecord

log = logging.getLogger(__name__)

GRACE_SECONDS = 3600.0  # a blob this young may belong to a write whose entry is not written yet
PRUNE_EVERY_SECONDS = 3600.0


def kept_digests(records: Iterable[HistoryRecord], policy: HistoryConfig, now: float) -> set[str]:
    """The blobs the kept history entries name (before and after of each)."""
    by_note: dict[str, list[HistoryRecord]] = defaultdict(list)
    keep: set[str] = set()
    horizon = now - policy.keep_days * 86_400 if policy.keep_days else None
    for record in records:
        for path in {record.path, record.new_path} - {None}:
            by_note[str(path)].append(record)
        if horizon is not None and _epoch(record.at) >= horizon:
            keep.update(d for d in (record.before, record.after) if d)
    for entries in by_note.values():
        # Records are in file order, oldest first: the newest are at the end.
        for record in entries[-policy.keep_versions :]:
            keep.update(d for d in (record.before, record.after) if d)
    return keep


def _epoch(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")  # an entry whose time cannot be read is kept, not guessed old


class Retention:
    """Prunes a blob store against a history, now or (after writes) at most once an interval."""

    def __init__(self, blobs: BlobStore, policy: HistoryConfig, every: float = PRUNE_EVERY_SECONDS,
                 grace: float = GRACE_SECONDS) -> None:
        self.blobs = blobs
        self.policy = policy
        self.every = every
        self.grace = grace
        self._last = 0.0
        self._lock = threading.Lock()
        # More versions to keep: the first versions of notes no record names (baseline.py).
        self.also_keep: Callable[[], set[str]] = set

    def prune(self, records: Iterable[HistoryRecord], now: float | None = None) -> PruneReport:
        now = time.time() if now is None else now
        with self._lock:
            self._last = time.monotonic()
            keep = kept_digests(records, self.policy, now) | self.also_keep()
            report = self.blobs.prune(keep, self.grace, now)
        if report.removed:
            log.info("history retention: removed %d versions (%d bytes), kept %d",
                     report.removed, report.freed_bytes, report.kept)
        return report

    def due(self) -> bool:
        return not self._last or time.monotonic() - self._last >= self.every

    def ran_within(self, seconds: float) -> bool:
        """Whether a prune ran in the last `seconds` (then another frees nothing new)."""
        return bool(self._last) and time.monotonic() - self._last < seconds
