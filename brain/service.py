"""The use-cases every front end shares: one workspace, one store, kept in step.

`brain check`, the GraphQL API, the memory tool and the language server all go through a
`Brain`: it owns the ingester, serialises syncs, merges the store's problems with the
file-level ones, and tells subscribers what each applied batch changed.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from brain.ingest import Ingester, Progress, SyncResult
from brain.model import AgentNode, EntityNode, MemoryNode, Node, Problem, Severity, Stats, sorted_problems
from brain.search.service import SearchService, open_search
from brain.snapshot import SnapshotStore
from brain.snapshot_keeper import SnapshotKeeper
from brain.store.base import GraphStore, WriteBatch
from brain.store.memory import MemoryStore


@dataclass(frozen=True, slots=True)
class GraphChange:
    """One applied change of one node: what dashboards and editors refresh on."""

    seq: int
    kind: str  # "added" | "changed" | "deleted" | "relinked"
    id: str
    scope: str | None
    fields: tuple[str, ...] = ()
    at: float = field(default_factory=time.time)


Listener = Callable[[GraphChange], None]
_MEMORY_FIELDS = (
    "description", "type", "body", "headings", "properties", "problems", "path", "size", "hash",
    "blocks",
)
_OTHER_FIELDS = ("title", "description", "memory_enabled", "memory_off", "path")


class Brain:
    def __init__(self, root: Path, store: GraphStore | None = None, cache: bool = False) -> None:
        self.root = Path(root).resolve()
        self.store: GraphStore = store if store is not None else MemoryStore()
        self.ingester = Ingester(self.root, self.store)
        self.ingester.listeners.append(self._on_batch)
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._seq = itertools.count(1)
        self.last_sync: float | None = None
        self._search: SearchService | None = None
        # `cache`: start from the snapshot in the user's cache folder (brain/snapshot.py), keep it.
        self.snapshots: SnapshotKeeper | None = None
        if cache and isinstance(self.store, SnapshotStore):
            self.snapshots = SnapshotKeeper(self.ingester, self.store, self._lock)

    # ---------------------------------------------------------------- syncing

    def sync(self, paths: Iterable[str] | None = None, progress: Progress | None = None) -> SyncResult:
        with self._lock:
            first = not self.ingester.synced
            if first and self.snapshots is not None and self.snapshots.load() and paths is not None:
                self.ingester.sync()  # whatever changed while brain was down, before the named paths
            result = self.ingester.sync(paths, progress)
            self.last_sync = time.time()
            if self.snapshots is not None:
                if first:
                    result.seconds += self.snapshots.load_seconds
                self.snapshots.synced(result, first)
            return result

    def set_overlay(self, rel: str, text: str | None) -> SyncResult:
        with self._lock:
            return self.ingester.set_overlay(rel, text)

    @property
    def ready(self) -> bool:
        return self.ingester.synced

    # ---------------------------------------------------------------- events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _on_batch(self, batch: WriteBatch, before: dict[str, Node]) -> None:
        if not self._listeners:
            return
        for change in changes_of(batch, before, self._seq):
            for listener in list(self._listeners):
                listener(change)

    # ---------------------------------------------------------------- queries

    def problems(self, paths: Iterable[str] | None = None) -> list[Problem]:
        """Every problem (`brain check`), or only those of the files at `paths` (an editor)."""
        if paths is None:
            return sorted_problems(self.store.problems() + self.ingester.problems())
        wanted = set(paths)
        file_level = [p for p in self.ingester.problems() if p.path in wanted]
        return sorted_problems(self.store.problems(wanted) + file_level)

    def stats(self) -> Stats:
        return self.store.stats()

    def memory_at(self, rel: str) -> MemoryNode | None:
        return self.store.memory_by_path(rel)

    @property
    def search(self) -> SearchService:
        """Search (brain/search), started on first use: it loads the model and starts embedding."""
        with self._lock:
            if self._search is None:
                self._search = open_search(self.store)
                self.ingester.listeners.append(self._search.on_batch)
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
        fields = tuple(f for f in names if getattr(old, f, None) != getattr(node, f, None))
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


def count_by_severity(problems: Iterable[Problem]) -> tuple[int, int]:
    errors = warnings = 0
    for p in problems:
        if p.severity is Severity.ERROR:
            errors += 1
        else:
            warnings += 1
    return errors, warnings

