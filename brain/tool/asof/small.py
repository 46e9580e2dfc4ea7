"""A small graph of a moment: a few files at their versions then, built by the same code as
the whole moment's graph (graph.py), for the answers that need only a note and what its links
touch (note.py: one note as of t; around.py: one note with its backlinks).

What they share lives here, so both hold the same files for the same reasons:
- `Versions`: each path's version at t, by a bisect of the records that touched it (the
  history's `Timeline`), and its content (a kept blob, or the file now when no record names
  it); a version no longer kept is noted in `missing`, and the caller refuses the moment.
- `NameIndex`: every path the workspace has now or the history ever named, by the name key it
  defines, the agents' definitions, and the notes by the name key of their agent (an agent is
  also the owner of its notes: with no definition and its folder gone now, it existed at t if
  one of its notes did).
- `small_moment`: the first sync of those files into an embedded store, as of t.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from weakref import WeakKeyDictionary

from brain.budgets import note_budget
from brain.ingest.state import defined_id
from brain.layouts import Layout
from brain.model import MemoryNode, name_key, owner_of_id
from brain.parse.note import body_of, decode, parse_note
from brain.resolve import Target
from brain.store.base import WriteBatch
from brain.store.linking import NoteChange, key_of_id
from brain.store.memory.search import KeywordIndex
from brain.store.memory.store import MemoryStore
from brain.tool.asof.delta import Delta, moment_index
from brain.tool.asof.delta import _seconds as record_seconds
from brain.tool.asof.graph import MomentBrain, MomentIngester, Moments, _nanoseconds, moment_scopes
from brain.tool.diff.changes import _at
from brain.tool.history.log import HistoryRecord
from brain.workspace import FileStat, read_bytes

NOW = "now"  # a path no record touched: as it is on disk


class Versions:
    """The paths of the workspace as they were at `at`, read on demand."""

    def __init__(self, moments: Moments, at: float) -> None:
        self.moments, self.at = moments, at
        self.records = moments.history.all()
        self.timeline = moments.timeline
        self.first = moment_index(self.records, self.timeline, at, moments.clock())
        self.live = moments.live
        if not self.live.ingester.synced:
            self.live.sync()
        self.missing: list[str] = []

    def version(self, path: str) -> str | None:
        """The path's sha256 at t, None when absent then, NOW when no record names it."""
        records, first = self.records, self.first
        last = self.timeline.last_before(path, first)
        if last is not None:
            record = records[last]
            if record.new_path == path:
                return record.after
            return None if record.new_path is not None else record.after
        later = self.timeline.first_from(path, first)
        if later is None or later >= len(records):  # (the timeline may have seen newer records)
            return NOW
        record = records[later]
        return None if record.new_path == path else record.before

    def content(self, path: str) -> bytes | None:
        """The path's bytes at t (None when absent then, or not kept: then it is in `missing`)."""
        digest = self.version(path)
        if digest is None:
            return None
        if digest == NOW:
            found = read_bytes(self.live.root / path)
            return found if isinstance(found, bytes) else None
        data = self.moments.blobs.get(digest)
        if data is None:
            self.missing.append(path)
        return data

    def hold(self, held: dict[str, bytes], paths: Iterable[str]) -> None:
        """Add each of `paths` that existed at t to `held`, with its content then."""
        for path in sorted(paths):
            if path not in held and (data := self.content(path)) is not None:
                held[path] = data

    def hold_agents(self, held: dict[str, bytes], index: NameIndex, keys: Iterable[str]) -> None:
        """For each agent a link may name (by its name key), one of its notes then: the agent
        existed at t if one did. Its other names do not touch the links (held already)."""
        for key in sorted(keys):
            owned = index.owned(key)
            if any(path in held for path in owned):
                continue
            for path in owned:
                data = self.content(path)
                if data is not None:
                    held[path] = data
                    break

    def changed_at(self, paths: Iterable[str]) -> dict[str, float]:
        """When each path last changed before t, by the records (paths no record names: none)."""
        changed: dict[str, float] = {}
        for path in paths:
            last = self.timeline.last_before(path, self.first)
            if last is not None and (seconds := _seconds(self.records[last])) is not None:
                changed[path] = seconds
        return changed

    def build(self, held: dict[str, bytes], asked: str | None = None, name: str | None = None) -> MomentBrain:
        """The small moment of `held`, to answer for the note `asked` (all its links kept)
        and the links to the name key `name` (None: no other link), as `links_cut` says."""
        cut = links_cut(self.live.layout.links.parse, asked, name) if asked is not None else None
        return small_moment(self.moments, self.at, self.first, held, self.changed_at(held), self.records, cut)


