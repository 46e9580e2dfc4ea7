"""One Neo4j database shared by several brain processes: identity, lease, revisions, change log.

The database remembers whose graph it holds: one `BrainWorkspace` node (the workspace's real
path, the host that claimed it, the change log's id and position, the writer's URL). A writer
takes the writer lease (brain/store/neo4j/sharing/lease.py), then claims the database on its first
sync and refuses a database that holds another workspace's graph, unless told to replace it.
It then writes only the difference between the files and what the database holds
(brain/store/neo4j/sharing/revs.py), in one transaction, or, past the size of one, as a new
generation switched in at once (brain/store/neo4j/generations/staged.py): readers never see a
half-written graph.

Every applied batch appends one `BrainChange` node (the batch's changes as JSON, a sequence
number from the workspace node) in the same transaction as the batch: a replica that sees an
entry also sees its data, and a writer that dies cannot commit a batch without its entry.
Read-only replicas poll the log by sequence number (an index seek) and deliver the changes
to their own subscribers. The log keeps the last `log_keep` batches.
"""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from neo4j import ManagedTransaction, Record, Session

from brain.model import JSONValue
from brain.store.base import BodySource, LogPosition, StoreReadOnly, StoreUnavailable, WriteBatch
from brain.store.neo4j.errors import runtime_errors
from brain.store.neo4j.generations.live import LiveSet
from brain.store.neo4j.generations.staged import LABELS, LIVE_LABEL
from brain.store.neo4j.reads.readcache import ReadCache
from brain.store.neo4j.sharing.lease import WRITER_ID, WriterLease
from brain.store.neo4j.sharing.revs import difference

A = TypeVar("A")
R = TypeVar("R")

# ------------------------------------------------------------------ Cypher

SHARED_SCHEMA: tuple[str, ...] = (
    "CREATE CONSTRAINT brain_workspace_key IF NOT EXISTS FOR (n:BrainWorkspace) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT brain_change_batch IF NOT EXISTS FOR (n:BrainChange) REQUIRE n.batch IS UNIQUE",
    "CREATE INDEX brain_change_seq IF NOT EXISTS FOR (n:BrainChange) ON (n.seq)",
    "CREATE CONSTRAINT brain_lease_key IF NOT EXISTS FOR (n:BrainLease) REQUIRE n.key IS UNIQUE",
)
WORKSPACE = "MATCH (w:BrainWorkspace {key: 'brain'}) RETURN properties(w) AS props"
CLAIM = """
MERGE (w:BrainWorkspace {key: 'brain'})
ON CREATE SET w.root = $root, w.host = $host, w.logId = $log_id, w.seq = 0, w.claimedAt = $now,
  w.graph = $log_id
RETURN properties(w) AS props
"""
RECORD_WRITER = """
MATCH (w:BrainWorkspace {key: 'brain'})
SET w.writerUrl = $url, w.writerHost = $host, w.writerPid = $pid, w.writerStartedAt = $now
WITH w
OPTIONAL MATCH (l:BrainLease {key: 'writer'}) WHERE l.holder = $holder
SET l.url = $url
"""
REVS = "MATCH (n:Memory|Agent|Workflow|Chat|WorkItem|File) RETURN n.id AS id, n.rev AS rev"
# Idempotent: a batch id already logged is not logged again (a commit outcome may be lost).
# `writes` (the graph's write count after this transaction), `txns` (the transactions of its
# write) and `sources` (the notes whose links or facts it may change) let another process's
# memory health counters follow the write instead of counting again (brain/store/neo4j/health/counters.py).
LOG_CHANGES = """
MATCH (w:BrainWorkspace {key: 'brain'})
OPTIONAL MATCH (done:BrainChange {batch: $batch})
WITH w, done WHERE done IS NULL
SET w.seq = w.seq + 1
CREATE (:BrainChange {batch: $batch, seq: w.seq, logId: w.logId, at: $at, changes: $changes,
                      writes: w.writes, txns: $txns, sources: $sources})
WITH w
MATCH (old:BrainChange) WHERE old.seq <= w.seq - $keep
DELETE old
"""
LOG_POSITION = "MATCH (w:BrainWorkspace {key: 'brain'}) RETURN w.logId AS logId, w.seq AS seq"
# A replica's poll, in one round trip: the log's id and end, and the entries after `$seq`
# (of the log `$logId`; of a new log, from its start). Nothing new: one index seek. And the
# live set, read after the entries (collect is eager): a switch among them is live in it.
CHANGES_SINCE = f"""
MATCH (w:BrainWorkspace {{key: 'brain'}})
WITH w, CASE WHEN w.logId = $logId THEN $seq ELSE 0 END AS after
OPTIONAL MATCH (c:BrainChange) WHERE c.seq > after AND c.logId = w.logId
WITH w, c ORDER BY c.seq LIMIT $limit
WITH w, collect(c {{.seq, .changes}}) AS entries
OPTIONAL MATCH (g:{LIVE_LABEL} {{key: 'brain'}})
RETURN w.logId AS logId, w.seq AS seq, entries, g.labels AS live
"""
# Every transaction that writes the graph sets a new `graph` token on the workspace node
# (brain/store/neo4j/write.py). A snapshot of the ingester's state (brain/snapshot/image.py) taken
# beside the graph keeps the stamp; it is used on the next start only if the database still
# holds that very stamp: another writer, a reset or a half-finished write all change it.
# `writes` counts those transactions: a follower of the change log knows it missed none.
MARK_GRAPH = (
    "MATCH (w:BrainWorkspace {key: 'brain'}) SET w.graph = $graph, w.writes = coalesce(w.writes, 0) + 1"
)
# Node counts by label and relationship counts come from the count store (no scan): a graph
# changed by something that does not stamp (an older brain, a hand edit) rarely keeps them.
GRAPH_STAMP = (
    "MATCH (w:BrainWorkspace {key: 'brain'})\n"
    "RETURN w.graph AS graph, w.root AS root, w.logId AS logId, ["
    + ", ".join(f"COUNT {{ MATCH (:{label}) }}" for label in LABELS)
    + ", COUNT { MATCH ()-[:LINKS_TO]->() }, COUNT { MATCH ()-[:REMEMBERS]->() }] AS counts"
)
CLEAR_SHARED = """
MATCH (n:BrainWorkspace|BrainChange|BrainLease|BrainStaging|BrainLive|BrainHealthTally)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
"""


