"""The history side of the memory service: keep versions, record changes, retention, the cap.

Split from brain/tool/service.py by concept: everything here is about what the write history
keeps (log.py records, blobs.py versions, retention.py prunes, cap.py caps, all in
brain/tool/history/); the service's reads and writes call it.

A change and its record are one step (`history_step`, `record_or_undo`). The cap's check and
the record's append were two steps under a lock per scope folder only, so two writes to two
folders both passed the check and both appended, past the cap; and a write whose append failed
after the note was replaced answered an error for a change that had happened, unrecorded.
Now one lock file beside the history (an `flock`, so threads and processes alike) is held from
the check to the append, and a change whose record cannot be written is put back.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from brain import safefs
from brain.budgets import HistoryCaps, history_caps
from brain.config.messages import ConfigError
from brain.config.operator import load_budgets, load_settings
from brain.ingest.memory_files import content_hash
from brain.tool.access import Actor
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.history.baseline import Baselines
from brain.tool.history.blobs import BlobStore, PruneReport
from brain.tool.history.cap import HistoryMeter, HistoryUsage
from brain.tool.history.log import History, HistoryRecord, iso_time
from brain.tool.history.parsed import ParsedVersions
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
    parsed: ParsedVersions  # what each kept version parses to, for the diffs
    baselines: Baselines  # the first version brain saw of each note no record names
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
                digest = self.blobs.put(data)
                if digest is not None:  # parsed once now, never again by a diff
                    self.parsed.add(digest, data)

    def record(
        self, actor: Actor, command: str, scope: str, rel: str, before: str | None,
        after: str | None, **extra: str,
    ) -> HistoryRecord:
        """Append the history record of a change made, then prune when retention is due.
        The actor's origin ("ui") and run id go with it, so no writer has to pass them."""
        if actor.origin is not None:
            extra.setdefault("origin", actor.origin)
        if actor.run is not None:
            extra.setdefault("run", actor.run)
        record = self.history.append(
            at=iso_time(self.clock()), actor=actor.label, agent=actor.agent, via=actor.via,
            command=command, scope=scope, path=rel, before=before, after=after, **extra,
        )
        retention = self.retention()
        if retention is not None and retention.due():
            self._prune(retention)
        return record

    @contextmanager
    def history_step(self, shown: str) -> Iterator[None]:
        """Hold the workspace history's lock from a write's cap check to its record: one
        writer at a time across threads and processes (an `flock` on a fresh descriptor)."""
        path = self.history.path.with_name(self.history.path.name + ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise _unwritable(shown, path, exc) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):  # a FIFO there is never waited on
                raise _unwritable(shown, path, OSError(f"it is {safefs.kind_of(mode)}"))
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def record_or_undo(
        self, undo: Callable[[], None], shown: str, actor: Actor, command: str, scope: str, rel: str,
        before: str | None, after: str | None, **extra: str,
    ) -> HistoryRecord:
        """`record`, or when its record cannot be written, `undo` the change and refuse: no
        change goes unrecorded, and the answer says whether the note changed."""
        try:
            return self.record(actor, command, scope, rel, before, after, **extra)
        except OSError as exc:
            try:
                undo()
            except OSError as failed:
                log.error("%s changed but was not recorded, and could not be put back: %s", rel, failed)
                raise Refusal(
                    RefusalCode.HISTORY_UNWRITABLE,
                    f"{shown} WAS changed, but its history record could not be written to "
                    f"{self.history.path} ({_reason(exc)}) and putting the old version back failed "
                    f"too ({_reason(failed)}): a person should check the disk and that file",
                    None,
                ) from None
            log.warning("refused a write of %s: its history record could not be written: %s", rel, exc)
            raise _unwritable(shown, self.history.path, exc) from None

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
        return self.meter.usage(self.caps())

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
        self.meter.check(actor.agent, shown, versions, self.caps(), make_room, policy)

    def caps(self) -> HistoryCaps:
        """The operator's `[budgets]` history caps: the Brain's settings, else (a service
        without one) the environment's, read at each write as a write costs far more."""
        if self.brain is not None:
            try:
                return history_caps(self.brain.settings.budgets)
            except ConfigError:
                pass  # said by the loader below, once; the defaults hold meanwhile
        return history_caps(load_budgets(os.environ))

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
            self._retention.also_keep = lambda: self.baselines.unrecorded(self.history.all())
        return self._retention

    def prune_history(self) -> PruneReport | None:
        """Prune the blob store now (otherwise it happens after writes, at most hourly)."""
        retention = self.retention()
        if retention is None:
            return None
        report = retention.prune(self.history.all(), self.clock())
        self.meter.forget()
        return report




def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _unwritable(shown: str, path: Path, exc: OSError) -> Refusal:
    return Refusal(
        RefusalCode.HISTORY_UNWRITABLE,
        f"{shown} was NOT changed: its history record could not be written to {path} "
        f"({_reason(exc)}). Every change is recorded, so writes are refused until a person frees "
        "space or fixes that file; tell a person rather than retrying",
        None,
    )
