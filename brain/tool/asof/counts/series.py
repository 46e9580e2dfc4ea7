"""stats(asOf:) without a moment's graph: the graph's counts after every recorded change.

Building the whole moment to count it cost 1.5 s (an hour back) to 27 s (a week back) at
10,000 notes and 50,000 changes, because a week back almost every note differs from now.
Counts are small and the history only grows at its end, so they are kept instead, one
checkpoint per record: `S[k]` is `brain check`'s counts (Stats: notes, links by status,
unresolved targets, agents, entities) of the files with the first k records applied. A
moment's counts are then `S[moment_index(t)]`: a bisect, however far back.

The counts are made by the reference builder itself (graph.py), never by a second linker:
a walker (a `MomentBrain` of the newest moment) steps back one record at a time, putting
back the record's `before` through the ingester's overlays and syncing that one path (the
linker re-resolves exactly the links its name touches), and reads `store.stats()`. So a link's
status at t is today's rules applied to the names that existed at t, as the whole moment has
it; tests/tool/test_as_of_series.py compares every checkpoint with the whole moment's counts.
Records appended later are walked the same way from a new walker of the newest moment, back to
the last checkpoint kept.

Each checkpoint also holds the moment's per-scope health rows and problems by code
(asof/detail.py), as the entries that differ from the checkpoint before.

Kept in `stats-v2.jsonl` beside the blob folder: a header naming the format and the layout
whose rules resolved the links, then one line a record, `{"k": k, "h": tag, "s": [10 counts],
"d": {"g": {scope: [8 counts]}, "p": {"code|severity": n}, "a": [[caller, scope, [8 counts]]]}}`
where `tag` is a hash of record
k-1's id, time, path and contents and `d` the detail's differences from line k-1 (the first
line of the run, `"f": 1`, holds it whole), about 130 bytes a change (the history line itself
is about 300). A `stats-v1.jsonl` (counts without detail) cannot be upgraded: it is walked
again and removed once the v2 file is written. `.brain/` is the workspace's, so untrusted: a line
whose tag does not match its record (a torn line, another workspace's file, a history
rewritten by retention) ends the trusted prefix, and the rest is walked again; a header of
another format or layout, or a newest count that is not the graph's now, and the file is
rebuilt. A moment the series does not cover yet (being built, or its content not kept) is
answered by the whole moment, as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from brain import safefs
from brain.model import Stats
from brain.registry import OnePer
from brain.service.brain import FileChanges
from brain.store.base import WriteBatch
from brain.store.memory.search import KeywordIndex
from brain.tool.asof.counts.detail import (
    SNAP,
    CountingStore,
    Detail,
    decoded,
    detail_of,
    diff,
    encoded,
    merged,
    walker_detail,
)
from brain.tool.asof.delta import Delta, MomentNotKept, contents_at
from brain.tool.asof.graph import MomentBrain, MomentIngester, Moments, _moment_brain, moment_scopes
from brain.tool.asof.scopes import scope_index
from brain.tool.history.log import HistoryRecord

log = logging.getLogger(__name__)

SERIES_VERSION = 2
_FIELDS = Stats.__dataclass_fields__.keys()
_NFIELDS = len(_FIELDS)


class _NoKeywords(KeywordIndex):
    """The walker's keyword index: it only counts, so its notes are not indexed."""

    def apply(self, batch: WriteBatch) -> None:
        return None


def default_series_path(blob_dir: Path) -> Path:
    """`.brain/history/blobs` -> `.brain/history/stats-v2.jsonl`."""
    return blob_dir.parent / f"stats-v{SERIES_VERSION}.jsonl"


def running_or_started(thread: threading.Thread | None, target: Callable[[], None],
                       name: str) -> threading.Thread:
    """`thread` while it runs, else a new daemon thread of `target`, started: one walk of a
    kept index at a time (the counts here, the links in asof/linkers.py)."""
    if thread is not None and thread.is_alive():
        return thread
    started = threading.Thread(target=target, name=name, daemon=True)
    started.start()
    return started


def tag(record: HistoryRecord) -> str:
    """What ties a checkpoint to its record: a foreign or stale line never matches."""
    text = f"{record.id}|{record.at}|{record.path}|{record.new_path}|{record.before}|{record.after}"
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]


def _counts(stats: Stats) -> list[int]:
    return [int(getattr(stats, name)) for name in _FIELDS]