ChangeEntry = dict[str, JSONValue]  # one change as the writer logged it: kind, id, scope, fields, at


def _run(tx: ManagedTransaction, query_params: tuple[str, dict[str, Any]]) -> list[Record]:
    query, params = query_params
    return list(tx.run(query, params))


def _clear_some(tx: ManagedTransaction, limit: int) -> int:
    return int(tx.run(CLEAR_SHARED, {"limit": limit}).single(strict=True)["deleted"])


class Committer:
    """What the halves of Neo4jStore mixed in from other modules use of it."""

    def _session(self) -> Session:
        raise NotImplementedError

    def _commit(
        self, session: Session, work: Callable[[ManagedTransaction, A], R], arg: A, *, graph: bool = True,
        keep_reads: bool = False, keeps_live: bool = False,
    ) -> R:
        """One managed write transaction (Neo4jStore._commit)."""
        raise NotImplementedError


class Neo4jShared(Committer):
    """The shared-database half of Neo4jStore (mixed in; uses its reads and writes)."""

    database: str
    uri: str
    read_only: bool = False
    replace_foreign: bool = False  # --neo4j-replace: a writer may replace another workspace's graph
    log_keep = 1_000  # batches kept in the change log
    clear_rows = 10_000
    _bodies: BodySource | None = None  # the workspace's files, for the notes sent bare
    _live: LiveSet  # the live set of labels as last looked up (brain/store/neo4j/generations/live.py)
    _reads: ReadCache  # the kept answers of reads (brain/store/neo4j/reads/readcache.py)

    def read_bodies_from(self, source: BodySource) -> None:
        self._bodies = source

    def body_source(self) -> BodySource | None:
        return self._bodies

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def write(self, batch: WriteBatch) -> None:
        raise NotImplementedError

    def _write_plan(
        self, batch: WriteBatch, atomic: bool, changes: Sequence[Mapping[str, object]] = (),
        whole: WriteBatch | None = None,
    ) -> None:
        raise NotImplementedError

    _drop_old_generation: Callable[[], None]  # brain/store/neo4j/generations/rebuild.py

    def clear(self) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- identity

    def describe(self) -> str:
        return f"Neo4j database {self.database!r} at {self.uri}"

    def workspace(self) -> dict[str, JSONValue] | None:
        """The BrainWorkspace node's properties; None if no brain has claimed the database."""
        found = self._read(WORKSPACE)
        return dict(found[0]["props"]) if found else None

    def claim(self, root: str) -> None:
        """Make sure the database holds (or may hold) the graph of workspace `root`.

        A writer claims an unclaimed database; a database claimed by another workspace is
        refused with what to do, or cleared first under `replace_foreign`. A read-only
        replica only checks.
        """
        if not self.read_only and self._claimed == root and self._lease is not None:
            return  # claimed by this process already (a snapshot's check, then its first sync)
        held = self.workspace()
        if self.read_only:
            if held is None:
                raise StoreUnavailable(
                    f"{self.describe()} holds no brain graph yet: start the writer first "
                    f"(`brain serve {root} --store neo4j`), then the read-only replicas"
                )
            if held.get("root") != root:
                raise StoreUnavailable(
                    f"{self.describe()} holds the graph of workspace {held.get('root')}, not of {root}: "
                    f"a replica serves the writer's workspace (`brain serve {held.get('root')} "
                    "--store neo4j --read-only`)"
                )
            return
        foreign = held is not None and held.get("root") != root
        if foreign and not self.replace_foreign:
            raise StoreUnavailable(self._foreign_message(held or {}, root))
        self.take_lease(root)  # the one writer from here on (or refused, naming the writer)
        self._drop_old_generation()  # left by a writer that stopped right after a switch
        if held is not None and not foreign:
            if held.get("graph") is None:  # written by a brain before stamps: stamp it once
                self._write_query(MARK_GRAPH, graph=uuid.uuid4().hex)
            self._claimed = root
            return
        if foreign:
            self.clear()
            self.take_lease(root)  # clear() deleted it with the rest
        claimed = self._write_query(CLAIM, root=root, host=socket.gethostname(),
                                    log_id=uuid.uuid4().hex, now=time.time())
        props = dict(claimed[0]["props"])
        if props.get("root") != root:  # another writer claimed it in between
            raise StoreUnavailable(self._foreign_message(props, root))
        self._claimed = root

    # ---------------------------------------------------------------- snapshot stamp

    snapshot_kind = "neo4j"  # the ingester's snapshot has a file of its own (brain/snapshot/image.py)

    def graph_stamp(self) -> str:
        """What the database holds now, as a snapshot of the ingester's state records it: the
        workspace, the last graph write's token and the counts of brain's nodes and links.
        Empty if the database holds no stamped graph (then no snapshot is trusted)."""
        found = self._read(GRAPH_STAMP)
        if not found or found[0]["graph"] is None:
            return ""
        r = found[0]
        return json.dumps({
            "database": self.database, "root": r["root"], "logId": r["logId"], "graph": r["graph"],
            "counts": [int(n) for n in r["counts"]],
        }, sort_keys=True)

    def _foreign_message(self, held: Mapping[str, Any], root: str) -> str:
        host = held.get("host")
        return (
            f"{self.describe()} holds the graph of workspace {held.get('root')}"
            f"{f' (claimed from host {host})' if host else ''}, not of {root}: serve that workspace, "
            "give this one a database of its own (--neo4j-database, or another Neo4j server), "
            "or replace that graph with this workspace's (--neo4j-replace)"
        )

    def record_writer(self, url: str) -> None:
        """Where the writer answers, for the replicas' refusals of writes."""
        self._write_query(RECORD_WRITER, url=url, host=socket.gethostname(), pid=os.getpid(),
                          now=time.time(), holder=WRITER_ID)

    def writer_url(self) -> str | None:
        held = self.workspace()
        url = None if held is None else held.get("writerUrl")
        return url if isinstance(url, str) else None

    # ---------------------------------------------------------------- revisions

    def difference(self, graph: WriteBatch) -> WriteBatch:
        """What writing the whole graph `graph` would change here (reads only)."""
        held = {r["id"]: r["rev"] for r in self._read(REVS)}
        return difference(graph, held)

    def write_all(
        self, batch: WriteBatch, changes: Sequence[Mapping[str, object]] = (), whole: WriteBatch | None = None
    ) -> None:
        """Write a first sync's difference `batch` and log `changes`: readers see none of it,
        then all of it. One transaction, or past its size a new generation made of `whole`
        (the whole graph `batch` was computed from)."""
        self.check_writable()
        if batch:
            self._write_plan(batch, atomic=True, changes=changes, whole=whole)

    def write_logged(self, batch: WriteBatch, changes: Sequence[Mapping[str, object]]) -> None:
        """Write `batch` and its change-log entry in the same transaction."""
        self.check_writable()
        self._write_plan(batch, atomic=True, changes=changes)

    def check_writable(self) -> None:
        if self.read_only:
            url = self.writer_url()
            where = f"the writer at {url}" if url else "the writer (`brain serve` without --read-only)"
            raise StoreReadOnly(
                f"this brain is a read-only replica of {self.describe()}: send writes to {where}"
            )

    # ---------------------------------------------------------------- change log

    def log_entry(self, changes: Sequence[Mapping[str, object]]) -> dict[str, Any] | None:
        """LOG_CHANGES' parameters for one batch's changes (None: nothing to log), written in
        the batch's own transaction. Its id makes it idempotent (a re-run commit)."""
        if not changes:
            return None
        return self._log_params(json.dumps(list(changes), ensure_ascii=False, separators=(",", ":")))

    def _log_params(self, changes: str) -> dict[str, Any]:
        """LOG_CHANGES' parameters for changes already in JSON (a JSON list)."""
        return {"batch": uuid.uuid4().hex, "at": time.time(), "keep": self.log_keep, "changes": changes,
                "txns": None, "sources": None}  # set by a write health can follow (store.py)

    def log_position(self) -> LogPosition:
        """The end of the log now: a replica that starts here gets the changes from now on."""
        found = self._read(LOG_POSITION)
        if not found:
            return LogPosition(None, 0)
        return LogPosition(found[0]["logId"], int(found[0]["seq"]))

    def changes_after(self, position: LogPosition, limit: int = 100) -> tuple[LogPosition, list[ChangeEntry]]:
        """The changes logged after `position`, and the position after them (one round trip)."""
        lookup = self._live.begin()  # the live set comes with the entries
        found = self._read(CHANGES_SINCE, logId=position.log_id, seq=position.seq, limit=limit)
        if not found:
            return LogPosition(None, 0), []  # no workspace node (yet, or any more)
        log_id = found[0]["logId"]
        seq = position.seq if log_id == position.log_id else 0  # a new log: the database was replaced
        entries: list[ChangeEntry] = []
        for entry in found[0]["entries"]:
            seq = int(entry["seq"])
            entries.extend(json.loads(entry["changes"]))
        if entries or log_id != position.log_id:
            # A switch may be among them: the live set read with them replaces any looked up
            # before (forgetting it instead made a replica's next read look it up again, in a
            # transaction of its own, after every poll that found a write: issue 43).
            self._live.renew(lookup, found[0]["live"])
            # An entry commits with its batch: whoever is told of these changes next (a
            # replica's subscribers) must get answers that show them, not kept older ones.
            self._reads.drop()
        else:  # nothing new: the live set as read now, kept for LIVE_TTL as any lookup
            self._live.saw(lookup, found[0]["live"])
        return LogPosition(log_id, seq), entries

    # ---------------------------------------------------------------- the writer lease

    _lease: WriterLease | None = None
    lease_seconds: float | None = None  # the operator's [store] neo4j_lease_seconds; None: the environment's
    _claimed: str | None = None  # the workspace this writer claimed the database for

    def take_lease(self, root: str) -> None:
        """Become this database's one writer, or raise StoreUnavailable naming the one there is."""
        if self._lease is None:
            self._lease = WriterLease(self._lease_commit, self.describe(), root, self.lease_seconds)
        self._lease.acquire()

    def release_lease(self) -> None:
        self._claimed = None
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.release()

    def _lease_commit(self, work: Callable[[ManagedTransaction, Any], Any], arg: Any) -> Any:
        with runtime_errors(self.uri), self._session() as session:
            return self._commit(session, work, arg, graph=False, keep_reads=True, keeps_live=True)

    # ---------------------------------------------------------------- helpers

    def _clear_shared(self) -> None:
        self._claimed = None  # the workspace node is gone: the next claim makes it again
        with self._session() as session:
            while self._commit(session, _clear_some, self.clear_rows, graph=False):
                pass

    def _write_query(self, query: str, **params: Any) -> list[Record]:
        with runtime_errors(self.uri), self._session() as session:
            return self._commit(session, _run, (query, params), graph=False)
