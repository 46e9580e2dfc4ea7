"""The graph at moment t, built from the graph now (or a nearby moment) and the notes changed
between, and cached.

A moment's graph is a `Brain` of its own over an embedded store (`MomentBrain`): every query
a front end asks of the live graph (stats, problems as `brain check` reports them, a note, its
links and backlinks, the health and overview queries) it answers the same way, by the same
code, so nothing about "as of" is written twice. It is built by copying a base graph, then
syncing only the files the history says differed at t (read from the blob store, through the
ingester's overlays; those absent at t are taken away); when most files differ, by a first
sync of the moment's files instead. Links are resolved by the resolver as it is now, against
the names of t, so a link to a note deleted since is broken again and one to a note created
since is broken then, as `brain check` of that day's files said.

The base is the nearest moment already built, or the graph now: the live store when it is
the embedded one (a copy of its tables: references to frozen rows, a few dict copies), else
(Neo4j) an embedded graph this keeps of the same files, read once and then kept in step with
the live brain's syncs. So both stores answer from the same files by the same code: the
history stays in the files (docs/memory-tool.md says why that was chosen over validity
intervals in the database, with the measurements).

Moments are cached, a few at a time (least recently used first out): a moment's identity is
how many records are at or before it, so two times between the same two records share one
graph, and records appended after it leave it as it is.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from brain.config.workspace import BrainConfig
from brain.ingest.ingester import Ingester, IngestState
from brain.ingest.note_bodies import DiskBodies
from brain.ingest.parse_helpers import MemoryBuilder
from brain.ingest.reused_notes import ReusedNotes
from brain.layouts import Layout
from brain.model import AgentNode, Problem, owner_of_id
from brain.service.brain import Brain, FileChanges
from brain.store.linking import NoteChange
from brain.store.memory.image import StoreImage
from brain.store.memory.store import MemoryStore
from brain.store.visibility import EVERYTHING, Reach
from brain.tool.asof.delta import Delta, MomentNotKept, Timeline, contents_at, delta_at, moment_index
from brain.tool.asof.scopes import scope_index
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import History, HistoryRecord, replay
from brain.workspace import FileStat

# Moments held built: each is a copy of the graph's tables plus the notes changed since
# (a time slider dragged back and forth asks for a handful of moments again and again).
MOMENT_CACHE_ENTRIES = 4
# A moment whose changed files are more than one in this many of the workspace's is built by
# a first sync of its files rather than by re-syncing them into a copy (bench/bench_as_of.py).
FRESH_DIVISOR = 4

_EMPTY_KEYWORDS = MemoryStore().contents().keywords
KEPT_REACHES = 16  # a held moment's problems kept for this many callers' reaches (the admin, agents)


_MOMENT_ATTRIBUTES = ("absent", "changed_at", "scopes_then")


def owners_of(claims: Iterable[str]) -> set[str]:
    """The agents that own the notes of these node ids (a scope folder at t, by its notes)."""
    return {owner for node_id in claims if (owner := owner_of_id(node_id)) is not None}


def _nanoseconds(when: float | None) -> int:
    return -1 if when is None else int(when * 1e9)


class MomentIngester(Ingester):
    """An ingester whose named paths are the history's, not the disk's: `absent` paths are
    gone whatever the disk holds, overlays hold the content of the others at t, and the agent
    folders are those of t (`scopes_then`, asof/scopes.py), not those on disk now."""

    absent: frozenset[str] = frozenset()
    changed_at: dict[str, float] = {}  # noqa: RUF012 (set per instance before its sync)
    scopes_then: frozenset[str] | None = None
    # Notes parsed by an earlier build, by their content (a small moment's: small.py).
    reused: ReusedNotes | None = None
    # What of each note a small moment keeps (its links that touch the note asked: small.py).
    cut: Callable[[NoteChange], NoteChange] | None = None

    def __init__(self, root: Path, store: MemoryStore, layout: Layout, config: BrainConfig) -> None:
        super().__init__(root, store, _then_layout(layout, self), config)

    def _builder(self, expected: int) -> MemoryBuilder:
        built = super()._builder(expected)
        built.reuse, built.cut = self.reused, self.cut
        return built

    def _stat_paths(self, paths: Iterable[str]) -> tuple[dict[str, FileStat], list[str]]:
        stats, gone = super()._stat_paths(paths)
        for rel in self.absent & stats.keys():
            del stats[rel]
            gone.append(rel)
        overlays = self.overlays  # (the fewer of the two is walked: a sync of one path among
        for rel in [r for r in stats if r in overlays] if len(stats) < len(overlays) else overlays:
            if rel in stats:  # thousands of overlays cost 3 ms a call walking them all)
                # its size then, and the time of the change that wrote it (an age)
                when = self.changed_at.get(rel)
                stats[rel] = FileStat(rel, len(overlays[rel]), _nanoseconds(when))
        if self.scopes_then is not None:  # (super() read the disk's folders of now)
            self._scopes = set(self.scopes_then)
        return stats, gone

    def _agent_changes(self, owners: set[str], recompute: bool) -> tuple[list[AgentNode], list[str]]:
        """Ingester._agent_changes with the agent folders of t. Without them (a moment made
        by hand), the owners of every note of the moment, not only of the batch's: a sync of a
        few files into a copy must not drop an agent whose folder is gone now but whose notes
        were there at t (`brain check` of t's files had it)."""
        if self.scopes_then is not None:
            self._scopes = set(self.scopes_then)
            return super()._agent_changes(owners, recompute)
        return super()._agent_changes(owners | owners_of(self.claims), recompute)

    def state(self) -> IngestState:
        """Ingester.state, of the files' states only: the moment's own differences (`absent`,
        `changed_at`, the overlays) are handed on by whoever builds the next moment from it."""
        own = {name: vars(self).pop(name) for name in _MOMENT_ATTRIBUTES if name in vars(self)}
        try:
            return super().state()
        finally:
            vars(self).update(own)


def _then_layout(layout: Layout, ingester: MomentIngester) -> Layout:
    """`layout` whose agent folders are the moment's (`ingester.scopes_then`) when it has them:
    a first sync reads them before its walk's names are made."""
    folders = type(layout).scope_folders

    def scope_folders(self: Layout, root: Path) -> set[str]:
        then = ingester.scopes_then
        return set(then) if then is not None else folders(self, root)

    made: Layout = type(f"Then{type(layout).__name__}", (type(layout),), {"scope_folders": scope_folders})()
    return made


def moment_scopes(moments: Moments, records: Sequence[HistoryRecord], first: int) -> frozenset[str]:
    """The agent folders with the first `first` records applied (asof/scopes.py)."""
    live = moments.live
    ingester = live.ingester
    # Copies made under the GIL (no lock: a write under way is not waited for; its change
    # is recorded after it, so at any recorded moment its files are the history's).
    files, disk, changes = list(ingester.files), set(ingester._scopes), live.changes
    return scope_index(moments).scopes_at(live.layout, records, moments.timeline, first, files, disk, changes)


class MomentBrain(Brain):
    """The graph of one moment: a Brain whose files are the history's at `at` (read-only)."""

    at: float
    delta: Delta
    # Set by `Moments.at` once built: never synced again (the counts' walker, which is, is not
    # frozen), so its problems are worked out once per reach, not on every ask: a held moment's
    # `linkReport`, `problems` page or `brain check` listing took 1.5 to 2.1 s an ask at 10,000 notes.
    frozen: bool = False

    def problems(self, paths: Iterable[str] | None = None, reach: Reach = EVERYTHING) -> list[Problem]:
        if not self.frozen or paths is not None:
            return super().problems(paths, reach)
        kept: dict[frozenset[str] | None, list[Problem]] = self.__dict__.setdefault("_problems_kept", {})
        found = kept.get(reach.scopes)
        if found is None:
            found = super().problems(None, reach)
            if len(kept) >= KEPT_REACHES:
                kept.clear()
            kept[reach.scopes] = found
        return list(found)  # (a caller may sort or cut its list)


def _moment_layout(layout: Layout, absent: frozenset[str], held: dict[str, FileStat]) -> Layout:
    """`layout` whose full walk finds the files of the moment: the disk's, less those absent
    then, with the history's version of those it holds (some no longer on disk)."""
    walk = type(layout).walk

    def moment_walk(self: Layout, root: Path) -> Iterator[FileStat]:
        for stat in walk(self, root):
            if stat.rel not in absent and stat.rel not in held:
                yield stat
        yield from held.values()

    made: Layout = type(f"Moment{type(layout).__name__}", (type(layout),), {"walk": moment_walk})()
    return made


def _moment_brain(base: Brain, delta: Delta, contents: dict[str, bytes],
                  scopes: frozenset[str] | None = None, store_type: type[MemoryStore] = MemoryStore,
                  ) -> MomentBrain:
    """The moment's graph from `base` (the graph now, or a built moment) and the files that
    differ from it: the base's copied and those files synced (few), or a first sync of the
    moment's files (many: at 10,000 notes all changed, re-linking them one by one took three
    times a first sync, whose parse helpers and one linking pass win)."""
    # What differs from the disk at the moment: the base moment's differences, then the delta's.
    before = base.ingester if isinstance(base.ingester, MomentIngester) else None
    held = dict(before.overlays) if before is not None else {}
    absent = set(before.absent) if before is not None else set()
    changed_at = dict(before.changed_at) if before is not None else {}
    for rel, digest in delta.paths.items():
        held.pop(rel, None)
        absent.discard(rel)
        if digest is None:
            absent.add(rel)
    held.update(contents)
    changed_at.update(delta.changed_at)
    fresh = len(delta.paths) * FRESH_DIVISOR > len(base.ingester.files)
    layout = base.layout
    if fresh:
        stats = {rel: FileStat(rel, len(data), _nanoseconds(changed_at.get(rel)))
                 for rel, data in held.items()}
        layout = _moment_layout(layout, frozenset(absent), stats)
    store = store_type()  # (the as-of counts' walker counts its notes' problems: asof/detail.py)
    brain = MomentBrain(base.root, store=store, layout=base.layout_choice)
    brain.at, brain.delta = delta.at, delta
    ingester = MomentIngester(base.root, store, layout, base.ingester.config)
    ingester.today = base.ingester.today
    brain.ingester = ingester
    store.read_bodies_from(DiskBodies(brain.root, ingester.overlays))
    ingester.overlays.update(held)
    ingester.absent = frozenset(absent)
    ingester.changed_at = changed_at
    ingester.scopes_then = scopes
    if fresh:
        ingester.sync()
        return brain
    live = base.store
    assert isinstance(live, MemoryStore)
    with base._lock:  # the graph now does not change while it is copied (a few dict copies)
        image = live.contents()
        state = base.ingester.state()
    store.restore(StoreImage(
        memory_ids=image.memory_ids, memories=image.memories, bodies=image.bodies, links=image.links,
        agents=image.agents, entities=image.entities, files=image.files, keywords=_EMPTY_KEYWORDS,
    ))
    ingester.restore(state)
    if delta.paths:
        ingester.sync(sorted(delta.paths))
    return brain


class Moments:
    """One workspace's moments: the base graph, the history's timeline and the cache."""

    def __init__(self, live: Brain, history: History, blobs: BlobStore, clock: Callable[[], float]) -> None:
        self.live = live
        self.history = history
        self.blobs = blobs
        self.clock = clock
        self.timeline = Timeline()
        self._lock = threading.Lock()  # the cache and the files changed since: held briefly
        self._building = threading.Lock()
        self._cache: OrderedDict[tuple[int, int], MomentBrain] = OrderedDict()
        self._base: Brain | None = None  # the embedded copy of a live store that is not embedded
        self._dirty: set[str] = set()
        self._base_changes = 0
        self._unrecorded_key: tuple[int, int] | None = None
        self._unrecorded_found: dict[str, str | None] = {}
        # The small moments' notes, parsed once by their content: the next ask's small moment
        # holds many of the same versions (brain/ingest/reused_notes.py).
        self.reused_notes = ReusedNotes()
        if not isinstance(live.store, MemoryStore):
            live.file_listeners.append(self._on_files)

    def _unrecorded(
        self, base: Brain, records: list[HistoryRecord], generation: int,
    ) -> dict[str, str | None]:
        """Files whose content now is not the history's last version of them: changed while
        no brain recorded it (a `brain check --as-of` after edits made with brain down).
        Their change is after every record, so at any moment in the history they held the
        history's last version (as the rescan at a server's start records them)."""
        key = (len(records), generation)
        if self._unrecorded_key == key:
            return self._unrecorded_found
        last: dict[str, str | None] = {}
        for record in records:
            replay(last, record)
        files = base.ingester.files
        found: dict[str, str | None] = {}
        for rel, digest in last.items():
            state = files.get(rel)
            now = state.hash if state is not None and state.hash else None
            if now != digest:
                found[rel] = digest
        self._unrecorded_key, self._unrecorded_found = key, found
        return found

    def _on_files(self, news: FileChanges) -> None:
        with self._lock:
            self._dirty.update(rel for rel, _, _ in news.changed)
            self._base_changes += 1

    def _base_graph(self) -> tuple[Brain, int]:
        """The graph now, embedded; and a count that changes whenever it does."""
        live = self.live
        if isinstance(live.store, MemoryStore):
            if not live.ingester.synced:
                live.sync()
            return live, live.changes
        if self._base is None:
            self._base = Brain(live.root, store=MemoryStore(), layout=live.layout_choice)
            self._base.ingester.today = live.ingester.today
            self._base.sync()
            with self._lock:
                self._dirty.clear()
        else:
            with self._lock:
                dirty, self._dirty = sorted(self._dirty), set()
            if dirty:
                self._base.sync(dirty)
        return self._base, self._base_changes

    def at(self, moment: float) -> MomentBrain:
        """The graph at `moment` (MomentNotKept when the history cannot show it exactly)."""
        records = self.history.all()
        first = moment_index(records, self.timeline, moment, self.clock())
        # The graph at t is fixed once its records are: changes recorded after t do not
        # change it, so a moment stays cached while agents write (a slider held at 7d).
        key = (first, self.timeline.epoch)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
        with self._building:  # one build at a time; asks of built moments do not wait for it
            with self._lock:
                found = self._cache.get(key)
            if found is not None:
                return found
            built = self._build(records, moment, first)
            built.frozen = True
            with self._lock:
                self._cache[key] = built
                while len(self._cache) > MOMENT_CACHE_ENTRIES:
                    self._cache.popitem(last=False)
            return built

    def _build(self, records: list[HistoryRecord], moment: float, first: int) -> MomentBrain:
        """From the nearest built moment (a slider stepping back re-reads only the notes changed
        between two steps), else from the graph now."""
        with self._lock:
            near = [(abs(index - first), index, built) for (index, epoch), built in self._cache.items()
                    if epoch == self.timeline.epoch]
        near.sort(key=lambda found: found[0])
        if near and near[0][0] < len(records) - first:
            _, index, built = near[0]
            delta = delta_at(records, self.timeline, moment, first, index)
            try:
                return _moment_brain(built, delta, contents_at(delta, self.blobs, records),
                                     moment_scopes(self, records, first))
            except MomentNotKept:
                pass  # a version between the two not kept: from now, which says exactly what
        base, generation = self._base_graph()
        delta = delta_at(records, self.timeline, moment, first)
        for rel, digest in self._unrecorded(base, records, generation).items():
            delta.paths.setdefault(rel, digest)
        contents = contents_at(delta, self.blobs, records)
        return _moment_brain(base, delta, contents, moment_scopes(self, records, first))


__all__ = ["MomentBrain", "MomentNotKept", "Moments"]
