"""Memory health on Neo4j: the shared counters (brain/store/health_counts.py) kept in step
with every write to the graph, this process's or another's, so a dashboard's question reads
counters, not the graph.

The counters keep, beside their sums, each note's links as they counted them (`_health_rows`:
target, status, and what a private target was written as; a tenth of a Link). A write of this
process (`_write_plan`) then reads, after it commits, only the links of the notes it touched
and the facts of the notes on either end, takes the kept links away and adds the new ones:
one read of what the batch changed, O(change).

Another process's writes (the writer's, seen by a read-only replica, or a second process on
the database) are followed through the change log the replicas already read: each logged
write also logs the notes it may change (`sources`), how many transactions it was
(`txns`), and the graph's write count after it (`writes`: every transaction that writes the
graph adds one, write.py `mark_graph`, the generations' switch too). At most once a second
(`health_stamp_ttl`: a dashboard's seven questions share one) a question reads the graph's
stamp and the log entries after the counters' position, in one index seek. If the entries
account for every write since (their counts chain with no gap), the counters follow them as
they follow their own writes (`health_followed` counts those); else they are counted again:
a write without a log entry (a bare `write`), a rebuild or a first sync switched in as a new
generation, a cleared or replaced database, entries past the log's end, or a write of more
than FOLLOW_MOST notes. Keeping the counters in the database instead (a count node per scope
updated in each write's transaction) was not chosen: hubs, most wanted and the paged lists
are sorted sets, not counts, and each write would pay for them in Cypher (docs/neo4j.md).

The counters are counted from the graph once (the first question of a process: one read of
every note and link) and again only in the cases above.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NamedTuple

from neo4j import Record

from brain.model import Link, LinkStatus, MemoryNode, Node
from brain.store.base import MemoryFilter, WriteBatch
from brain.store.health import HealthAnswers
from brain.store.health_counts import Facts, HealthIndex, Row, batch_sources, vis_of
from brain.store.neo4j.generations.live import LiveSet
from brain.store.neo4j.readcache import ReadCache

# Where the graph is: its stamp, the change log's id and end, and its write count; and the
# log entries after `$seq` (an index seek on BrainChange.seq; none when nothing changed).
FOLLOW = """
MATCH (w:BrainWorkspace {key: 'brain'})
OPTIONAL MATCH (c:BrainChange) WHERE c.seq > $seq AND c.logId = w.logId
WITH w, c ORDER BY c.seq LIMIT $limit
RETURN w.graph AS graph, w.logId AS logId, w.seq AS seq, coalesce(w.writes, 0) AS writes,
       collect(c {.writes, .txns, .sources}) AS entries
"""
LINK_PAGE = 5_000  # sources per read when the counters are counted from the whole graph
# A write of more notes than this is not followed: counting again on the next question
# (notes without bodies, links by pages) costs less than reading its notes with their bodies.
FOLLOW_MOST = 5_000
FOLLOW_ENTRIES = 1_000  # log entries read per catch-up (the log keeps 1,000: more is a gap)

# A kept link: (target id, status, the target as written if the target is private, candidates).
Kept = tuple[str, LinkStatus, str, tuple[str, ...]]


class Position(NamedTuple):
    """The graph the counters are in step with."""

    graph: str | None
    log_id: str | None
    seq: int
    writes: int


def facts_of(node: Node | None) -> Facts | None:
    if not isinstance(node, MemoryNode):
        return None
    return (node.scope, node.modified_at, not node.description.strip(), not node.type)


def follow_params(batch: WriteBatch, txns: int) -> dict[str, Any]:
    """The parts of a write's change-log entry another process's counters follow it by."""
    sources = batch_sources(batch)
    return {"txns": txns, "sources": sorted(sources) if len(sources) <= FOLLOW_MOST else None}


def kept(links: Sequence[Link]) -> tuple[Kept, ...]:
    """What the counters need of a note's links (`Row` positions 2, 3, 5, 12), small."""
    return tuple(
        (sys.intern(link.target_id), link.status,
         link.target if link.status is not LinkStatus.BROKEN and vis_of(link.target_id) else "",
         link.candidates)
        for link in links
    )


def rows(found: tuple[Kept, ...]) -> list[Row]:
    """Kept links as the counters read a stored link (by position)."""
    return [(None, None, t, s, None, w, None, None, None, None, None, None, c) for t, s, w, c in found]