class StatsSeries:
    """The counts after each record of one workspace's history (see the module's docstring)."""

    def __init__(self, moments: Moments, path: Path) -> None:
        self.moments = moments
        self.path = path
        self._lock = threading.Lock()
        self._walk = threading.Lock()  # one walk at a time
        self._counts: dict[int, tuple[int, ...]] = {}  # k -> counts, k in [low, high]
        self._tags: dict[int, str] = {}
        # The detail (asof/detail.py): k -> its differences from k-1 (whole at `_low`, the run's
        # first), and whole at `_low` and every SNAP-th k.
        self._deltas: dict[int, Detail] = {}
        self._snaps: dict[int, Detail] = {}
        self._low = 0
        self._loaded = False
        self._saved = 0  # the file holds exactly the checkpoints _low.._saved (then it is appended to)
        self.thread: threading.Thread | None = None
        self.header = {"series": "asof-stats", "v": SERIES_VERSION, "layout": moments.live.layout_choice.name}

    # -- answering ----------------------------------------------------------------------------

    def stats_at(self, first: int, records: Sequence[HistoryRecord]) -> Stats | None:
        """S[first] when the series covers it (and its line still matches its record)."""
        found = self.kept_at(first, records)
        return None if found is None else found[0]

    def kept_at(self, first: int, records: Sequence[HistoryRecord]) -> tuple[Stats, Detail] | None:
        """S[first] and its detail when the series covers it."""
        with self._lock:
            found = self._counts.get(first)
            if found is None or not 1 <= first <= len(records):
                return None
            if self._tags.get(first) != tag(records[first - 1]):
                return None
            return Stats(*found), self._detail_at(first)

    def _detail_at(self, k: int) -> Detail:
        """The whole detail of checkpoint k (under the lock): the nearest whole one at or
        below, then at most SNAP differences merged."""
        at = max(self._low, k // SNAP * SNAP)
        whole = self._snaps[at]
        for i in range(at + 1, k + 1):
            whole = merged(whole, self._deltas[i])
        return whole

    def ensure(self, wait: bool = False) -> None:
        """Load what the file holds, then walk what it lacks, on a thread (or now: `wait`)."""
        if wait:
            self._extend()
            return
        with self._lock:
            self.thread = running_or_started(self.thread, self._extend_logged, "brain-asof-stats")

    def _extend_logged(self) -> None:
        try:
            self._extend()
        except Exception:  # a checkpoint is an accelerator: stats(asOf) still answers without
            log.exception("the as-of counts could not be built; stats(asOf) builds each moment instead")

    @property
    def loaded(self) -> bool:
        return self._loaded

    @property
    def high(self) -> int:
        with self._lock:
            return max(self._counts, default=0)

    def try_extend(self) -> bool:
        """`_extend` now, unless a walk is under way (then False: the caller does not wait)."""
        if not self._walk.acquire(blocking=False):
            return False
        try:
            self._extend_held()
        finally:
            self._walk.release()
        return True

    # -- building ------------------------------------------------------------------------------

    def _extend(self) -> None:
        with self._walk:
            self._extend_held()

    def _extend_held(self) -> None:
        records = self.moments.history.all()
        if not self._loaded:
            self._load(records)
            self._loaded = True
        self._trim(records)
        high = self.high
        if high >= len(records):
            return
        self._walk_back(records, stop=high)
        self._save(appended_after=high)

    def _trim(self, records: Sequence[HistoryRecord]) -> None:
        """Drop the checkpoints that no longer match their record (a history rewritten by
        retention moves every later record's id, so the newest one's tag says it)."""
        with self._lock:
            high = max(self._counts, default=0)
            if not high or (high <= len(records) and self._tags[high] == tag(records[high - 1])):
                return
            # A difference needs the checkpoint below it: the run ends at its first mismatch.
            cut = next(k for k in range(self._low, high + 2)
                       if k > high or k > len(records) or self._tags[k] != tag(records[k - 1]))
            self._drop_from(cut)
            self._saved = 0  # the file no longer matches: written whole next time

    def _drop_from(self, cut: int) -> None:
        """Every checkpoint from `cut` up forgotten (under the lock)."""
        for table in (self._counts, self._tags, self._deltas, self._snaps):
            for k in [k for k in table if k >= cut]:
                del table[k]
        if not self._counts:
            self._low = 0

    def _walk_back(self, records: Sequence[HistoryRecord], stop: int) -> None:
        """S[k] for k from len(records) down to stop+1, by a walker of the newest moment."""
        walker = self._newest(records)
        top = len(records)
        stats = walker.store.stats()
        found: dict[int, tuple[int, ...]] = {top: tuple(_counts(stats))}
        current = walker_detail(walker, stats)  # the detail with k records applied
        deltas: dict[int, Detail] = {}
        snaps: dict[int, Detail] = {top: current} if top % SNAP == 0 else {}
        ingester = walker.ingester
        assert isinstance(ingester, MomentIngester)
        index, timeline, layout = scope_index(self.moments), self.moments.timeline, self.moments.live.layout
        for k in range(top, stop + 1, -1):
            record = records[k - 1]  # undone: the files as they were with k-1 records applied
            try:
                if ingester.scopes_then is not None:  # the agent folders of k-1 records
                    ingester.scopes_then = index.step_back(layout, records, timeline, k - 1,
                                                           ingester.scopes_then)
                self._undo(walker, record)
            except MomentNotKept:
                break  # what is before is not kept: those moments are refused anyway
            stats = walker.store.stats()
            found[k - 1] = tuple(_counts(stats))
            before = walker_detail(walker, stats)
            deltas[k], current = diff(current, before), before
            if (k - 1) % SNAP == 0:
                snaps[k - 1] = current
        lowest = min(found)  # `current` is its detail
        with self._lock:
            if lowest == stop + 1 and stop in self._counts:  # joined to the run kept below
                deltas[lowest] = diff(current, self._detail_at(stop))
            else:  # a run of its own (the one below, if any, dropped): its first is whole
                self._drop_from(0)
                self._low, deltas[lowest], snaps[lowest] = lowest, current, current
            for k, counts in found.items():
                self._counts[k] = counts
                self._tags[k] = tag(records[k - 1])
            self._deltas.update((k, v) for k, v in deltas.items() if k >= lowest)
            self._snaps.update(snaps)

    def _newest(self, records: Sequence[HistoryRecord]) -> MomentBrain:
        """The moment with every record applied, built as graph.py builds any moment."""
        moments = self.moments
        # The base graph is brought up to date by one thread at a time; the copy of it is
        # made under its own lock (graph.py), so the walker is built without holding up the
        # moments that requests build meanwhile (nor, then, does the walk).
        with moments._building:
            base, generation = moments._base_graph()
            unrecorded = dict(moments._unrecorded(base, list(records), generation))
        delta = Delta(moments.clock(), len(records), len(records), unrecorded, {})
        moments.timeline.index_after(records, moments.clock())  # (it has seen every record)
        walker = _moment_brain(base, delta, contents_at(delta, moments.blobs, records),
                               moment_scopes(moments, records, len(records)), store_type=CountingStore)
        assert isinstance(walker.store, CountingStore)
        walker.store._keywords = _NoKeywords()  # never searched: half a step's time was its index
        walker.store.count_notes()
        return walker

    def _undo(self, walker: MomentBrain, record: HistoryRecord) -> None:
        if record.command == "maintain" and record.path == "":
            return
        ingester = walker.ingester
        assert isinstance(ingester, MomentIngester)
        back: dict[str, str | None] = {record.path: record.before}
        if record.new_path is not None:
            back[record.new_path] = None
        absent = set(ingester.absent)
        for rel, digest in back.items():
            if digest is None:
                ingester.overlays.pop(rel, None)
                absent.add(rel)
                continue
            data = self.moments.blobs.get(digest)
            if data is None:
                raise MomentNotKept(f"{rel}'s version {digest[:12]} is not kept", None)
            ingester.overlays[rel] = data
            absent.discard(rel)
        ingester.absent = frozenset(absent)
        ingester.sync(sorted(back))

    # -- the file ------------------------------------------------------------------------------

    def _load(self, records: Sequence[HistoryRecord]) -> None:
        """The file's checkpoints that match their records; nothing from a foreign or old file."""
        lines = safefs.read_kept_lines(self.path)
        if lines is None:
            return
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if header != self.header:
            log.info("%s is of another format or layout: the as-of counts are built again", self.path)
            return
        read: dict[int, tuple[str, tuple[int, ...], Detail, bool]] = {}
        for raw in lines[1:]:
            try:
                line = json.loads(raw)
                k, mark, values, detail = line["k"], line["h"], line["s"], decoded(line["d"])
                whole = line.get("f") == 1
            except (ValueError, TypeError, KeyError, AttributeError):
                continue  # torn or foreign: that checkpoint is walked again
            if (not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(records)
                    or not isinstance(values, list) or len(values) != _NFIELDS
                    or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)
                    or detail is None or mark != tag(records[k - 1])):
                continue
            read[k] = (mark, tuple(values), detail, whole)
        # Only a run without holes is kept, from a whole line up: the walk goes back from the
        # newest moment down to the run's top (a hole, a line torn or foreign, is walked again
        # with all above it: each line is a difference from the one below).
        low = top = min((k for k, line in read.items() if line[3]), default=0)
        if not low:
            return
        while top + 1 in read:
            top += 1
        counts = {k: read[k][1] for k in range(low, top + 1)}
        deltas = {k: read[k][2] for k in range(low, top + 1)}
        whole = deltas[low]
        snaps = {low: whole}
        for k in range(low + 1, top + 1):
            whole = merged(whole, deltas[k])
            if k % SNAP == 0:
                snaps[k] = whole
        if top == len(records) and not self._newest_matches(records, counts[top], whole):
            log.info("%s does not count the graph now: the as-of counts are built again", self.path)
            return
        with self._lock:
            self._counts, self._deltas, self._snaps, self._low = counts, deltas, snaps, low
            self._tags = {k: read[k][0] for k in range(low, top + 1)}
            # The file holds exactly low..top, each line once: later records are appended to it.
            if len(read) == top - low + 1 and len(lines) - 1 - (lines[-1] == b"") == len(read):
                self._saved = top

    def _newest_matches(
        self, records: Sequence[HistoryRecord], counts: tuple[int, ...], detail: Detail,
    ) -> bool:
        """The newest checkpoint against the graph now, when nothing changed unrecorded."""
        moments = self.moments
        with moments._building:
            base, generation = moments._base_graph()
            if moments._unrecorded(base, list(records), generation):
                return True  # the graph now is not that moment: nothing to compare with
            return tuple(_counts(base.store.stats())) == counts and detail_of(base) == detail

    def _save(self, appended_after: int) -> None:
        """The checkpoints after `appended_after` appended to the file when it holds exactly
        those before; else the whole series written beside it and renamed over it (a reader
        never sees it half written)."""
        with self._lock:
            rows = sorted(self._counts.items())
            tags, deltas, low = dict(self._tags), dict(self._deltas), self._low
            top = rows[-1][0] if rows else 0
            append = self._saved > 0 and self._saved == appended_after
        lines = [] if append else [json.dumps(self.header)]
        for k, v in rows:
            if append and k <= appended_after:
                continue
            line: dict[str, object] = {"k": k, "h": tags[k], "s": list(v), "d": encoded(deltas[k])}
            if k == low:
                line["f"] = 1
            lines.append(json.dumps(line, separators=(",", ":")))
        data = ("\n".join(lines) + "\n").encode()
        try:
            safefs.write_kept_file(self.path, data, append=append)
            with self._lock:
                self._saved = top
        except OSError as exc:
            log.warning("could not keep the as-of counts in %s: %s (they are counted again next start)",
                        self.path, exc)
            return
        old = self.path.parent / "stats-v1.jsonl"  # counts without detail: replaced by this file
        if old != self.path and old.is_file() and not old.is_symlink():
            try:
                old.unlink()
            except OSError as exc:
                log.info("could not remove the old as-of counts %s: %s", old, exc)


