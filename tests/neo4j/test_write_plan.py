"""How a WriteBatch is cut into statements and transactions (pure: no server needed)."""

from __future__ import annotations

from pathlib import Path

from bench.workload import generate
from brain.model import Kind, MemoryNode
from brain.service import Brain
from brain.store import neo4j_cypher as cypher
from brain.store.base import WriteBatch
from brain.store.memory import MemoryStore
from brain.store.neo4j_write import CREATE, DROP, Limits, transactions


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