class Neo4jHealth(HealthAnswers):
    """Mixed into Neo4jStore: uses its `_read`, `list_memories`, `links_from` and
    `get_nodes`; Neo4jStore's `_write_plan` calls `_health_step` around its commits and
    logs `follow_params` with its change-log entry, and `_health_forget` when the graph
    changed in a way the counters do not follow."""

    _health_index: HealthIndex
    _health_rows: dict[str, tuple[Kept, ...]]  # each note's links as the counters counted them
    _health_lock: threading.RLock
    _health_at: Position | None  # the graph the counters are in step with
    _health_writing: int  # writes of this process between their commit and their follow
    _health_checked: float  # when the position was last read (time.monotonic)
    _reads: ReadCache  # Neo4jStore's kept answers (brain/store/neo4j/readcache.py)
    _live: LiveSet
    health_stamp_ttl = 1.0  # seconds a read of the position answers for
    health_followed = 0  # other processes' writes followed through the change log

    def _init_health(self) -> None:
        self._health_index = HealthIndex()  # counted on the first question
        self._health_rows = {}
        self._health_lock = threading.RLock()
        self._health_at = None
        self._health_writing = 0
        self._health_checked = 0.0

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def _where(self, seq: int = 0) -> tuple[Position | None, list[Any]]:
        """The graph's position now, and the change-log entries after `seq`."""
        found = self._read(FOLLOW, seq=seq, limit=FOLLOW_ENTRIES)
        if not found:
            return None, []
        r = found[0]
        graph = None if r["graph"] is None else str(r["graph"])
        return Position(graph, r["logId"], int(r["seq"] or 0), int(r["writes"])), list(r["entries"])

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        raise NotImplementedError

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        raise NotImplementedError

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        raise NotImplementedError

    # ------------------------------------------------------------------ following writes

    @contextmanager
    def _health_step(self, batch: WriteBatch) -> Iterator[None]:
        """Around a write's commits: the counters follow it, or are counted again if it fails."""
        sources = self._health_before(batch)
        try:
            yield
        except BaseException:
            self._health_forget()
            raise
        if sources is not None:
            try:
                self._health_follow(sources, None)
            finally:
                with self._health_lock:
                    self._health_writing = max(0, self._health_writing - 1)

    def _health_before(self, batch: WriteBatch) -> set[str] | None:
        """Before a write commits: the notes it may change (None: no counters to keep)."""
        sources = batch_sources(batch)
        with self._health_lock:
            if not self._health_index.valid:
                return None
            if len(sources) > FOLLOW_MOST:
                self._health_index.valid = False
                return None
            self._health_writing += 1
        return sources

    def _health_follow(self, sources: set[str], at: Position | None) -> None:
        """The counters take the kept links of `sources` away and add their links now, and
        re-file every note on either end; then they are in step with `at` (None: the
        position read after the links, for a write of this process)."""
        try:
            new = self.links_from(sources)
            touched = set(sources)
            for source in sources:
                touched.update(k[0] for k in self._health_rows.get(source, ()))
            for links in new.values():
                touched.update(link.target_id for link in links)
            nodes = self.get_nodes(touched)
            if at is None:
                at = self._where(sys.maxsize)[0]
            checked = time.monotonic()
        except BaseException:
            self._health_forget()
            raise
        with self._health_lock:
            index, held = self._health_index, self._health_rows
            if not index.valid:
                return
            begun = index.begin(sources, lambda s: rows(held.get(s, ())))
            index.finish(sources, begun, new.__getitem__, lambda i: facts_of(nodes.get(i)))
            for source, links in new.items():
                if links:
                    held[source] = kept(links)
                else:
                    held.pop(source, None)
            self._health_at, self._health_checked = at, checked

    def _health_catch_up(self) -> None:
        """Follow the writes made since the counters' position by other processes (the
        change log), or mark the counters for counting again if the log does not account
        for every one of them."""
        index, at = self._health_index, self._health_at
        now, entries = self._where(at.seq if at is not None else sys.maxsize)
        if at is not None and now == at:
            return
        self._health_moved()
        if at is None or now is None or now.log_id != at.log_id:
            index.valid = False  # cleared, replaced, or never in step
            return
        writes, sources = at.writes, set()
        for entry in entries:
            if entry["sources"] is None or entry["writes"] is None or entry["txns"] is None \
                    or int(entry["writes"]) - int(entry["txns"]) != writes:
                index.valid = False  # a write not logged, a rebuild, or a gap in the log
                return
            writes = int(entry["writes"])
            sources.update(entry["sources"])
        if writes != now.writes or len(sources) > FOLLOW_MOST:
            index.valid = False
            return
        if sources:
            self._health_follow(sources, now)
        self._health_at = now
        self.health_followed += 1

    def _health_moved(self) -> None:
        """The graph moved under this process: the reads that follow must not be answered
        from what the read cache kept (it trusts its token for 25 ms), nor on an old live set."""
        self._reads.drop()
        self._live.forget()

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
            self._health_catch_up()
        if not index.valid:
            self._health_checked = now
            self._health_moved()
            at = self._where(sys.maxsize)[0]  # before the reads: a write in between is followed next
            notes = {m.id: facts_of(m) for m in self.list_memories(MemoryFilter(), bodies=False)}
            ids = sorted(notes)
            links: dict[str, list[Link]] = {}
            for start in range(0, len(ids), LINK_PAGE):
                links.update(self.links_from(ids[start : start + LINK_PAGE]))
            index.build(notes, links.items(), notes.get)
            self._health_rows = {source: kept(found) for source, found in links.items() if found}
            self._health_at = at
        return index
