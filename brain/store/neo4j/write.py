"""A WriteBatch as a few transactions of `UNWIND $rows` statements.

A batch becomes a list of units, in the order the embedded store applies it: nodes first
(so links have something to point at), then relinks (links of other notes moving to new or
away from deleted nodes), then the replaced outgoing links, then deletes. A unit is the
statements that must commit together, e.g. dropping a note's old links and creating its new
ones. Units are packed into transactions up to a row budget: an incremental change is one
transaction, a full ingest of 10,000 notes a handful. Inside a transaction statements run
by phase (upserts, relinks, drops, creates, deletes), which keeps each unit's order.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from neo4j import ManagedTransaction, Result

from brain.model import SHARED_SCOPE, Kind, Link, MemoryNode, is_note_id
from brain.store.base import BodySource, WriteBatch
from brain.store.neo4j import cypher
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.records import (
    agent_props,
    entity_props,
    file_props,
    link_props,
    memory_owner_id,
    memory_props,
)
from brain.store.neo4j.sharing.database import LOG_CHANGES, MARK_GRAPH
from brain.store.neo4j.sharing.lease import check_fence
from brain.store.neo4j.sharing.revs import REV, memory_rev, node_rev

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Statement:
    cypher: str
    params: dict[str, Any]
    rows: int
    phase: int  # order within a transaction: UPSERT, RELINK, DROP, CREATE, DELETE
    returns_orphans: bool = False  # rows of Unresolved ids that may have lost their last link


UPSERT, RELINK, DROP, CREATE, DELETE = range(5)


@dataclass(slots=True)
class Transaction:
    statements: list[Statement] = field(default_factory=list)
    rows: int = 0
    fence: str = ""  # the database, if the writer's lease is checked first (neo4j/sharing/lease.py)
    log: dict[str, Any] | None = None  # the change-log entry committed with it (LOG_CHANGES' params)
    token: str = ""  # a rebuild's switch: the rebuild it belongs to
    logs: list[dict[str, Any]] = field(default_factory=list)  # a switch's change-log entries
    staged: bool = False  # written onto the staged generation (brain/store/neo4j/generations/staged.py)
    # The graph token it stamps (mark_graph), chosen once so a run again stamps the same:
    # the writer then knows the token its commit left, and reads none back (readcache.py).
    graph: str = field(default_factory=lambda: uuid.uuid4().hex, compare=False)
    live: str | None = field(default=None, compare=False)  # the live set its fenced read found

    def forget_rows(self) -> None:
        """Empty the row lists of a committed transaction (each is its own: see _chunks).

        The driver keeps the parameters of every statement in its results, which sit in
        reference cycles (result, summary, hydration scope). A first sync pauses the cyclic
        collector and then freezes what is left (brain/gcpause.py), so without this it kept
        every row it wrote, for good: 0.6 GB at 100,000 notes.
        """
        for statement in self.statements:
            for value in statement.params.values():
                if isinstance(value, list):
                    value.clear()


@dataclass(frozen=True, slots=True)
class Limits:
    """Rows per statement and per transaction. A memory row weighs its body: ~2-3 KB."""

    node_rows: int = 5_000
    memory_rows: int = 1_000
    link_rows: int = 5_000
    transaction_rows: int = 25_000
    memory_weight: int = 4
    # A batch up to this many rows is one transaction (readers see it all at once); past it,
    # the server's heap decides: a new generation (brain/store/neo4j/generations/staged.py), of the
    # whole graph (a first sync) or of a copy of the live one with the batch written on it.
    atomic_rows: int = 400_000
    # A switch that relabels and drops up to this many nodes is one transaction (every reader
    # sees the old graph or the new); past it, pages (brain/store/neo4j/generations/switch.py). A node
    # weighs about a note's row: atomic_rows / memory_weight.
    switch_nodes: int = 100_000


def transactions(
    batch: WriteBatch, limits: Limits = Limits(), atomic: bool = False, staged: bool = False,
    bodies: BodySource | None = None,
) -> list[Transaction]:
    """The transactions that apply `batch`, in order; one if the batch is small, or `atomic`
    and within `limits.atomic_rows`. `staged`: onto the staged generation. `bodies`: where a
    note sent without its body has it (see `_units`)."""
    units = list(_units(batch, limits, bodies))
    if atomic and sum(s.rows for unit in units for s in unit) > limits.atomic_rows:
        atomic = False
    return list(_grouped(units, limits, atomic, staged))


def atomic_plan(
    batch: WriteBatch, limits: Limits = Limits(), bodies: BodySource | None = None
) -> list[Transaction] | None:
    """`batch` as one transaction (none if it has no statement), or None if it holds more
    than `limits.atomic_rows` rows. Its statements are built only up to that budget: a
    first sync of 100,000 notes is known too big without holding all of its rows."""
    units: list[list[Statement]] = []
    rows = 0
    for unit in _units(batch, limits, bodies):
        rows += sum(s.rows for s in unit)
        if rows > limits.atomic_rows:
            return None
        units.append(unit)
    return list(_grouped(units, limits, True, False))


def stream_transactions(
    batch: WriteBatch, limits: Limits = Limits(), staged: bool = False,
    bodies: BodySource | None = None,
) -> Iterator[Transaction]:
    """`transactions(batch, limits, staged=staged)`, each built when the one before was
    taken: a rebuild of the whole graph holds one transaction's rows, not every one
    (at 100,000 notes those were gigabytes on top of the notes)."""
    return _grouped(_units(batch, limits, bodies), limits, False, staged)


def _grouped(
    units: Iterable[list[Statement]], limits: Limits, atomic: bool, staged: bool
) -> Iterator[Transaction]:
    current = Transaction()
    for unit in units:
        if staged:
            unit = [replace(s, cypher=generation.staged(cypher.PLACEHOLDING.get(s.cypher, s.cypher)))
                    for s in unit]
        cost = sum(s.rows for s in unit)
        if current.statements and current.rows + cost > limits.transaction_rows and not atomic:
            yield _finished(current, staged)
            current = Transaction()
        current.statements.extend(unit)
        current.rows += cost
    if current.statements:
        yield _finished(current, staged)


def _finished(transaction: Transaction, staged: bool) -> Transaction:
    transaction.staged = staged
    # Phase order inside a transaction: a unit's drop still precedes its creates, and no
    # drop follows a create. (Dropping after thousands of creates in the same
    # transaction made each drop 50x slower.)
    transaction.statements.sort(key=lambda statement: statement.phase)
    return transaction


def _units(
    batch: WriteBatch, limits: Limits, bodies: BodySource | None = None
) -> Iterator[list[Statement]]:
    upserted = {m.id for m in batch.memories} | {a.id for a in batch.agents}
    upserted |= {e.id for e in batch.entities} | {f.id for f in batch.files}

    agents: list[dict[str, Any]] = [{"props": _with_rev(agent_props(a))} for a in batch.agents]
    for rows in _chunks(agents, limits.node_rows):
        yield [Statement(cypher.UPSERT_AGENTS, {"rows": rows, "shared": SHARED_SCOPE}, len(rows), UPSERT)]
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entity in batch.entities:
        by_label[entity.entity_kind.label].append({"props": _with_rev(entity_props(entity))})
    for label, entity_rows in sorted(by_label.items()):
        for rows in _chunks(entity_rows, limits.node_rows):
            yield [Statement(cypher.UPSERT_ENTITIES[label], {"rows": rows}, len(rows), UPSERT)]
    by_kind: dict[str, list[MemoryNode]] = defaultdict(list)
    for m in batch.memories:
        by_kind[m.note_kind.label].append(m)
    # Each memory's row is built with its chunk (not all at once: a rebuild streams them);
    # the revision its link drop stores is noted then, before any link unit is built.
    revs: dict[str, str] = {}
    for kind_label, memories in sorted(by_kind.items()):
        statement = cypher.UPSERT_NOTES.get(kind_label, cypher.UPSERT_MEMORIES)
        for group in _chunks(memories, limits.memory_rows):
            rows = [{"props": memory_props(_with_body(m, bodies)), "owner": memory_owner_id(m)}
                    for m in group]
            for row in rows:
                node_id = row["props"]["id"]
                if node_id in batch.links:
                    revs[node_id] = memory_rev(row["props"], row["owner"], batch.links[node_id])
            cost = len(rows) * limits.memory_weight
            yield [Statement(statement, {"rows": rows}, cost, UPSERT)]
    files: list[dict[str, Any]] = [{"props": _with_rev(file_props(f))} for f in batch.files]
    for rows in _chunks(files, limits.node_rows):
        yield [Statement(cypher.UPSERT_FILES, {"rows": rows}, len(rows), UPSERT)]

    for links in _chunks(batch.relinks, limits.link_rows):
        yield _link_statements(cypher.RELINKS, links, RELINK)

    # A memory deleted and upserted in one batch keeps no links but the batch's.
    replaced = dict(batch.links)
    for node_id in batch.deletes:
        if node_id in upserted and is_note_id(node_id):
            replaced.setdefault(node_id, [])
    for sources in _link_groups(replaced, limits.link_rows):
        # The drop stores each source's revision: in the transaction that writes its links.
        rows = [{"source": source, "rev": revs.get(source)} for source in sources]
        drop = Statement(cypher.DROP_LINKS, {"rows": rows}, len(sources), DROP, True)
        links = [link for source in sources for link in replaced[source]]
        yield [drop, *_link_statements(cypher.CREATE_LINKS, links, CREATE)]

    doomed: dict[str, list[str]] = defaultdict(list)
    for node_id in batch.deletes:
        doomed_label = _label_of(node_id)
        if node_id not in upserted and doomed_label in cypher.DELETE_NODES:
            doomed[str(doomed_label)].append(node_id)
    for label, ids in sorted(doomed.items()):
        for chunk in _chunks(ids, limits.node_rows):
            yield [Statement(cypher.DELETE_NODES[label], {"ids": chunk}, len(chunk), DELETE, True)]


# The lease's fence and the live set in one round trip (sharing/lease.py FENCE, staged.py
# LIVE): a change's transaction paid one round trip for each before its first statement,
# and the writer's round trips are where a write waits before a replica can read it.
FENCED_LIVE = (
    "OPTIONAL MATCH (l:BrainLease {key: 'writer'}) "
    f"OPTIONAL MATCH (g:{generation.LIVE_LABEL} {{key: 'brain'}}) "
    "RETURN l.holder AS holder, properties(l) AS props, g.labels AS labels"
)


def run_transaction(tx: ManagedTransaction, transaction: Transaction) -> Counter[str]:
    """The body of one managed write transaction; what it changed, by summary counter."""
    if transaction.fence:
        record = tx.run(FENCED_LIVE).single(strict=True)
        check_fence(record, transaction.fence)
        live: str | None = record["labels"]
    else:
        live = generation.live_labels(tx)
    transaction.live = live
    changed: Counter[str] = Counter()
    orphans: set[str] = set()
    for statement in transaction.statements:
        result = tx.run(generation.on(statement.cypher, live), statement.params)
        if statement.returns_orphans:
            for record in result:
                orphans.update(record["orphans"])
        _count(changed, result)
    if orphans:
        cleanup = cypher.CLEANUP_UNRESOLVED
        cleanup = generation.staged(cleanup) if transaction.staged else cleanup
        _count(changed, tx.run(generation.on(cleanup, live), {"ids": sorted(orphans)}))
    if transaction.log is not None:  # with the batch: an entry exists exactly if its data does
        # The stamp and the entry in one statement: one round trip less before a replica sees it.
        tx.run(MARK_AND_LOG, {**transaction.log, "graph": transaction.graph}).consume()
    else:
        mark_graph(tx, transaction.graph)
    return changed


_COUNTERS = ("nodes_created", "nodes_deleted", "relationships_created", "relationships_deleted")


def _count(changed: Counter[str], result: Result) -> None:
    counters = result.consume().counters
    changed.update({name: getattr(counters, name) for name in _COUNTERS})


def mark_graph(tx: ManagedTransaction, graph: str | None = None) -> None:
    """A new stamp with every write: a snapshot taken before it no longer matches
    (brain/store/neo4j/sharing/database.py, GRAPH_STAMP)."""
    tx.run(MARK_GRAPH, {"graph": graph or uuid.uuid4().hex}).consume()


# MARK_GRAPH, then LOG_CHANGES on the workspace node it matched: the entry reads the stamp's
# `writes`, as it did when the two were separate statements.
_LOG_BODY = LOG_CHANGES.strip().split("\n", 1)
assert _LOG_BODY[0] == "MATCH (w:BrainWorkspace {key: 'brain'})"
MARK_AND_LOG = f"{MARK_GRAPH}\nWITH w\n{_LOG_BODY[1]}"


def copy_page(
    tx: ManagedTransaction, page: tuple[str, tuple[str, ...], str, int, generation.Rewritten]
) -> str | None:
    """One page of the live generation copied onto the staged one (generation.COPY_STEPS):
    the ids of `label` after `after`, each statement run on them, leaving out what the batch
    rewrites; the last id, None at the end."""
    label, statements, after, limit, rewritten = page
    live = generation.live_labels(tx)
    page_ids = generation.on(generation.PAGE[label], live)
    ids = [r["id"] for r in tx.run(page_ids, {"after": after, "limit": limit})]
    parameters = rewritten.page(ids)
    for statement in statements if ids else ():  # each sent only the lists it reads
        params = {k: v for k, v in parameters.items() if f"${k}" in statement}
        tx.run(generation.on(statement, live), params).consume()
    return str(ids[-1]) if ids else None


def mark_staging(tx: ManagedTransaction, token: str) -> None:
    tx.run(generation.STAGING, {"token": token}).consume()


def drop_some(tx: ManagedTransaction, query_limit: tuple[str, int]) -> int:
    """Delete up to `limit` nodes of the generation that is not live (DROP_STAGED,
    DROP_STAGED_ORPHANS); how many went."""
    query, limit = query_limit
    result = tx.run(generation.on(query, generation.live_labels(tx)), {"limit": limit})
    return int(result.single(strict=True)["deleted"])


def clear_some(tx: ManagedTransaction, limit: int) -> int:
    """Delete up to `limit` of brain's nodes; how many went (0: none are left)."""
    return int(tx.run(cypher.CLEAR_SOME, {"limit": limit}).single(strict=True)["deleted"])


