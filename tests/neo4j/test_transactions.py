"""How much each write costs: a full ingest is a handful of transactions, a change is one.

The store's `last_write` holds the summary counters of its last batch, so these tests see
exactly what Neo4j changed: an edited note touches its own links and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.workload import generate
from brain.service.brain import Brain
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note, reference_export

pytestmark = pytest.mark.neo4j


def test_a_full_ingest_of_a_thousand_notes_is_a_handful_of_transactions(
    neo4j_store: Neo4jStore, tmp_path: Path,
) -> None:
    generate(tmp_path / "w", notes=1_000, agents=8, seed=42)
    before = neo4j_store.transactions
    Brain(tmp_path / "w", neo4j_store).sync()
    assert neo4j_store.transactions - before <= 4  # one to clear, then writes of up to 25,000 rows
    assert neo4j_store.export() == reference_export(tmp_path / "w")


def changes(store: Neo4jStore) -> dict[str, int]:
    return {name: count for name, count in store.last_write.items() if count}


def test_each_incremental_change_is_one_transaction_touching_only_what_it_must(
    neo4j_store: Neo4jStore, tmp_path: Path,
) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[later]] [[later#Top]] [[c]]"))
    ws.write("memory/bot/c.md", note("c", "[[ghost]]"))
    ws.write("memory/bot/d.md", note("d", "[[c]]"))
    brain = ws.brain(neo4j_store)

    def step(*paths: str) -> dict[str, int]:
        before = neo4j_store.transactions
        brain.sync(list(paths))
        assert neo4j_store.transactions == before + 1
        assert neo4j_store.export() == reference_export(tmp_path)
        return changes(neo4j_store)

    # A new note: itself, its REMEMBERS edge and one link; the two links waiting for it move
    # from the Unresolved node to it, and the Unresolved node goes.
    added = step(ws.write("memory/bot/later.md", note("later", "# Top\n[[d]]")))
    assert added == {"nodes_created": 1, "relationships_created": 4, "relationships_deleted": 2,
                     "nodes_deleted": 1}

    # An edited note: its own links are replaced, no node is created or deleted.
    edited = step(ws.write("memory/bot/c.md", note("c, edited", "[[d]] [[a]]")))
    assert edited == {"relationships_created": 2, "relationships_deleted": 1, "nodes_deleted": 1}

    # A deleted note: it goes with its link and REMEMBERS edge; the two links to it now wait
    # on a new Unresolved node.
    deleted = step(ws.delete("memory/bot/d.md"))
    assert deleted == {"nodes_deleted": 1, "relationships_deleted": 4, "nodes_created": 1,
                       "relationships_created": 2}

    # A renamed note: a delete and an add in the same transaction.
    renamed = step(*ws.rename("memory/bot/a.md", "memory/bot/b.md"))
    assert renamed["nodes_created"] == 2  # the note under its new name, and Unresolved `a`
    assert renamed["nodes_deleted"] == 1
