"""Faults injected at the driver boundary during ingest: the graph ends as if none happened.

The store writes a 45-note workspace in tiny transactions (20 of them, about 140 statements),
so a fault can land on the first, a middle or the last statement or commit. Retryable errors
are retried by the driver's managed transactions; a lost commit outcome is re-run by the store
(its statements are idempotent); a crash midway is healed by running the ingest again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.base import GraphExport, StoreUnavailable
from brain.store.neo4j.generations.staged import STAGED_LABELS
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import StoreMaker
from tests.neo4j.faults import Crash, Injector
from tests.neo4j.proxy import Proxy

pytestmark = pytest.mark.neo4j


def position(where: str, total: int) -> int:
    return {"first": 1, "middle": total // 2, "last": total}[where]


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("fault", ["service-unavailable", "transient", "commit-lost"])
def test_a_fault_during_ingest_leaves_the_same_graph(
    fault: str, where: str, workload: Path, workload_export: GraphExport, make_store: StoreMaker,
    baseline: Injector,
) -> None:
    assert baseline.commits >= 10, "the workspace should span many transactions"
    total = baseline.commits if fault == "commit-lost" else baseline.runs
    injector = Injector(fault, at=position(where, total), times=2)
    store = make_store(injector)
    Brain(workload, store).sync()

    assert injector.fired == 2
    assert store.export() == workload_export


@pytest.mark.parametrize("fault", ["service-unavailable", "transient", "commit-lost"])
def test_a_fault_during_an_incremental_change(
    fault: str, tmp_path: Path, make_store: StoreMaker,
) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[b]] [[c]]"))
    ws.write("memory/bot/c.md", note("c", "[[b#Top]]"))
    injector = Injector()
    store = make_store(injector)
    brain = ws.brain(store)

    # The change is one transaction: lose its commit, or fail its second statement.
    injector.fault = fault
    injector.at = injector.commits + 1 if fault == "commit-lost" else injector.runs + 2
    brain.sync([ws.write("memory/bot/b.md", note("b", "# Top\n[[a]]"))])

    assert injector.fired == 1
    assert store.export() == reference_export(tmp_path)


def test_a_crash_midway_then_a_new_run_ends_in_the_same_graph(
    workload: Path, workload_export: GraphExport, make_store: StoreMaker,
    baseline: Injector,
) -> None:
    crashing = Injector("crash", at=baseline.runs // 2)
    with pytest.raises(Crash):
        Brain(workload, make_store(crashing)).sync()
    # Too big for one transaction (SMALL limits), the ingest writes a new generation: half of
    # it is in the database, and readers see none of it.
    assert make_store().export() == GraphExport(frozenset(), frozenset())
    assert 0 < staged_nodes(make_store()) < len(workload_export.nodes)

    Brain(workload, make_store()).sync()  # `brain ingest` run again
    assert make_store().export() == workload_export
    assert staged_nodes(make_store()) == 0


def staged_nodes(store: Neo4jStore) -> int:
    label = "|".join(STAGED_LABELS)
    return int(store._read(f"MATCH (n:{label}) RETURN count(n) AS n")[0]["n"])


def test_connections_cut_for_real_midway(
    workload: Path, workload_export: GraphExport, proxy: Proxy, make_store: StoreMaker,
    baseline: Injector,
) -> None:
    cutting = Injector("cut", at=baseline.runs // 2, times=3, cut=proxy.cut)
    store = make_store(cutting, uri=proxy.uri)
    Brain(workload, store).sync()

    assert cutting.fired == 3
    assert store.export() == workload_export


def test_a_server_gone_for_longer_than_the_retries_is_one_clear_error(
    workload: Path, workload_export: GraphExport, proxy: Proxy, make_store: StoreMaker,
    baseline: Injector,
) -> None:
    gone = Injector("cut", at=baseline.runs // 2, cut=proxy.down)
    with pytest.raises(StoreUnavailable, match=rf"Neo4j at {proxy.uri} is unavailable: connection refused"):
        Brain(workload, make_store(gone, uri=proxy.uri, retry_seconds=0.5)).sync()

    proxy.up()
    store = make_store(uri=proxy.uri)
    Brain(workload, store).sync()
    assert store.export() == workload_export


def test_the_same_process_recovers_from_a_failed_sync(
    workload: Path, workload_export: GraphExport, make_store: StoreMaker, baseline: Injector,
) -> None:
    injector = Injector("crash", at=baseline.runs // 2)
    brain = Brain(workload, make_store(injector))
    with pytest.raises(Crash):
        brain.sync()
    injector.fault = None
    brain.sync()  # what a server's next rescan does
    assert brain.store.export() == workload_export


def test_a_change_lost_while_the_server_was_away_is_written_when_it_returns(
    tmp_path: Path, proxy: Proxy, make_store: StoreMaker,
) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    brain = ws.brain(make_store(uri=proxy.uri, retry_seconds=0.5))

    proxy.down()
    with pytest.raises(StoreUnavailable):
        brain.sync([ws.write("memory/bot/b.md", note("b", "[[a]] [[c]]"))])
    proxy.up()
    brain.sync([ws.write("memory/bot/c.md", note("c"))])  # the next change, or a rescan
    assert brain.store.export() == reference_export(tmp_path)