# A moment newer than the series's last checkpoint (records written since it was walked) is
# walked on the ask when at most this many records are missing (a walker's copy of the graph
# and a step a record); more, and the walk goes on a thread while the whole moment answers.
WALK_ON_ASK = 500

_SERIES: OnePer[Moments, StatsSeries] = OnePer(
    lambda moments: StatsSeries(moments, default_series_path(moments.blobs.directory)))


def series_of(moments: Moments) -> StatsSeries:
    """The one series of these moments (of one served brain)."""
    return _SERIES(moments)


def counts_at(moments: Moments, first: int, records: Sequence[HistoryRecord]) -> Stats | None:
    """S[first], walking the few records written since the last walk if need be; None when
    the series does not cover it yet (its walk is then started on a thread)."""
    found = kept_at(moments, first, records)
    return None if found is None else found[0]


def kept_at(moments: Moments, first: int, records: Sequence[HistoryRecord]) -> tuple[Stats, Detail] | None:
    """S[first] and its detail (asof/detail.py), as `counts_at`."""
    series = series_of(moments)
    found = series.kept_at(first, records)
    if found is None:
        if series.loaded and len(records) - series.high <= WALK_ON_ASK and series.try_extend():
            found = series.kept_at(first, records)
        else:
            series.ensure()
    return found


class CountsStarter:
    """A file listener that starts the series's walk after each full sync (a server's start
    and its rescans), so the first stats(asOf) finds its counts kept."""

    def __init__(self, moments: Callable[[], Moments]) -> None:
        self.moments = moments

    def __call__(self, news: FileChanges) -> None:
        if news.full:
            series_of(self.moments()).ensure()


__all__ = ["CountsStarter", "StatsSeries", "counts_at", "default_series_path", "kept_at",
           "running_or_started", "series_of", "tag"]
