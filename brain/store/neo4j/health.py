"""Memory health on Neo4j: the shared counters (brain/store/health_counts.py) kept in step
with every write this store makes, so a dashboard's question reads counters, not the graph.

Each write of the graph (`_write_plan`) reads, before it commits, the links of the notes it
touches, and after it the same notes' links and the facts of every note on either end; the
counters then take the old links away and add the new ones: two reads of what the batch
touched, O(change). What a question costs is then the counters' arithmetic, and at most once
a second (`health_stamp_ttl`: a dashboard's seven questions share one) a read of the graph's
stamp (every transaction that writes the graph sets a new one: write.py `mark_graph`, the
generations' switch) to notice a write that was not this process's. Our own writes show in
the next answer; another process's within that second.

The counters are counted from the graph once (the first question of a process, one read of
every note and link) and again whenever the graph changed behind their back: the stamp
moved without a write of ours (a replica following the writer, another process), a
rebuild or a first sync switched a new generation in, the store was cleared, or one of our
writes failed half-way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from neo4j import Record

from brain.model import Link, MemoryNode, Node
from brain.store.base import MemoryFilter, WriteBatch
from brain.store.health import HealthAnswers
from brain.store.health_counts import Facts, HealthIndex, batch_sources

STAMP = "MATCH (w:BrainWorkspace {key: 'brain'}) RETURN w.graph AS graph"
LINK_PAGE = 5_000  # sources per read when the counters are counted from the whole graph
# A write of more notes than this is not followed: counting again on the next question
# (notes without bodies, links by pages) costs less than reading its notes with their bodies.
FOLLOW_MOST = 5_000

# What a write read before it committed: its sources and their links then.
Before = tuple[set[str], dict[str, list[Link]]]


def facts_of(node: Node | None) -> Facts | None:
    if not isinstance(node, MemoryNode):
        return None
    return (node.scope, node.modified_at, not node.description.strip(), not node.type)


class Neo4jHealth(HealthAnswers):
    """Mixed into Neo4jStore: uses its `_read`, `list_memories`, `links_from` and
    `get_nodes`; Neo4jStore's `_write_plan` calls `_health_before` and `_health_after` around
    its commits (`_health_step`), and `_health_forget` when the graph changed in a way they do not follow."""

    _health_index: HealthIndex
    _health_lock: threading.RLock
    _health_stamp: str | None  # the graph's stamp the counters are in step with
    _health_writing: int  # writes of this process between their two reads
    _health_checked: float  # when the stamp was last read (time.monotonic)
    health_stamp_ttl = 1.0  # seconds a read of the stamp answers for

    def _init_health(self) -> None:
        self._health_index = HealthIndex()  # counted on the first question
        self._health_lock = threading.RLock()
        self._health_stamp = None
        self._health_writing = 0
        self._health_checked = 0.0

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def _stamp(self) -> str | None:
        found = self._read(STAMP)
        return str(found[0]["graph"]) if found and found[0]["graph"] is not None else None

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        raise NotImplementedError

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        raise NotImplementedError

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        raise NotImplementedError

    # ------------------------------------------------------------------ the write path

    @contextmanager
    def _health_step(self, batch: WriteBatch) -> Iterator[None]:
        """Around a write's commits: the counters follow it, or are counted again if it fails."""
        before = self._health_before(batch)
        try:
            yield
        except BaseException:
            self._health_forget()
            raise
        self._health_after(before)

    def _health_before(self, batch: WriteBatch) -> Before | None:
        """Before a write commits: the links it may replace (None: no counters to keep)."""
        sources = batch_sources(batch)
        with self._health_lock:
            if not self._health_index.valid:
                return None
            if len(sources) > FOLLOW_MOST:
                self._health_index.valid = False
                return None
            self._health_writing += 1
        try:
            return sources, self.links_from(sources)
        except BaseException:
            self._health_forget()
            raise

    def _health_after(self, before: Before | None) -> None:
        """After it committed: the counters take its old links away and add the new ones."""
        if before is None:
            return
        try:
            sources, old = before
            new = self.links_from(sources)
            touched = set(sources)
            for links in (*old.values(), *new.values()):
                touched.update(link.target_id for link in links)
            nodes = self.get_nodes(touched)
            stamp, checked = self._stamp(), time.monotonic()
        except BaseException:
            self._health_forget()
            raise
        with self._health_lock:
            self._health_writing -= 1
            index = self._health_index
            if index.valid:
                begun = index.begin(sources, old.__getitem__)
                index.finish(sources, begun, new.__getitem__, lambda i: facts_of(nodes.get(i)))
                self._health_stamp, self._health_checked = stamp, checked

    def _health_forget(self) -> None:
        """The graph changed in a way the counters did not follow: count again when asked."""
        with self._health_lock:
            self._health_index.valid = False
            self._health_writing = 0

    # ------------------------------------------------------------------ questions

    def _health_guard(self) -> AbstractContextManager[Any]:
        return self._health_lock

    def _health_counters(self) -> HealthIndex:
        return self._health_index

    def _health_kept(self) -> HealthIndex:
        index = self._health_index
        now = time.monotonic()
        if index.valid and not self._health_writing and now - self._health_checked >= self.health_stamp_ttl:
            self._health_checked = now
            if self._stamp() != self._health_stamp:
                index.valid = False  # written by another process: count again
        if not index.valid:
            stamp, self._health_checked = self._stamp(), now
            notes = {m.id: facts_of(m) for m in self.list_memories(MemoryFilter(), bodies=False)}
            ids = sorted(notes)
            links: dict[str, list[Link]] = {}
            for start in range(0, len(ids), LINK_PAGE):
                links.update(self.links_from(ids[start : start + LINK_PAGE]))
            index.build(notes, links.items(), notes.get)
            self._health_stamp = stamp
        return index
