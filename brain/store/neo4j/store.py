"""The Neo4j store: the GraphStore interface on the official driver, equal to the embedded one.

One driver per process; every call names its database. Reads go through
`Driver.execute_query` routed as reads; writes are `execute_write` functions over
`UNWIND $rows` statements (brain/store/neo4j/write.py), so the driver retries transient
failures, and every statement is safe to run twice, so the store itself re-runs a
transaction whose commit outcome was lost. Cypher lives in brain/store/neo4j/cypher.py.

Results are built as the embedded store builds them: tests/contract runs every behaviour on both.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from neo4j import Driver, GraphDatabase, ManagedTransaction, RoutingControl, Session
from neo4j import NotificationDisabledClassification as Notices
from neo4j.exceptions import IncompleteCommit

from brain import __version__
from brain.model import (
    AgentNode,
    Anchors,
    EntityNode,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Node,
    Problem,
    Stats,
    is_note_id,
    memory_id,
    name_key,
    sorted_problems,
)
from brain.resolve import NameEntry
from brain.store.base import (
    EdgeRow,
    GraphExport,
    MemoryFilter,
    NodeRow,
    WriteBatch,
    link_problem,
    link_row,
    memory_off_problem,
    node_row,
)
from brain.store.memory.image import StoreImage
from brain.store.neo4j import cypher, schema
from brain.store.neo4j.errors import connect_errors, runtime_errors
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.generations.live import LIVE_TTL, LiveSet
from brain.store.neo4j.generations.rebuild import Neo4jGenerations
from brain.store.neo4j.health.counters import Neo4jHealth, follow_params
from brain.store.neo4j.reads.around import Neo4jAround
from brain.store.neo4j.reads.backlinks import Neo4jBacklinks
from brain.store.neo4j.reads.keptnodes import KeptNodes
from brain.store.neo4j.reads.link_targets import Neo4jLinkTargets
from brain.store.neo4j.reads.readcache import KeptReads, ReadCache, chars
from brain.store.neo4j.reads.views import Neo4jViews
from brain.store.neo4j.records import (
    KIND_OF_LABEL,
    agent_from,
    anchors_from,
    entity_from,
    link_from,
    memory_from,
    node_from,
    problems_from,
)
from brain.store.neo4j.search import Neo4jSearch, put_vectors
from brain.store.neo4j.sharing.database import Neo4jShared
from brain.store.neo4j.write import Limits, atomic_plan, clear_some, run_transaction, transactions
from brain.store.visibility import EVERYTHING, Reach

log = logging.getLogger(__name__)
A = TypeVar("A")
R = TypeVar("R")
DEFAULT_DATABASE = "neo4j"


class Neo4jStore(
    KeptReads, Neo4jShared, Neo4jSearch, Neo4jGenerations, Neo4jHealth, Neo4jBacklinks, Neo4jViews,
    Neo4jLinkTargets, Neo4jAround,
):
    """A complete GraphStore in one database of a Neo4j 5 server.

    brain owns the nodes labelled Memory, Agent, Workflow, Chat, WorkItem and Unresolved in
    that database, and BrainWorkspace and BrainChange (brain/store/neo4j/sharing/database.py):
    `clear()` deletes them and nothing else. A full ingest does not clear: it writes the
    difference (brain/store/neo4j/sharing/revs.py).
    """

    limits = Limits()
    commit_retries = 3
    clear_rows = 10_000
    # Seconds the replaced generation stays after a switch: a read may begin on it up to
    # LIVE_TTL later (brain/store/neo4j/generations/live.py), and runs in well under a second.
    switch_grace = 1.0 + LIVE_TTL

    def __init__(
        self, driver: Driver, database: str = DEFAULT_DATABASE, uri: str = "", *, read_only: bool = False
    ) -> None:
        self._driver = driver
        self.database = database
        self.uri = uri or "the configured URI"
        self.read_only = read_only
        self.transactions = 0  # write transactions committed, for benchmarks and tests
        self.schema_statements = 0  # schema statements the last ensure_schema ran, for tests
        self.rebuilds = 0  # generations switched in (brain/store/neo4j/generations/staged.py)
        self.last_rebuild: dict[str, float] = {}  # its phases' seconds, for benchmarks
        self.last_write: Counter[str] = Counter()  # what the last write() changed, by counter
        self._live = LiveSet()
        self._init_health()  # memory health's counters (brain/store/neo4j/health/counters.py)
        self._reads = ReadCache(self._graph_token)  # answers kept until the graph changes
        self._nodes = KeptNodes(self._reads, self._read_nodes)  # nodes kept built, one by one
        self._bare_nodes = KeptNodes(self._reads, self._read_bare_nodes)  # the same, bodies ""

    @classmethod
    def connect(
        cls,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        *,
        retry_seconds: float = 15.0,
        read_only: bool = False,
        atomic_rows: int | None = None,
        lease_seconds: float | None = None,
    ) -> Neo4jStore:
        """Connect, check the server, the credentials and the database, and set up the schema.

        A `read_only` store (a replica) writes nothing, not even the schema: the writer made it.
        `atomic_rows`, `lease_seconds`: the operator's `[store] neo4j_atomic_rows` (a smaller
        server heap) and `neo4j_lease_seconds` (None: the environment's, brain/store/neo4j/sharing/lease.py).
        Raises StoreUnavailable with one line a user can act on.
        """
        database = database or DEFAULT_DATABASE
        with connect_errors(uri, user, database):
            driver = GraphDatabase.driver(
                uri,
                auth=(user, password or "") if user else None,
                max_transaction_retry_time=retry_seconds,
                connection_timeout=10.0,
                connection_acquisition_timeout=30.0,
                user_agent=f"brain/{__version__}",
                # "The property `rev` does not exist": a new database has not seen every name
                # brain's queries read yet. Not a user's to act on; other notices still show.
                notifications_disabled_classifications=[Notices.UNRECOGNIZED],
            )
        store = cls(driver, database, uri, read_only=read_only)
        store.lease_seconds = lease_seconds
        if atomic_rows:  # a smaller server heap; tests and benchmarks of rebuilds, and a switch
            # of a quarter of it, in nodes, at once
            store.limits = replace(cls.limits, atomic_rows=atomic_rows, switch_nodes=atomic_rows // 4)
        try:
            with connect_errors(uri, user, database):
                driver.verify_connectivity()
                if read_only:  # the database must exist: asked for in a read
                    driver.execute_query(cypher.PING, database_=database, routing_=RoutingControl.READ)
                else:
                    store.ensure_schema()
        except BaseException:
            driver.close()
            raise
        return store

    def ensure_schema(self) -> None:
        """The constraints and indexes the database lacks (brain/store/neo4j/schema.py), then
        wait until the indexes are online."""
        # (No notifications: a constraint made meanwhile would log "already exists".)
        with self._driver.session(database=self.database, notifications_min_severity="OFF") as session:
            self.schema_statements = schema.ensure(session, cypher.SCHEMA)
            session.run(cypher.AWAIT_INDEXES, {"seconds": 300}).consume()

    def close(self) -> None:
        self._health_tally_settle()  # (brain/store/neo4j/health/tally.py)
        self.release_lease()
        self._driver.close()

    # ------------------------------------------------------------------ writes

    def write(self, batch: WriteBatch) -> None:
        self._write_plan(batch, atomic=True)

    def _write_plan(
        self, batch: WriteBatch, atomic: bool, changes: Sequence[Mapping[str, object]] = (),
        whole: WriteBatch | None = None,
    ) -> None:
        """Write `batch` (one transaction up to `limits.atomic_rows`), with its change-log
        entry in the (last) transaction; past that size, a rebuild from `whole` if given."""
        self.check_writable()
        self.last_write = Counter()
        # Atomic: built only up to the budget of one transaction (past it, no row is kept).
        plan = (atomic_plan(batch, self.limits, self._bodies) if atomic
                else transactions(batch, self.limits, bodies=self._bodies))
        if plan is None:
            # Too big for one transaction: a new generation, made of the whole graph if the
            # caller has it (a first sync), else of a copy of the live one with `batch` on it.
            self._health_forget()
            self._rebuild(whole if whole is not None else batch, self.log_entry(changes),
                          copy_live=whole is None)
            return
        if not plan:
            return
        entry = self.log_entry(changes)
        if entry is not None:  # what another process's health counters follow it by
            entry.update(follow_params(batch, len(plan)))
        for transaction in plan:
            transaction.fence = self.describe()
        plan[-1].log = entry
        with self._health_step(batch), runtime_errors(self.uri), self._session() as session:
            for transaction in plan:
                begun = self._live.begin()
                self.last_write.update(self._commit(session, run_transaction, transaction, keeps_live=True))
                # The writer knows what its commit left: the live set it read under its fence
                # and the token it stamped. Taken as read, they spare the next reads (the next
                # sync's, the writer's GraphQL) a round trip each (issue 43: at 16 writes/s,
                # more than half of a sync's round trips were these reads).
                self._live.saw(begun, transaction.live)
                self._reads.wrote(transaction.graph)
                transaction.forget_rows()

    def _write_vectors(self, rows: list[dict[str, Any]]) -> None:
        self.check_writable()
        with runtime_errors(self.uri), self._session() as session:
            # No kept answer holds a vector.
            self._commit(session, put_vectors, rows, keep_reads=True, keeps_live=True)

    def clear(self) -> None:
        self.check_writable()
        self._health_forget()
        with runtime_errors(self.uri), self._session() as session:
            while self._commit(session, clear_some, self.clear_rows):
                pass
        with runtime_errors(self.uri):
            self._clear_shared()

    def _session(self) -> Session:
        return self._driver.session(
            database=self.database,
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def _commit(
        self, session: Session, work: Callable[[ManagedTransaction, A], R], arg: A, *, graph: bool = True,
        keep_reads: bool = False, keeps_live: bool = False,
    ) -> R:
        """One managed write transaction; run again if its commit outcome was lost.

        `graph`: it writes the graph (counted in `transactions`), not the change log or identity;
        `keep_reads`: it changes no kept answer (brain/store/neo4j/reads/readcache.py): the lease, vectors;
        `keeps_live`: it cannot switch the live set (a change written onto the live labels, the
        lease, vectors), so the set looked up stays good: forgetting it after every small write
        cost each read of the next sync, and the writer's next GraphQL reads, one more round trip.
        """
        for attempt in range(1, self.commit_retries + 2):
            try:
                result = session.execute_write(work, arg)
            except IncompleteCommit:
                # Committed or not: every statement is idempotent, so running the
                # transaction again ends in the same state either way.
                if attempt > self.commit_retries:
                    raise
                log.warning("commit outcome unknown; running the transaction again (%d)", attempt)
                continue
            self.transactions += graph
            if not keeps_live:
                self._live.forget()  # it may have switched the live set: look it up again
            if not keep_reads:
                self._reads.drop()
            return result
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ snapshot

    def contents(self) -> StoreImage:
        """Nothing: the database keeps the graph between starts. A snapshot holds only the
        ingester's state, and `graph_stamp()`, the graph it goes with (brain/snapshot/image.py)."""
        return StoreImage()

    def restore(self, image: StoreImage) -> None:
        """Nothing to restore: the snapshot was found to go with the graph the database holds."""

    # ------------------------------------------------------------------ reads

    staged_reads = False  # a staged store's reads: on the BrainStaged… labels (neo4j/reads/readcache.py)

    def _is_empty(self) -> bool:
        """Whether the live generation holds no node (a database brain has not written)."""
        return not self._read(cypher.ANY_NODE)

    def _staged_store(self) -> Neo4jStore:
        staged = StagedNeo4jStore(self._driver, self.database, self.uri)
        staged.limits, staged._bodies = self.limits, self._bodies
        staged._reads = self._reads  # its commits (a switch among them) drop this store's answers
        return staged

    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]:
        if not keys:
            return {}
        found: dict[str, list[NameEntry]] = defaultdict(list)
        for r in self._read(cypher.NAME_ENTRIES, keys=sorted(set(keys))):
            found[r["key"]].append(NameEntry(r["id"], Kind.of_id(r["id"]), r["key"], r["scope"]))
        return {key: sorted(entries, key=lambda e: e.id) for key, entries in found.items()}

    def links_with_keys(self, keys: Collection[str]) -> list[Link]:
        ordered = list(keys)
        if not ordered:
            return []
        by_key: dict[str, list[Link]] = defaultdict(list)
        for r in self._read(cypher.LINKS_WITH_KEYS, keys=sorted(set(ordered))):
            link = link_from(r["source"], r["target"], r["props"])
            by_key[link.key].append(link)
        for links in by_key.values():
            links.sort(key=lambda link: (link.source, link.ordinal))
        return [link for key in ordered for link in by_key.get(key, ())]

    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]:
        if not ids:
            return {}
        return {r["id"]: anchors_from(r["props"]) for r in self._read(cypher.ANCHORS, ids=sorted(set(ids)))}

    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
        kept = self._nodes if bodies else self._bare_nodes
        return kept.get(ids, keep=not self.staged_reads) if ids else {}

    def _read_nodes(self, ids: list[str], query: str = cypher.GET_NODES) -> dict[str, tuple[Node, int]]:
        records = self._read_database(query, {"ids": ids})  # not kept as records: keptnodes
        return {r["props"]["id"]: (node_from(r["label"], r["props"]), chars(r["props"])) for r in records}

    def _read_bare_nodes(self, ids: list[str]) -> dict[str, tuple[Node, int]]:
        return self._read_nodes(ids, cypher.GET_NODES_NO_BODY)

    def find_memory(self, scope: str, name: str) -> MemoryNode | None:
        exact = self._read(cypher.MEMORY_BY_ID, id=memory_id(scope, name))
        if exact:
            return memory_from(exact[0]["props"])
        matches = [
            r["props"] for r in self._read(cypher.MEMORIES_BY_KEY, key=name_key(name))
            if name_key(r["props"]["scope"]) == name_key(scope)
        ]
        return memory_from(matches[0]) if len(matches) == 1 else None

    def memory_by_path(self, path: str) -> MemoryNode | None:
        found = self._read(cypher.MEMORY_BY_PATH, path=path)
        return memory_from(found[0]["props"]) if found else None

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        query, params = cypher.list_memories(where, after, limit, bodies)
        return [memory_from(r["props"]) for r in self._read(query, **params)]

    def count_memories(self, where: MemoryFilter) -> int:
        query, params = cypher.count_memories(where)
        return int(self._read(query, **params)[0]["n"])

    def memory_type_counts(self, scopes: Collection[str]) -> dict[str, dict[str | None, int]]:
        counts: dict[str, dict[str | None, int]] = {scope: {} for scope in scopes}
        if counts:
            for r in self._read(cypher.MEMORY_TYPE_COUNTS, scopes=sorted(counts)):
                counts[r["scope"]][r["type"]] = int(r["n"])
        return counts

    def memory_scopes(self) -> dict[str, int]:
        return {r["scope"]: int(r["n"]) for r in self._read(cypher.MEMORY_SCOPES)}

    def list_agents(self) -> list[AgentNode]:
        agents = [agent_from(r["props"]) for r in self._read(cypher.LIST_AGENTS)]
        return sorted(agents, key=lambda a: a.name)

    def list_entities(self, kind: Kind) -> list[EntityNode]:
        query = cypher.LIST_ENTITIES.get(kind.label)
        if query is None:
            return []
        return sorted((entity_from(kind, r["props"]) for r in self._read(query)), key=lambda e: e.id)

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        out: dict[str, list[Link]] = {i: [] for i in ids}
        sources = sorted(i for i in out if is_note_id(i))  # daily notes, skills, tools too
        if sources:
            for r in self._read(cypher.LINKS_FROM, ids=sources):
                out[r["source"]].append(link_from(r["source"], r["target"], r["props"]))
        for links in out.values():
            links.sort(key=lambda link: link.ordinal)
        return out

    def links_to(self, ids: Collection[str]) -> dict[str, list[Link]]:
        out: dict[str, list[Link]] = {i: [] for i in ids}
        if out:
            for r in self._read(cypher.LINKS_TO, ids=sorted(out)):
                out[r["target"]].append(link_from(r["source"], r["target"], r["props"]))
        for links in out.values():
            links.sort(key=lambda link: (link.source, link.ordinal))
        return out

    def problems(self, paths: Collection[str] | None = None, reach: Reach = EVERYTHING) -> list[Problem]:
        scopes = reach.scope_list()
        if paths is None:
            records = self._read(cypher.PROBLEMS, scopes=scopes)
        elif not paths:
            return []
        else:
            records = self._read(cypher.PROBLEMS_AT, paths=sorted(set(paths)), scopes=scopes)
        found: list[Problem] = []
        for r in records:
            found.extend(problems_from(r["problems"]))
            links = sorted(
                (link_from(r["id"], x["target"], x["props"]) for x in r["links"]),
                key=lambda link: link.ordinal,
            )
            found.extend(p for p in (link_problem(r["path"], reach.link(link)) for link in links) if p)
        for r in self._read(cypher.MEMORY_OFF_AGENTS):
            agent = agent_from(r["props"])
            problem = memory_off_problem(agent)
            if (paths is None or problem.path in paths) and reach.sees_agent(agent.name):
                found.append(problem)
        return sorted_problems(found)

    def stats(self) -> Stats:
        r = self._read(cypher.STATS)[0]
        links = {x["status"]: int(x["n"]) for x in r["links"] if x["status"] is not None}
        return Stats(
            agents=r["agents"],
            memories=r["memories"],
            links=sum(links.values()),
            broken=links.get(LinkStatus.BROKEN.value, 0),
            ambiguous=links.get(LinkStatus.AMBIGUOUS.value, 0),
            missing_anchor=links.get(LinkStatus.MISSING_ANCHOR.value, 0),
            unresolved=r["unresolved"],
            workflows=r["workflows"],
            chats=r["chats"],
            work_items=r["work_items"],
        )

    def export(self) -> GraphExport:
        nodes: set[NodeRow] = set()
        for r in self._read(cypher.EXPORT_NODES):
            label = next(x for x in map(generation.unstaged, r["labels"]) if x in KIND_OF_LABEL)
            nodes.add(node_row(node_from(label, r["props"])))
        edges: set[EdgeRow] = {
            link_row(link_from(r["source"], r["target"], r["props"]))
            for r in self._read(cypher.EXPORT_LINKS)
        }
        edges |= {("REMEMBERS", r["agent"], r["memory"], ()) for r in self._read(cypher.EXPORT_REMEMBERS)}
        return GraphExport(frozenset(nodes), frozenset(edges))


class StagedNeo4jStore(Neo4jStore):
    """The generation a first sync writes in parts (brain/store/neo4j/generations/rebuild.py): reads and
    writes on the set of labels that is not live, so no reader sees it until the switch."""

    staged_reads = True

    def write(self, batch: WriteBatch) -> None:
        self.write_staged(batch)

    def close(self) -> None:
        """Nothing: the driver is the live store's."""
