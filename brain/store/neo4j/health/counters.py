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
than FOLLOW_MOST notes. The counters themselves stay in the process: hubs, most wanted and
the paged lists are sorted sets, not counts (docs/neo4j.md). What a process just started can
answer without them, the counts per scope and, for the callers a dashboard has (an admin,
each agent), the hubs, most wanted and the lists' heads, it reads from the tally the writer
keeps in the database (tally.py, tally_answers.py), stored after each write it follows and
after it counts.

The counters are counted from the graph once (the first question of a process) and again
only in the cases above, from the counters' fields alone (first_count.py: a query a page of
notes, their links gathered by the database), not from every note and link as objects.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NamedTuple, TypeVar

from neo4j import Record

from brain.model import Link, MemoryNode, Node
from brain.store.base import MemoryFilter, WriteBatch
from brain.store.health import HealthAnswers, HealthAsk, HealthList, PageKey, ScopeHealth
from brain.store.health_counts import Facts, HealthIndex, Row, batch_sources
from brain.store.neo4j.generations.live import LiveSet
from brain.store.neo4j.health import tally, tally_answers
from brain.store.neo4j.health.first_count import Kept, count_pages, kept_link
from brain.store.neo4j.reads.readcache import ReadCache
from brain.store.neo4j.sharing.database import Committer

log = logging.getLogger(__name__)
T = TypeVar("T")

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
    return tuple(kept_link(link.target_id, link.status, link.target, link.candidates) for link in links)


def rows(found: tuple[Kept, ...]) -> list[Row]:
    """Kept links as the counters read a stored link (by position)."""
    return [(None, None, t, s, None, w, None, None, None, None, None, None, c) for t, s, w, c in found]


def followed(writes: int, entries: Sequence[Any], now: int) -> set[str] | None:
    """The notes the change-log `entries` say were changed from the graph's write count
    `writes` to `now`, or None if they do not account for every write in between. The log
    is the database's, not this process's: an entry of another shape (a foreign or garbled
    node, a field of the wrong type, a count that does not chain) is not trusted, and the
    counters are counted again rather than fail the question or follow the wrong notes."""
    sources: set[str] = set()
    for entry in entries:
        found = entry.get("sources") if isinstance(entry, dict) else None
        done, txns = (entry.get("writes"), entry.get("txns")) if isinstance(entry, dict) else (None, None)
        if not isinstance(found, list) or not all(isinstance(s, str) for s in found) \
                or type(done) is not int or type(txns) is not int or txns < 1 or done - txns != writes:
            return None
        writes = done
        sources.update(found)
    return sources if writes == now and len(sources) <= FOLLOW_MOST else None


