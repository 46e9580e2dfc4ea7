"""The transactions of a switch: a staged generation becomes the graph under the documented labels.

People who chose Neo4j explore the graph by hand (Browser, Bloom, their own Cypher), so the
live graph is always under `Memory`, `Agent`, … (docs/neo4j.md, docs/cypher.md). A generation
is written under `BrainStaged…` labels that no documented query matches, then switched in by
relabelling (the statements: brain/store/neo4j/generations/staged.py, `relabel_steps`):

- up to `Limits.switch_nodes` nodes (new and old together) in one transaction: every reader,
  brain's or a hand-written query, sees the old graph or the new one;
- past that, page by page, since Neo4j has no atomic rename of a label set and one
  transaction that relabels a million nodes (and their full-text entries) outgrows the
  server's transaction memory. Brain's own reads stay whole: the first transaction points
  `BrainLive` at the staged labels, which the new nodes keep until the end, so brain reads the
  whole new generation while the documented labels change hands node by node; a hand-written
  query in that window may see part of each generation (docs/neo4j.md says so).

Every statement is idempotent, so a switch cut short is finished by the next writer's start.
"""

from __future__ import annotations

from collections import Counter

from neo4j import ManagedTransaction

from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.sharing.database import LOG_CHANGES
from brain.store.neo4j.sharing.lease import fence
from brain.store.neo4j.write import Transaction, mark_graph

EVERY = 2**62  # `$limit` of a statement run whole (an atomic switch)


def switch_size(tx: ManagedTransaction, prefix: str) -> int:
    """How many nodes switching the set `prefix` in relabels and drops."""
    return int(tx.run(generation.switch_size(prefix)).single(strict=True)["nodes"])


def _due(tx: ManagedTransaction, transaction: Transaction) -> bool:
    """Fenced by the lease, and not switched already (a re-run after a lost commit outcome)."""
    if transaction.fence:
        fence(tx, transaction.fence)
    return bool(tx.run(generation.SWITCH_ONCE, {"token": transaction.token}).single(strict=True)["due"])


def switch_at_once(tx: ManagedTransaction, transaction: Transaction) -> Counter[str]:
    """The staged generation relabelled, the old one deleted, with the change-log entries:
    one transaction, so every reader sees the old graph or the new one."""
    if _due(tx, transaction):
        for step in generation.relabel_steps(generation.STAGED_PREFIX):
            for statement in step:
                tx.run(statement, {"limit": EVERY}).consume()
        tx.run(generation.SWITCH, {"labels": ""}).consume()
        _logged(tx, transaction)
    return Counter()


def switch_reads(tx: ManagedTransaction, transaction: Transaction) -> Counter[str]:
    """The first transaction of a paged switch: brain's reads move to the staged labels,
    with the change-log entries (brain's readers see the new graph from here)."""
    if _due(tx, transaction):
        tx.run(generation.SWITCH, {"labels": generation.STAGED_PREFIX}).consume()
        _logged(tx, transaction)
    return Counter()


def _logged(tx: ManagedTransaction, transaction: Transaction) -> None:
    mark_graph(tx)
    for entry in transaction.logs:
        tx.run(LOG_CHANGES, entry).consume()


def relabel_page(tx: ManagedTransaction, page: tuple[str, str, int]) -> int:
    """One page of a step (`statement` on up to `limit` nodes), fenced; how many it did."""
    statement, describe, limit = page
    fence(tx, describe)
    return int(tx.run(statement, {"limit": limit}).single(strict=True)["done"])


def reads_back(tx: ManagedTransaction, describe: str) -> None:
    """Brain's reads back on the documented labels, which hold the whole new graph now."""
    fence(tx, describe)
    tx.run(generation.SWITCH, {"labels": ""}).consume()
    mark_graph(tx)
