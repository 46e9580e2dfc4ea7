"""Which files were different at moment t, and what they held: the history read backwards.

The graph at t is the graph now with every recorded change after t undone. So only the
records after t are read (found by bisecting the history's times), newest first: each
path's state at t is the `before` of the first record after t that touched it (a rename:
its old path held `before`, its new one did not exist). A path no record after t touched
is as it is now, and is not re-read at all: the cost of a moment is the number of notes
changed since, not the size of the workspace.

A state at t whose content the blob store no longer keeps (retention, the cap, or a file
changed outside brain before brain ever saw it) cannot be shown exactly: the moment is
refused, naming the oldest moment that needs no such content. So is a moment before the
history's first record (nothing says what changed before it) and one in the future.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from brain.tool.history.blobs import BlobStore
from brain.tool.history.changes import _at, _iso, _stamp
from brain.tool.history.log import HistoryRecord, replay


class MomentNotKept(ValueError):
    """A moment the history cannot show exactly: before it began, past retention, or future."""

    def __init__(self, message: str, oldest: float | None, *, future: bool = False) -> None:
        super().__init__(message)
        self.oldest = oldest
        self.future = future


@dataclass(frozen=True, slots=True)
class Delta:
    """The files whose content at `at` differs from now: path -> sha256 at t (None: absent)."""

    at: float
    applied: int  # how many records (oldest first) are at or before t: the moment's identity
    total: int  # how many records the history held when this was computed
    paths: dict[str, str | None]
    # When each path present at t last changed at or before t (its modification time then);
    # a path the history saw no change of before t is missing here (its time is unknown).
    changed_at: dict[str, float]


class Timeline:
    """The history's times, kept sorted for bisecting (one pass per new record, not per query)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamps: list[str] = []  # running maximum of the records' stamps: sorted
        self._by_path: dict[str, list[int]] = {}  # the records (indexes) that touched each path
        self._seen = 0
        self.epoch = 0  # counts the times the history was replaced (its moments are others)

    def index_after(self, records: Sequence[HistoryRecord], at: float) -> int:
        """The index of the first record after `at` (records are appended in time order; a
        record stamped a little earlier than one before it, by another process, counts as
        after the one before it: the running maximum keeps the list sorted)."""
        with self._lock:
            if len(records) < self._seen:  # the history was replaced: start over
                self._stamps, self._by_path, self._seen = [], {}, 0
                self.epoch += 1
            top = self._stamps[-1] if self._stamps else ""
            for index in range(self._seen, len(records)):
                record = records[index]
                top = max(top, _at(record))
                self._stamps.append(top)
                self._by_path.setdefault(record.path, []).append(index)
                if record.new_path is not None:
                    self._by_path.setdefault(record.new_path, []).append(index)
            self._seen = len(records)
            return bisect.bisect_right(self._stamps, _stamp(at), 0, self._seen)

    def first_from(self, path: str, index: int) -> int | None:
        """The first record at or after `index` that touched `path`, if any."""
        with self._lock:
            found = self._by_path.get(path, [])
            at = bisect.bisect_left(found, index)
            return found[at] if at < len(found) else None

    def last_before(self, path: str, index: int) -> int | None:
        """The last record before `index` that touched `path`, if any."""
        with self._lock:
            found = self._by_path.get(path, [])
            at = bisect.bisect_left(found, index)
            return found[at - 1] if at else None


def moment_index(records: Sequence[HistoryRecord], timeline: Timeline, at: float, now: float) -> int:
    """How many records are at or before `at` (the moment's identity, cheap: a bisect);
    MomentNotKept for a moment in the future or before the history began."""
    if at > now + 1.0:  # a second's slack: a client's clock a little ahead is still "now"
        raise MomentNotKept(f"{_iso(at)} is in the future (it is {_iso(now)} now)", None, future=True)
    if not records:
        raise MomentNotKept("the history holds no record yet: brain can show the memory as it "
                            "was only from its first recorded change on", None)
    first = timeline.index_after(records, at)
    if first == 0:
        begins = _at(records[0])
        raise MomentNotKept(
            f"the history begins at {begins}: brain keeps nothing from before it, so it cannot "
            f"show the memory at {_iso(at)}; ask for a moment at or after {begins}",
            _seconds(begins),
        )
    return first


def delta_at(
    records: Sequence[HistoryRecord], timeline: Timeline, at: float, first: int, start: int | None = None,
) -> Delta:
    """What the files held at `at` (`first`: its `moment_index`) where it differs from now, or
    from the moment whose index is `start`: the records between undone (newest first, each
    path's `before`) or, for a moment before `at`, applied (oldest first, each path's `after`)."""
    end = len(records) if start is None else start
    paths: dict[str, str | None] = {}
    if first <= end:
        for record in reversed(records[first:end]):
            if record.command == "maintain" and record.path == "":
                continue  # a maintenance run's own report, not a file's change
            if record.new_path is not None:
                paths[record.new_path] = None
            paths[record.path] = record.before
    else:
        for record in records[end:first]:
            replay(paths, record)
    changed_at: dict[str, float] = {}
    for path, digest in paths.items():
        last = None if digest is None else timeline.last_before(path, first)
        if last is not None:
            seconds = _seconds(_at(records[last]))
            if seconds is not None:
                changed_at[path] = seconds
    return Delta(at, first, len(records), paths, changed_at)


def contents_at(delta: Delta, blobs: BlobStore, records: Sequence[HistoryRecord]) -> dict[str, bytes]:
    """The content at t of each path the delta says existed; MomentNotKept naming the oldest
    moment shown exactly if the blob store no longer keeps one of them."""
    found: dict[str, bytes] = {}
    missing: set[str] = set()
    for path, digest in delta.paths.items():
        if digest is None:
            continue
        data = blobs.get(digest)
        if data is None:
            missing.add(path)
        else:
            found[path] = data
    if not missing:
        return found
    # The first record after t of each such path is the one whose `before` is gone: the
    # moment can be shown from that record on.
    oldest = ""
    for record in records[delta.applied :]:
        for path in (record.path, record.new_path or ""):
            if path in missing:
                oldest = max(oldest, _at(record))
                missing.discard(path)
    raise MomentNotKept(
        f"the memory at {_iso(delta.at)} cannot be shown exactly: the content some notes had then "
        f"is no longer kept (history retention or its cap). The oldest moment brain can show is "
        f"{oldest}",
        _seconds(oldest),
    )


def _seconds(stamp: str) -> float | None:
    from brain.tool.history.changes import BadMoment, parse_moment

    try:
        return parse_moment(stamp, 0.0)
    except BadMoment:
        return None
