"""The use-cases every front end shares: one workspace, one store, kept in step.

`brain check`, the GraphQL API, the memory tool and the language server all go through a
`Brain`: it owns the ingester, serialises syncs, merges the store's problems with the
file-level ones, and tells subscribers what each applied batch changed.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from brain.allocator import keep_big_blocks_apart
from brain.config.messages import ConfigError
from brain.config.operator import OperatorSettings, load_settings
from brain.config.workspace import BrainConfig, load_config
from brain.gcpause import weakly
from brain.ingest.ingester import Ingester, Progress, SyncResult
from brain.ingest.note_bodies import DiskBodies
from brain.layouts import LayoutChoice, choose_layout_leniently, get_layout
from brain.model import AgentNode, EntityNode, MemoryNode, Node, Problem, Severity, Stats, sorted_problems
from brain.search.service import Embedding, SearchService, open_search
from brain.snapshot.image import SnapshotStore
from brain.snapshot.keeper import SnapshotKeeper
from brain.store.base import GraphStore, SharedStore, StoreReadOnly, StoreUnavailable, WriteBatch
from brain.store.memory.store import MemoryStore
from brain.store.visibility import EVERYTHING, Reach

if TYPE_CHECKING:  # prometheus_client is imported by `brain serve` alone, not by every command
    from brain.metrics import Metrics


@dataclass(frozen=True, slots=True)
class GraphChange:
    """One applied change of one node: what dashboards and editors refresh on."""

    seq: int
    kind: str  # "added" | "changed" | "deleted" | "relinked"
    id: str
    scope: str | None
    fields: tuple[str, ...] = ()
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class FileChanges:
    """What one sync found changed on disk: (path, hash before, hash after), None = absent."""

    changed: list[tuple[str, str | None, str | None]]
    cold: bool  # the sync before knew no files (a first sync without a snapshot)
    now: dict[str, str]  # the hashes after the sync, of the files it looked at
    full: bool  # it looked at every file (a rescan)


log = logging.getLogger(__name__)
Listener = Callable[[GraphChange], None]
_MEMORY_FIELDS = (
    "description", "type", "body", "headings", "properties", "problems", "path", "size", "hash",
    "blocks",
)
_OTHER_FIELDS = ("title", "description", "memory_enabled", "memory_off", "path")


class Brain:
    def __init__(
        self, root: Path, store: GraphStore | None = None, layout: LayoutChoice | None = None,
        cache: bool = False, settings: OperatorSettings | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        # The operator's settings (brain/config/operator.py): the CLI passes those of its flags, an
        # embedder that passes none gets the environment's, read on first use.
        self._settings = settings
        keep_big_blocks_apart()  # a sync's freed buffers go back to the system (brain/allocator.py)
        self.store: GraphStore = store if store is not None else MemoryStore()
        # The CLI chooses strictly (a workspace it cannot place is exit 2); an embedder
        # that passes nothing gets brain.toml's layout, else the detected one, else latchai.
        self.layout_choice = layout if layout is not None else choose_layout_leniently(self.root)
        self.layout = get_layout(self.layout_choice.name)
        try:
            config = load_config(self.root)
        except ConfigError:
            config = BrainConfig()  # the part that reads it (maintain, the CLI) reports it
        self.ingester = Ingester(self.root, self.store, self.layout, config)
        # Weakly (brain/gcpause.py): a bound method here made the Brain a cycle it could not leave.
        self.ingester.listeners.append(weakly(self._on_batch))
        self.store.read_bodies_from(DiskBodies(self.root, self.ingester.overlays))  # not held twice
        self.ingester.change_log = logged_changes
        self.ingester.switched = weakly(self._on_switch)
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._seq = itertools.count(1)
        self.last_sync: float | None = None
        # Serving the snapshot's graph while the rescan that checks it runs (`open_snapshot`).
        self.checking = False
        self._search: SearchService | None = None
        # `cache`: start from the snapshot in the user's cache folder (brain/snapshot/image.py), keep it.
        self.snapshots: SnapshotKeeper | None = None
        if cache and isinstance(self.store, SnapshotStore):
            self.snapshots = SnapshotKeeper(self.ingester, self.store, self._lock)
        # A read-only replica (`brain serve --read-only`) answers from a database another
        # brain writes: it never syncs, and learns of changes from the writer's change log.
        self.read_only = bool(getattr(self.store, "read_only", False))
        # Where search embeds notes: a server sets HELPER (a process of its own), an editor OFF.
        self.embedding = Embedding.INLINE
        self.embedding_off_reason = ""
        # What this brain counts (brain/metrics.py); `brain serve` sets it unless --no-metrics.
        self.metrics: Metrics | None = None
        # Batches applied so far: a count read at scrape time is recomputed only after one.
        self.changes = 0
        # Told, after each sync, which files' contents changed (the history records those
        # made outside brain: brain/tool/history/external.py); nothing is compared without one.
        self.file_listeners: list[Callable[[FileChanges], None]] = []

    # ---------------------------------------------------------------- syncing

    def sync(self, paths: Iterable[str] | None = None, progress: Progress | None = None) -> SyncResult:
        if self.read_only:
            raise StoreReadOnly(self.read_only_reason() or "this brain is read-only")
        with self._lock:
            started = time.perf_counter()
            first = not self.ingester.synced
            if first and self.snapshots is not None and self.snapshots.load() and paths is not None:
                self.snapshots.settle()
                self.ingester.sync()  # whatever changed while brain was down, before the named paths
            if self.snapshots is not None:
                self.snapshots.settle()  # the file states a snapshot's load left for the first sync
            wanted = None if paths is None else list(paths)
            hashes = self._hashes(wanted) if self.file_listeners else None
            result = self.ingester.sync(wanted, progress)
            if hashes is not None:
                self._tell_files(hashes, wanted, first)
            self.last_sync = time.time()
            if paths is None:
                self.checking = False  # a full rescan: the graph is the disk's again
            if self.snapshots is not None:
                if first:
                    result.seconds += self.snapshots.load_seconds
                self.snapshots.synced(result, first)
            if self.metrics is not None:
                kind = "first" if first else "rescan" if paths is None else "changes"
                self.metrics.sync_seconds.labels(kind).observe(time.perf_counter() - started)
            return result

    def _hashes(self, paths: list[str] | None, after: bool = False) -> dict[str, str]:
        """The hashes of the files `paths` name: a named folder stands for the files under it
        (a watcher names a folder made, moved or deleted with its notes; without this, their
        creations and deletions reached no listener, so the history never recorded them)."""
        files = self.ingester.files
        if paths is None:
            return {rel: state.hash for rel, state in files.items() if state.hash}
        found = {rel: state.hash for rel in paths if (state := files.get(rel)) is not None and state.hash}
        # A path that is no known file and is a folder now, or (before the sync) nothing now: a
        # folder deleted. Its known files, by one pass over them. A new, changed or deleted
        # file (the usual paths) costs at most one stat and no pass.
        here = os.path.isdir if after else (lambda path: not os.path.isfile(path))
        folders = tuple(f"{rel.rstrip('/')}/" for rel in paths if rel not in files and here(self.root / rel))
        if folders:
            found.update((rel, state.hash) for rel, state in files.items()
                         if state.hash and rel.startswith(folders))
        return found

    def _tell_files(self, before: dict[str, str], paths: list[str] | None, first: bool) -> None:
        after = self._hashes(paths, after=True)
        changed = [
            (rel, before.get(rel), after.get(rel))
            for rel in sorted(before.keys() | after.keys()) if before.get(rel) != after.get(rel)
        ]
        # A first sync without a snapshot knew nothing before it: its listeners compare `after`
        # with what they knew (the history's last versions), not with nothing.
        news = FileChanges(changed, cold=first and not before, now=after, full=paths is None)
        for listener in list(self.file_listeners):
            try:
                listener(news)
            except Exception:  # recording a change never stops it being applied
                log.exception("a file-change listener failed")

    def open_snapshot(self) -> bool:
        """A server's fast start: take the graph from the snapshot now and be ready, leaving
        the rescan (the next full `sync`) to run while requests are answered. Until it ends,
        `checking` is true and answers come from the snapshot's graph: a consistent past
        state, whose differences from the disk then arrive as ordinary changes. False (and
        nothing loaded) without a sound snapshot: the first `sync` reads everything, as
        before. One-shot commands never call this: their `sync` rescans before answering."""
        with self._lock:
            if self.read_only or self.ingester.synced or self.snapshots is None:
                return False
            if not self.snapshots.load():
                return False
            self.checking = True
            return True

    def set_overlay(self, rel: str, text: str | None) -> SyncResult:
        with self._lock:
            if self.snapshots is not None:
                self.snapshots.settle()
            return self.ingester.set_overlay(rel, text)

    @property
    def settings(self) -> OperatorSettings:
        """The operator's settings (SettingsError if the environment's are invalid)."""
        if self._settings is None:
            self._settings = load_settings(os.environ, workspace=self.root)
        return self._settings

    @property
    def ready(self) -> bool:
        return self.read_only or self.ingester.synced

    def read_only_reason(self) -> str | None:
        """Why writes are refused here, naming the writer; None where writes are welcome."""
        if not self.read_only or not isinstance(self.store, SharedStore):
            return None
        try:
            self.store.check_writable()
        except StoreUnavailable as exc:
            return str(exc)
        return None

    # ---------------------------------------------------------------- events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _on_batch(self, batch: WriteBatch, before: dict[str, Node]) -> None:
        self.changes += 1
        if not self._listeners:
            return
        self._deliver(changes_of(batch, before, self._seq))

    def _on_switch(self, changes: Sequence[str]) -> None:
        """A first sync written onto a staged generation is live: what it changed, at once."""
        self.changes += 1
        if self._listeners:
            self.publish(entry for text in changes for entry in json.loads(text))
        search = self._search
        if search is not None and not self.read_only:
            search.indexer.recheck()  # it looked for notes to embed before they were readable

    def publish(self, entries: Iterable[Mapping[str, object]]) -> None:
        """Deliver changes another brain applied (a replica following the writer's log)."""
        changes = [change_from(entry, next(self._seq)) for entry in entries]
        self.changes += 1
        with self._lock:
            self._deliver(changes)

    def _deliver(self, changes: Iterable[GraphChange]) -> None:
        for change in changes:
            for listener in list(self._listeners):
                listener(change)

    # ---------------------------------------------------------------- queries

    def problems(self, paths: Iterable[str] | None = None, reach: Reach = EVERYTHING) -> list[Problem]:
        """Every problem (`brain check`), or only those of the files at `paths` (an editor);
        an agent's `reach` sees only its notes' problems, as if no note out of it existed."""
        file_level = self.ingester.problems()
        if not reach.everything:
            file_level = [p for p in file_level if reach.sees_path(p.path)]
        if paths is None:
            return sorted_problems(self.store.problems(reach=reach) + file_level)
        wanted = set(paths)
        file_level = [p for p in file_level if p.path in wanted]
        return sorted_problems(self.store.problems(wanted, reach) + file_level)

    def stats(self) -> Stats:
        return self.store.stats()

    def build_indexes(self) -> None:
        """Build what the store leaves for its first read (the embedded store's link index
        after a first sync or a restore: 1.4 s of CPU at 100,000 notes), so that a server's
        first answer after its ready line does not pay it. Other stores keep nothing back."""
        build = getattr(self.store, "build_indexes", None)
        if build is not None:
            build()

    def memory_at(self, rel: str) -> MemoryNode | None:
        return self.store.memory_by_path(rel)

    @property
    def search(self) -> SearchService:
        """Search (brain/search), started on first use: it loads the model and starts embedding."""
        with self._lock:
            if self._search is None:
                self._search = open_search(self.store, self.embedding, self.embedding_off_reason)
                self._search.metrics = self.metrics
                self.ingester.listeners.append(self._search.on_batch)
                if not self.read_only:  # a replica's vectors come from the writer
                    self._search.indexer.start()
            return self._search

    @property
    def search_if_started(self) -> SearchService | None:
        return self._search

    def close(self) -> None:
        if self.snapshots is not None:
            self.snapshots.close()
        if self._search is not None:
            self._search.indexer.close()
        self.store.close()


def changes_of(
    batch: WriteBatch, before: dict[str, Node], seq: Iterable[int]
) -> list[GraphChange]:
    numbers = iter(seq)
    out: list[GraphChange] = []
    upserts: list[MemoryNode | AgentNode | EntityNode] = [*batch.memories, *batch.agents, *batch.entities]
    for node in upserts:
        old = before.get(node.id)
        scope = node.scope if isinstance(node, MemoryNode) else None
        if old is None:
            out.append(GraphChange(next(numbers), "added", node.id, scope))
            continue
        names = _MEMORY_FIELDS if isinstance(node, MemoryNode) else _OTHER_FIELDS
        fields = tuple(f for f in names if _differs(old, node, f))
        out.append(GraphChange(next(numbers), "changed", node.id, scope, fields))
    for node_id in batch.deletes:
        old = before.get(node_id)
        scope = old.scope if isinstance(old, MemoryNode) else None
        out.append(GraphChange(next(numbers), "deleted", node_id, scope))
    upserted = {n.id for n in batch.memories}
    for source in sorted({link.source for link in batch.relinks} - upserted):
        scope = source.split(":", 1)[1].split("/", 1)[0]
        out.append(GraphChange(next(numbers), "relinked", source, scope, ("links",)))
    return out


def _differs(old: Node, new: Node, name: str) -> bool:
    if name == "body" and isinstance(old, MemoryNode) and isinstance(new, MemoryNode):
        # An embedded store reads a body back from its file, which by now holds the new one:
        # a file whose content changed may have a new body, and a reader must look again.
        return old.body != new.body or old.hash != new.hash
    return bool(getattr(old, name, None) != getattr(new, name, None))


def logged_changes(batch: WriteBatch, before: dict[str, Node]) -> list[dict[str, object]]:
    """A batch's changes for the change log of a shared store (committed with the batch)."""
    return [change_entry(c) for c in changes_of(batch, before, itertools.count(1))]


def change_entry(change: GraphChange) -> dict[str, object]:
    """A change as plain JSON, for the change log in a shared database."""
    return {"kind": change.kind, "id": change.id, "scope": change.scope,
            "fields": list(change.fields), "at": change.at}


def change_from(entry: Mapping[str, object], seq: int) -> GraphChange:
    fields = entry.get("fields")
    scope = entry.get("scope")
    at = entry.get("at")
    return GraphChange(
        seq, str(entry["kind"]), str(entry["id"]), scope if isinstance(scope, str) else None,
        tuple(str(f) for f in fields) if isinstance(fields, list) else (),
        float(at) if isinstance(at, int | float) else time.time(),
    )


def count_by_severity(problems: Iterable[Problem]) -> tuple[int, int]:
    errors = warnings = 0
    for p in problems:
        if p.severity is Severity.ERROR:
            errors += 1
        elif p.severity is Severity.WARNING:  # info (Severity.INFO) is neither
            warnings += 1
    return errors, warnings