def links_cut(
    parse: Callable[[str], Target], asked: str, name: str | None,
) -> Callable[[NoteChange], NoteChange]:
    """What a small moment keeps of each note it holds: the note `asked` whole; of every
    other, only its links to the name key `name` (the backlinks of `asked`), none if None.

    The others are held for what they say of `asked`: that they define a name it links to (a
    node, its headings), or link to it. Their other links touch neither, and nothing asked of
    a small moment reads them (GraphQL asks it only of the note, its links, backlinks and
    problems: brain/api/graph/asof/moments.py): resolved, anchored and indexed, they were most
    of a first ask on link-heavy notes (1,500 links an ask on the real profile, where about 50
    touched the note). Those kept keep their order: a backlink's place among its source's
    links is not shown."""

    def cut(note: NoteChange) -> NoteChange:
        if note.memory.path == asked or not note.links:
            return note
        if name is None:
            return note._replace(links=())
        kept = tuple(link for link in note.links if link.target and parse(link.target).key == name)
        return note if len(kept) == len(note.links) else note._replace(links=kept)

    return cut


def link_keys(moment: Versions, rel: str, data: bytes) -> set[str]:
    """The name keys of the links the note `rel` holds in `data`."""
    text, _ = decode(data, rel)
    parse = moment.live.layout.links.parse
    return {parse(link.target).key for link in parse_note(text, rel).links if link.target}