def _with_rev(props: dict[str, Any]) -> dict[str, Any]:
    return {**props, REV: node_rev(props)}


def _link_statements(statements: dict[str, str], links: Sequence[Link], phase: int) -> list[Statement]:
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for link in links:
        label = _label_of(link.target_id)
        if label is None:
            continue
        row = {"source": link.source, "target": link.target_id, "props": link_props(link)}
        if label == "Unresolved":
            row["name"] = link.target_id.split(":", 1)[1]
        by_label[label].append(row)
    return [
        Statement(statements[label], {"rows": rows}, len(rows), phase, phase == RELINK)
        for label, rows in sorted(by_label.items())
    ]


def _link_groups(replaced: dict[str, list[Link]], budget: int) -> Iterator[list[str]]:
    """Sources in groups whose links number about `budget` (a source is never split)."""
    group: list[str] = []
    rows = 0
    for source in sorted(replaced):
        size = len(replaced[source]) + 1
        if group and rows + size > budget:
            yield group
            group, rows = [], 0
        group.append(source)
        rows += size
    if group:
        yield group


def _label_of(node_id: str) -> str | None:
    try:
        return Kind.of_id(node_id).label
    except ValueError:
        return None


def _chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _with_body(memory: MemoryNode, bodies: BodySource | None) -> MemoryNode:
    """The note with its body: a first sync holds none of a note on disk (brain/ingest/ingester.py),
    and its file gives it as its row is built, one transaction's worth at a time."""
    if memory.body or bodies is None or not bodies.on_disk(memory):
        return memory
    return replace(memory, body=bodies.read(memory))
