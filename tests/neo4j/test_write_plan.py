"""How a WriteBatch is cut into statements and transactions (pure: no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.workload import generate
from brain.model import Kind, MemoryNode
from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.memory.store import MemoryStore
from brain.store.neo4j import cypher
from brain.store.neo4j import write as neo4j_write
from brain.store.neo4j.records import memory_props
from brain.store.neo4j.write import CREATE, DROP, Limits, atomic_plan, stream_transactions, transactions


def full_batch(root: Path, notes: int) -> WriteBatch:
    generate(root, notes=notes, agents=4, seed=9)
    store = MemoryStore()
    batches: list[WriteBatch] = []
    write = store.write
    store.write = lambda batch: (batches.append(batch), write(batch))[1]  # type: ignore[method-assign]
    Brain(root, store).sync()
    (batch,) = batches
    return batch


def test_a_small_batch_is_one_transaction(tmp_path: Path) -> None:
    plan = transactions(full_batch(tmp_path / "w", 40))
    assert len(plan) == 1
    phases = [s.phase for s in plan[0].statements]
    assert phases == sorted(phases)


def test_a_big_batch_is_cut_into_budgeted_transactions_keeping_units_whole(tmp_path: Path) -> None:
    batch = full_batch(tmp_path / "w", 300)
    limits = Limits(node_rows=50, memory_rows=40, link_rows=200, transaction_rows=600)
    plan = transactions(batch, limits)
    assert 4 <= len(plan) <= 20
    written: dict[str, int] = {}
    for transaction in plan:
        assert transaction.rows <= limits.transaction_rows
        phases = [s.phase for s in transaction.statements]
        assert phases == sorted(phases)
        drops = [s for s in transaction.statements if s.phase == DROP]
        dropped = {row["source"] for s in drops for row in s.params["rows"]}
        for statement in transaction.statements:
            assert len(statement.params.get("rows", statement.params.get("ids", ()))) <= 200
            if statement.phase == CREATE:
                sources = {row["source"] for row in statement.params["rows"]}
                assert sources <= dropped, "a note's new links commit with the drop of its old ones"
                for row in statement.params["rows"]:
                    written[row["source"]] = written.get(row["source"], 0) + 1
    assert written == {source: len(links) for source, links in batch.links.items() if links}


def test_each_link_goes_to_the_statement_of_its_target_label(tmp_path: Path) -> None:
    batch = full_batch(tmp_path / "w", 60)
    (transaction,) = transactions(batch)
    for statement in transaction.statements:
        if statement.phase != CREATE:
            continue
        label = next(k for k, v in cypher.CREATE_LINKS.items() if v is statement.cypher)
        assert {Kind.of_id(row["target"]).label for row in statement.params["rows"]} == {label}


def test_deleting_an_id_the_batch_also_upserts_only_drops_its_links() -> None:
    memory = MemoryNode("bot", "a", "memory/bot/a.md", "a", None, "h", 1, 1.0, "")
    plan = transactions(WriteBatch(memories=[memory], deletes=[memory.id, "memory:bot/gone", "bogus"]))
    (transaction,) = plan
    kinds = [(s.phase, s.cypher is cypher.DROP_LINKS) for s in transaction.statements]
    assert (DROP, True) in kinds
    deletes = [s.params["ids"] for s in transaction.statements if s.cypher in cypher.DELETE_NODES.values()]
    assert deletes == [["memory:bot/gone"]]
    assert transactions(WriteBatch()) == []


def test_an_atomic_plan_stops_building_rows_at_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 100,000 notes a first sync's rows were all built to learn that they did not fit one
    transaction (then built again for the rebuild): gigabytes held for nothing."""
    batch = full_batch(tmp_path / "w", 120)
    total = sum(t.rows for t in transactions(batch))
    within = Limits(atomic_rows=total)
    assert atomic_plan(batch, within) == transactions(batch, within, atomic=True)
    built: list[str] = []

    def counted(memory: MemoryNode) -> dict[str, object]:
        built.append(memory.id)
        return memory_props(memory)

    monkeypatch.setattr(neo4j_write, "memory_props", counted)
    assert atomic_plan(batch, Limits(memory_rows=10, memory_weight=1, atomic_rows=25)) is None
    assert 0 < len(built) <= 30 < len(batch.memories)  # three chunks of rows, not every memory
    assert atomic_plan(WriteBatch(deletes=["bogus"])) == []  # nothing to write is not too big


def test_a_streamed_rebuild_plan_is_the_listed_one(tmp_path: Path) -> None:
    batch = full_batch(tmp_path / "w", 200)
    limits = Limits(node_rows=50, memory_rows=40, link_rows=200, transaction_rows=600)
    streamed = list(stream_transactions(batch, limits, staged=True))
    assert len(streamed) > 3
    assert streamed == transactions(batch, limits, staged=True)
    assert all(t.staged for t in streamed)