class NameIndex:
    """Every path the workspace has had now or the history ever named, by the name key it
    defines, the agents' definitions among them, and the notes by the name key of the agent
    that owns them. Only grows: after a write or a rescan, the paths not seen yet are added
    (rebuilt whole it was 0.1-0.4 s at 10,000 notes, on the first ask after every write). A
    path since gone from both is harmless: its version at any t is absent, so it is not held."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._records = 0  # the records whose paths are in
        self._named: set[str] = set()
        self._by_key: dict[str, set[str]] = {}
        self._agents: set[str] = set()
        self._by_owner: dict[str, list[str]] = {}

    def owned(self, key: str) -> list[str]:
        """The notes (any moment's) of the agent whose name key is `key`, after `paths`."""
        return self._by_owner.get(key, [])

    def paths(self, moments: Moments, records: list[HistoryRecord], keys: set[str]) -> set[str]:
        """The paths that define one of `keys` at some moment, and every agent definition."""
        live = moments.live
        stamp = (len(records), live.changes)
        with self._lock:
            if stamp != self._stamp:
                start = self._records if self._records <= len(records) else 0  # rewritten: all again
                named = {*live.ingester.files, *(r.path for r in records[start:]),
                         *(r.new_path or "" for r in records[start:])}
                self._add(live.layout, named - self._named)
                self._records, self._stamp = len(records), stamp
            return {rel for key in keys for rel in self._by_key.get(key, ())} | self._agents

    def _add(self, layout: Layout, paths: set[str]) -> None:
        self._named |= paths
        for rel in paths:
            if "/" not in rel:  # a maintenance run's report, a top-level file: no note
                continue
            role = layout.classify(rel)
            node_id = defined_id(role)
            if node_id is not None:
                self._by_key.setdefault(key_of_id(node_id), set()).add(rel)
                owner = owner_of_id(node_id)
                if owner is not None:
                    bisect.insort(self._by_owner.setdefault(name_key(owner), []), rel)
            if role.kind == "agent":
                self._agents.add(rel)


_INDEXES: WeakKeyDictionary[Moments, NameIndex] = WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def name_index(moments: Moments) -> NameIndex:
    """The graph's one NameIndex (kept while its Moments live)."""
    with _INDEXES_LOCK:
        return _INDEXES.setdefault(moments, NameIndex())


class _NoKeywords(KeywordIndex):
    """A small moment is never searched: its notes are not indexed for keywords (a third of
    its build)."""

    def apply(self, batch: WriteBatch) -> None:
        return None


class _SmallStore(MemoryStore):
    """The embedded store of a small moment (search is the graph's, not a moment's): its
    notes' keywords are not counted either (they were, and thrown away)."""

    keyword_counts = False

    def clear(self) -> None:
        super().clear()
        self._keywords = _NoKeywords()


def small_moment(moments: Moments, at: float, first: int, held: dict[str, bytes],
                 changed_at: dict[str, float], records: Sequence[HistoryRecord] | None = None,
                 cut: Callable[[NoteChange], NoteChange] | None = None) -> MomentBrain:
    """The graph of exactly `held` (path -> content at `at`), by a first sync as of `at`
    (`records`: the history as `first` counts it, when the caller has read it already; each
    read is a copy of every record, 2 ms at 50,000; `cut`: what of each note it keeps)."""
    live = moments.live
    stats = {rel: FileStat(rel, len(data), _nanoseconds(changed_at.get(rel))) for rel, data in held.items()}
    # Memory health's counters are not kept batch by batch: a small moment is asked about a
    # note, not health (counted on a first question, if one comes; a fifth of its sync).
    store = _SmallStore(health_ahead=False)
    brain = MomentBrain(live.root, store=store, layout=live.layout_choice)
    brain.at = at
    brain.delta = Delta(at, first, first, {}, changed_at)
    ingester = MomentIngester(live.root, store, _only(live.layout, stats), live.ingester.config)
    ingester.today = live.ingester.today
    ingester.reused, ingester.cut = moments.reused_notes, cut
    brain.ingester = ingester
    ingester.overlays.update(held)
    store.read_bodies_from(_HeldBodies(ingester.overlays))
    ingester.changed_at = changed_at
    # The agent folders of t, not of the disk now (asof/scopes.py): a folder made since is
    # not there, whatever of its notes this holds.
    ingester.scopes_then = moment_scopes(moments, moments.history.all() if records is None else records,
                                         first)
    ingester.sync()
    return brain


class _HeldBodies:
    """The bodies of a small moment's notes, read back from the versions it holds: every note
    of it is one (an overlay), so the store keeps a mark for each body instead of its
    compressed copy (a zlib pass of every note held, on every first ask; most are never
    shown). What it gives is what `DiskBodies` gives for a file with those bytes."""

    def __init__(self, held: Mapping[str, bytes]) -> None:
        self.held = held

    def on_disk(self, memory: MemoryNode) -> bool:
        return memory.path in self.held

    def read(self, memory: MemoryNode) -> str:
        raw = self.held.get(memory.path)
        if raw is None or memory.size > note_budget().max_bytes:
            return ""  # (a note past its budget has no body, as DiskBodies says)
        return body_of(raw, memory.path)


def _only(layout: Layout, held: dict[str, FileStat]) -> Layout:
    """`layout` whose walk finds exactly `held`: the few files the answer needs."""

    def walk(self: Layout, root: Path) -> Iterator[FileStat]:
        yield from held.values()

    made: Layout = type(f"Small{type(layout).__name__}", (type(layout),), {"walk": walk})()
    return made


def _seconds(record: HistoryRecord) -> float | None:
    return record_seconds(_at(record))
