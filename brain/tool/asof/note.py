"""One note as of t, without the whole graph of t: the note's version then, and the names it
links to as they were then (issue 44: a note `asOf` under 50 ms, first asks included).

The graph of a moment (graph.py) copies the graph now and re-reads every note changed since:
seconds for the first ask of a moment a day or a week back. A single note does not need it:
its links resolve by the entries of their name keys alone (brain.resolve), and their anchors
by the headings of the notes they name. So this builds a small graph of that moment by the
same code (a `MomentBrain`, a first sync through the ingester's overlays): the note as it was,
every file that held one of its link targets' names then (each at its version then: notes
since deleted come back, notes since created are not there), and the agents' definitions
(the agents a link may name). Each path's version at t is found by a bisect of the records
that touched it (the history's `Timeline`), so the cost is the note's links, not the moment's
distance or the workspace's size.

What it answers is the note's own: its text, description, type, links with their statuses
and its problems. Backlinks and the rest of the graph need the whole moment (graph.py); the
GraphQL fields under `memory(asOf:)` still ask for it. tests/tool/test_as_of_note.py checks
this answer against the whole moment's for every note at every moment of a timeline.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from weakref import WeakKeyDictionary

from brain.ingest.note_bodies import DiskBodies
from brain.ingest.state import defined_id
from brain.layouts import Layout
from brain.parse.note import decode, parse_note
from brain.store.base import WriteBatch
from brain.store.linking import key_of_id
from brain.store.memory.search import KeywordIndex
from brain.store.memory.store import MemoryStore
from brain.tool.asof.delta import Delta, MomentNotKept, moment_index
from brain.tool.asof.graph import MomentBrain, MomentIngester, Moments, _nanoseconds
from brain.tool.history.changes import _at
from brain.tool.history.log import HistoryRecord
from brain.workspace import FileStat, read_bytes

_NOW = "now"  # a path no record touched: as it is on disk


class _Keys:
    """Every path the workspace has now or the history ever named, by the name key it defines,
    and the agents' definitions among them (kept per count of records and graph changes:
    rebuilt after a write, a few ms at 10,000 notes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._by_key: dict[str, set[str]] = {}
        self._agents: set[str] = set()

    def paths(self, moments: Moments, records: list[HistoryRecord], keys: set[str]) -> set[str]:
        """The paths that define one of `keys` at some moment, and every agent definition."""
        live = moments.live
        stamp = (len(records), live.changes)
        with self._lock:
            if stamp != self._stamp:
                by_key: dict[str, set[str]] = {}
                agents: set[str] = set()
                named = {*live.ingester.files, *(r.path for r in records),
                         *(r.new_path or "" for r in records)}
                for rel in named:
                    if "/" not in rel:  # a maintenance run's report, a top-level file: no note
                        continue
                    role = live.layout.classify(rel)
                    node_id = defined_id(role)
                    if node_id is not None:
                        by_key.setdefault(key_of_id(node_id), set()).add(rel)
                    if role.kind == "agent":
                        agents.add(rel)
                self._by_key, self._agents, self._stamp = by_key, agents, stamp
            return {rel for key in keys for rel in self._by_key.get(key, ())} | self._agents


_KEYS: WeakKeyDictionary[Moments, _Keys] = WeakKeyDictionary()


def note_moment(moments: Moments, at: float, rel: str) -> MomentBrain:
    """A graph of moment `at` that answers for note `rel` as the whole moment's graph does
    (MomentNotKept as graph.py's, when a version needed is not kept)."""
    records = moments.history.all()
    timeline = moments.timeline
    first = moment_index(records, timeline, at, moments.clock())
    live = moments.live
    if not live.ingester.synced:
        live.sync()

    def version(path: str) -> str | None:
        """The path's sha256 at t, None when absent then, _NOW when no record names it."""
        last = timeline.last_before(path, first)
        if last is not None:
            record = records[last]
            if record.new_path == path:
                return record.after
            return None if record.new_path is not None else record.after
        later = timeline.first_from(path, first)
        if later is None or later >= len(records):  # (the timeline may have seen newer records)
            return _NOW
        record = records[later]
        return None if record.new_path == path else record.before

    def changed_at(path: str) -> float | None:
        last = timeline.last_before(path, first)
        return None if last is None else _seconds(records[last])

    held: dict[str, bytes] = {}
    missing: list[str] = []

    def content(path: str) -> bytes | None:
        digest = version(path)
        if digest is None:
            return None
        if digest == _NOW:
            found = read_bytes(live.root / path)
            return found if isinstance(found, bytes) else None
        data = moments.blobs.get(digest)
        if data is None:
            missing.append(path)
        return data

    own = content(rel)
    if own is None and missing:
        raise MomentNotKept(f"the content {rel} had at that moment is no longer kept (history retention "
                            "or its cap): ask for the moment as a whole to see the oldest one shown", None)
    if own is None:  # it did not exist then: an empty moment says so
        return _built(moments, at, first, {}, {})
    held[rel] = own
    text, _ = decode(own, rel)
    keys = {live.layout.links.parse(link.target).key for link in parse_note(text, rel).links if link.target}
    with _LOCK:
        finder = _KEYS.setdefault(moments, _Keys())
    wanted = finder.paths(moments, records, keys) - {rel}
    for path in sorted(wanted):
        data = content(path)
        if data is not None:
            held[path] = data
    if missing:
        raise MomentNotKept(f"the content some notes {rel} links to had then is no longer kept "
                            "(history retention or its cap): ask for the moment as a whole to see the "
                            "oldest one shown", None)
    return _built(moments, at, first, held, {p: t for p in held if (t := changed_at(p)) is not None})


_LOCK = threading.Lock()


class _NoKeywords(KeywordIndex):
    """A note's moment is never searched: its notes are not indexed for keywords (a third of
    its build)."""

    def apply(self, batch: WriteBatch) -> None:
        return None


class _NoteStore(MemoryStore):
    """The embedded store of one note's moment (search is the graph's, not a moment's)."""

    def clear(self) -> None:
        super().clear()
        self._keywords = _NoKeywords()


def _built(moments: Moments, at: float, first: int, held: dict[str, bytes],
           changed_at: dict[str, float]) -> MomentBrain:
    live = moments.live
    stats = {rel: FileStat(rel, len(data), _nanoseconds(changed_at.get(rel))) for rel, data in held.items()}
    store = _NoteStore()
    brain = MomentBrain(live.root, store=store, layout=live.layout_choice)
    brain.at = at
    brain.delta = Delta(at, first, first, {}, changed_at)
    ingester = MomentIngester(live.root, store, _only(live.layout, stats), live.ingester.config)
    ingester.today = live.ingester.today
    brain.ingester = ingester
    store.read_bodies_from(DiskBodies(brain.root, ingester.overlays))
    ingester.overlays.update(held)
    ingester.changed_at = changed_at
    ingester.sync()
    return brain


def _only(layout: Layout, held: dict[str, FileStat]) -> Layout:
    """`layout` whose walk finds exactly `held`: the few files the note's answer needs."""

    def walk(self: Layout, root: Path) -> Iterator[FileStat]:
        yield from held.values()

    made: Layout = type(f"Note{type(layout).__name__}", (type(layout),), {"walk": walk})()
    return made


def _seconds(record: HistoryRecord) -> float | None:
    from brain.tool.asof.delta import _seconds as seconds

    return seconds(_at(record))


__all__ = ["note_moment"]
