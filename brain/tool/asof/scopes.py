"""Which agent folders existed at moment t: from the history, not from the disk as it is now.

An agent folder (a scope) is an agent node: a link `[[agent:bob]]` resolves when `bob`'s
folder exists. The ingester reads the folders from the disk (`layout.scope_folders`), which
for the graph of a moment is the disk of now: an agent whose folder was made after t resolved
at t, where `brain check` of t's files called the link broken (issue 44's property).

The folders of t are worked out from what the history says of their files instead:
- a folder on disk now that no record at or after t touched (no file under it written,
  created, deleted or renamed since) is as it is now: it existed at t (an empty one too);
- a folder some record after t touched existed at t if a file under it did: a path some
  record names at its version then, or a file on disk now that no record names at all.
So a folder made after t (every file under it created since) is not there at t, and one
deleted since with its files is there while one of them was. Each asks a bisect or two of
the history's `Timeline`: the cost is the touched folders', not the workspace's.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from brain.ingest.state import defined_id
from brain.layouts import Layout
from brain.model import owner_of_id
from brain.tool.asof.delta import Timeline
from brain.tool.history.log import HistoryRecord


def scope_of(layout: Layout, rel: str) -> str | None:
    """The agent folder `rel` lies in (the layout's), else the agent that owns the note it is
    (lab's `main` has no folder: its MEMORY.md at the top, or a daily log, makes it); None for
    a file of no agent (a maintenance run's report, at the top, is skipped by the callers)."""
    if "/" not in rel and not rel.endswith(".md"):
        return None  # a folder's own record ("memory"), or a plain file at the top: no agent's
    found = layout.scope_folder(rel)
    if found is not None:
        name, folder = found
        if rel.startswith(folder + "/") and name and not name.startswith("."):
            return name
    node_id = defined_id(layout.classify(rel))
    return owner_of_id(node_id) if node_id is not None else None


def exists_at(records: Sequence[HistoryRecord], timeline: Timeline, path: str, first: int,
              now: set[str] | frozenset[str]) -> bool:
    """Whether `path` existed with the first `first` records applied (`now`: the files on disk
    now, for a path no record names after t)."""
    last = timeline.last_before(path, first)
    if last is not None:
        record = records[last]
        if record.new_path == path:
            return True
        return record.new_path is None and record.after is not None
    later = timeline.first_from(path, first)
    if later is None or later >= len(records):
        return path in now
    record = records[later]
    return record.new_path != path and record.before is not None


class ScopeIndex:
    """The history by agent folder: the records (indexes) that touched a path under each, and
    those paths; and the folders of now with a file that no record names (kept per count of
    records and of the graph's changes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen = 0
        self._records: dict[str, list[int]] = {}
        self._paths: dict[str, set[str]] = {}
        self._named: set[str] = set()
        self._memo: dict[str, str | None] = {}
        self._stamp: tuple[int, int] | None = None
        self._now: frozenset[str] = frozenset()
        self._disk: frozenset[str] = frozenset()
        self._unnamed: frozenset[str] = frozenset()

    def _scope(self, layout: Layout, rel: str) -> str | None:
        found = self._memo.get(rel, "")
        if found == "":
            found = self._memo[rel] = scope_of(layout, rel)
        return found

    def _refresh(self, layout: Layout, records: Sequence[HistoryRecord], files: list[str],
                 disk: set[str], changes: int) -> None:
        if len(records) < self._seen:  # the history was replaced: start over
            self._seen, self._records, self._paths, self._named = 0, {}, {}, set()
        for index in range(self._seen, len(records)):
            record = records[index]
            if record.command == "maintain" and record.path == "":
                continue  # a maintenance run's own report, not a file's change
            for path in (record.path, record.new_path):
                if path is None:
                    continue
                self._named.add(path)
                scope = self._scope(layout, path)
                if scope is not None:
                    found = self._records.setdefault(scope, [])
                    if not found or found[-1] != index:
                        found.append(index)
                    self._paths.setdefault(scope, set()).add(path)
        stamp = (len(records), changes)
        if stamp != self._stamp:
            self._now = frozenset(files)
            self._disk = frozenset(disk)
            self._unnamed = frozenset(
                scope for rel in files if rel not in self._named
                and (scope := self._scope(layout, rel)) is not None)
            self._stamp = stamp
        self._seen = len(records)

    def scopes_at(self, layout: Layout, records: Sequence[HistoryRecord], timeline: Timeline,
                  first: int, files: list[str], disk: set[str], changes: int) -> frozenset[str]:
        """The agent folders that existed with the first `first` records applied."""
        with self._lock:
            self._refresh(layout, records, files, disk, changes)
            found = {scope for scope in self._disk if not self._touched_from(scope, first)}
            for scope, touched in self._records.items():
                if scope in found or touched[-1] < first:
                    continue  # untouched since t: as it is now (on disk now, or not)
                if self._held(records, timeline, scope, first):
                    found.add(scope)
            return frozenset(found)

    def step_back(self, layout: Layout, records: Sequence[HistoryRecord], timeline: Timeline,
                  first: int, scopes: frozenset[str]) -> frozenset[str]:
        """The folders with `first` records applied, from `scopes` (those with one more): only
        the folders of the record undone can differ (the counts' walk back, series.py)."""
        record = records[first]
        with self._lock:
            changed = {scope for path in (record.path, record.new_path)
                       if path is not None and (scope := self._scope(layout, path)) is not None}
            found = set(scopes)
            for scope in changed:
                if (scope in self._disk and not self._touched_from(scope, first)) or self._held(
                        records, timeline, scope, first):
                    found.add(scope)
                else:
                    found.discard(scope)
            return frozenset(found)

    def _held(self, records: Sequence[HistoryRecord], timeline: Timeline, scope: str, first: int) -> bool:
        """Whether a file under `scope` existed with the first `first` records applied."""
        return scope in self._unnamed or any(
            exists_at(records, timeline, path, first, self._now) for path in self._paths.get(scope, ()))

    def _touched_from(self, scope: str, first: int) -> bool:
        touched = self._records.get(scope)
        return touched is not None and bisect.bisect_left(touched, first) < len(touched)


_INDEXES: WeakKeyDictionary[object, ScopeIndex] = WeakKeyDictionary()
_LOCK = threading.Lock()


def scope_index(owner: object) -> ScopeIndex:
    """The one ScopeIndex of a workspace's moments (kept while they live)."""
    with _LOCK:
        return _INDEXES.setdefault(owner, ScopeIndex())


__all__ = ["ScopeIndex", "exists_at", "scope_index", "scope_of"]