class Neo4jHealth(Committer, HealthAnswers):
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
    _reads: ReadCache  # Neo4jStore's kept answers (brain/store/neo4j/reads/readcache.py)
    _live: LiveSet
    health_stamp_ttl = 1.0  # seconds a read of the position answers for
    health_followed = 0  # other processes' writes followed through the change log
    health_lean_count = True  # the first count reads only what the counters need (first_count.py)
    health_keep_tally = True  # the writer stores the counts' tally for other processes (tally.py)
    health_tallied = 0  # count questions answered from the database's tally (tests, benchmarks)
    # Seconds a followed write's tally waits for the writes after it: one store for a burst
    # (making one costs ~45 ms of CPU at 10,000 notes, bench/results/health_tally.json).
    health_tally_delay = 1.0
    # ...and at least this many times as long as making the last one took: with the lists'
    # heads a tally costs ~0.35 s of CPU at 10,000 notes and seconds at 100,000 (docs/neo4j.md),
    # so a steady writer spends at most a tenth of its time on them.
    health_tally_cost_factor = 10.0
    _tally_cost = 0.0  # seconds of CPU the last tally took to make (thread time)
    # Seconds a process without counters waits for a tally a few writes behind to catch up,
    # before it counts instead (a dashboard polling right after the writer's write).
    health_tally_wait = 2.0
    read_only: bool
    _tally_kept: tuple[object, tally.Tally] | None  # the tally read last, by its tag

    def _init_health(self) -> None:
        self._health_index = HealthIndex()  # counted on the first question
        self._health_rows = {}
        self._health_lock = threading.RLock()
        self._health_at = None
        self._health_writing = 0
        self._health_checked = 0.0
        self._tally_kept = None
        self._tally_checked = 0.0  # when the tally's tag was last read (time.monotonic)
        self._tally_timer: threading.Timer | None = None

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def _read_database(self, query: str, params: dict[str, Any]) -> list[Record]:
        raise NotImplementedError

    def _where(self, seq: int = 0) -> tuple[Position | None, list[Any]]:
        """The graph's position now, and the change-log entries after `seq`."""
        found = self._read(FOLLOW, seq=seq, limit=FOLLOW_ENTRIES)
        if not found:
            return None, []
        r = found[0]
        graph = None if r["graph"] is None else str(r["graph"])
        # Not brain's shape (a foreign or garbled workspace node): no count to chain from.
        seq = r["seq"] if type(r["seq"]) is int else 0
        writes = r["writes"] if type(r["writes"]) is int else -1
        return Position(graph, r["logId"], seq, writes), list(r["entries"])

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        raise NotImplementedError

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        raise NotImplementedError

    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
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
        from_write = at is None
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
        if from_write:
            self._health_tally_due()

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
        sources = followed(at.writes, entries, now.writes)
        if sources is None:
            index.valid = False  # a write not logged, a rebuild, a gap or a garbled entry
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
            if self.health_lean_count:
                self._health_count_lean(index)
            else:
                self._health_count_plain(index)
            self._health_at = at
            self._health_write_tally(self._health_tally_payload(0))
        return index

    def _health_count_lean(self, index: HealthIndex) -> None:
        """Counted from the fields the counters read, a page of notes per query (first_count.py)."""
        notes: dict[str, Facts | None] = {}
        held: dict[str, tuple[Kept, ...]] = {}
        for note_id, facts, found in count_pages(self._read_database):
            notes[note_id] = facts
            if found:
                held[note_id] = found
        index.build(notes, ((s, rows(k)) for s, k in held.items()), notes.get)
        self._health_rows = held

    def _health_count_plain(self, index: HealthIndex) -> None:
        """Counted from brain's plain reads (every note and link as objects): the reference
        the lean count is tested and measured against."""
        notes = {m.id: facts_of(m) for m in self.list_memories(MemoryFilter(), bodies=False)}
        ids = sorted(notes)
        links: dict[str, list[Link]] = {}
        for start in range(0, len(ids), LINK_PAGE):
            links.update(self.links_from(ids[start : start + LINK_PAGE]))
        index.build(notes, links.items(), notes.get)
        self._health_rows = {source: kept(found) for source, found in links.items() if found}

    # ------------------------------------------------------------------ the tally (tally.py)

    def _health_tally_payload(self, writing: int) -> dict[str, Any] | None:
        """Under the lock: the tally of the counters and the position they are in step with,
        if this process stores one and no other write of its own is between commit and follow."""
        at = self._health_at
        if (self.read_only or not self.health_keep_tally or not self._health_index.valid
                or self._health_writing != writing or at is None or at.log_id is None or at.writes < 0):
            return None
        started = time.thread_time()
        payload = tally.tally_of(self._health_index)
        self._tally_cost = time.thread_time() - started
        if len(payload) > tally.MOST_CHARS:
            return None  # (readers count, as with none stored)
        return {"graph": at.graph, "logId": at.log_id, "writes": at.writes, "version": tally.VERSION,
                "payload": payload}

    def _health_tally_due(self) -> None:
        """After a write this process followed: store the tally now (no delay) or once the
        writes of the next `health_tally_delay` seconds are followed too."""
        if self.read_only or not self.health_keep_tally:
            return
        if self.health_tally_delay <= 0:
            with self._health_lock:
                payload = self._health_tally_payload(1)  # (this write is still counted as writing)
            self._health_write_tally(payload)
            return
        with self._health_lock:
            if self._tally_timer is not None:
                return
            delay = max(self.health_tally_delay, self.health_tally_cost_factor * self._tally_cost)
            timer = self._tally_timer = threading.Timer(delay, self._health_tally_flush)
            timer.daemon = True
        timer.start()

    def _health_tally_flush(self) -> None:
        with self._health_lock:
            self._tally_timer = None
            payload = self._health_tally_payload(0)  # None while a write is between commit and follow
        try:
            self._health_write_tally(payload)
        except Exception as error:  # readers count without it; the next write stores it
            log.warning("memory health's tally not stored: %s", error)

    def _health_tally_settle(self) -> None:
        """Before the driver closes: a tally still waiting is stored now."""
        with self._health_lock:
            timer, self._tally_timer = self._tally_timer, None
        if timer is not None:
            timer.cancel()
            self._health_tally_flush()

    def _health_write_tally(self, params: dict[str, Any] | None) -> None:
        """Store the tally. A tally stored late or out of order carries the position it was
        made at: a reader finds it does not match the graph's and counts, never trusts it."""
        if params is None:
            return
        with self._session() as session:
            self._commit(session, tally.write_tally, params, graph=False, keep_reads=True, keeps_live=True)

    def health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        """Counts from the database's tally while this process's counters are not counted
        (a process that just started): one small read instead of counting the graph."""
        found = self._health_tallied(ask, lambda kept: tally.counts(kept, ask))
        return super().health_counts(ask) if found is None else found

    def health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found = self._health_tallied(ask, lambda kept: tally_answers.hubs(kept.answers, ask, top))
        return super().health_hubs(ask, top) if found is None else found

    def health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found = self._health_tallied(ask, lambda kept: tally_answers.wanted(kept.answers, ask, top))
        return super().health_wanted(ask, top) if found is None else found

    def health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        found = self._health_tallied(
            ask, lambda kept: tally_answers.page(kept.answers, ask, which, after, limit))
        return super().health_page(ask, which, after, limit) if found is None else found

    def _health_tallied(self, ask: HealthAsk, answer: Callable[[tally.Tally], T | None]) -> T | None:
        """The answer from the tally while this process's counters are not counted, if the
        tally matches the graph and settles the question; else None (the counters answer)."""
        # Not under the counters' lock: another question may hold it for a whole count, and
        # this answer needs none of the counters (`valid` read racily: either answer is exact).
        if self._health_index.valid:
            return None
        kept = self._health_from_tally()
        found = None if kept is None else answer(kept)
        if found is not None:
            self.health_tallied += 1
        return found

    def _health_from_tally(self) -> tally.Tally | None:
        """The tally if its tag is the graph's position now, else None."""
        kept_tally, now_at = self._tally_kept, time.monotonic()
        if kept_tally is not None and now_at - self._tally_checked < self.health_stamp_ttl:
            return kept_tally[1]  # read under a second ago (as the counters' position)
        waited = now_at + self.health_tally_wait
        while True:
            found = self._read_database(tally.READ_TAG, {"payload": False, "most": 0})
            if not found:
                return None
            r = found[0]
            now = (None if r["graph"] is None else str(r["graph"]), r["logId"], r["writes"], tally.VERSION)
            if type(r["writes"]) is not int or r["logId"] is None:
                return None
            tag = tally.tag_of(r)
            if tag == now:
                break
            # A tally of this log a few writes behind (each write stamps a new graph id): the
            # writer stores the next within its delay (`health_tally_delay`); worth a short
            # wait against a whole count.
            behind = (tag[1] == now[1] and tag[3] == tally.VERSION
                      and type(tag[2]) is int and tag[2] < now[2])
            if not behind or time.monotonic() >= waited:
                return None  # none stored, stored for another graph or write, or not this version's
            time.sleep(0.05)
        kept_tally = self._tally_kept
        if kept_tally is None or kept_tally[0] != now:
            again = self._read_database(tally.READ_TAG, {"payload": True, "most": tally.MOST_CHARS})
            parsed = tally.parse(again[0]["payload"]) if again and tally.tag_of(again[0]) == now else None
            if parsed is None:
                return None  # garbled, or moved between the two reads: the counters count
            kept_tally = self._tally_kept = (now, parsed)
        self._tally_checked = time.monotonic()
        return kept_tally[1]
