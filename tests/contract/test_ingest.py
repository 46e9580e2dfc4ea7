"""A full ingest gives the same graph, and the same answer to every query, in both stores.

(The example workspace's: tests/contract/test_layouts.py, its latchai case.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.workload import generate
from brain.model import AgentNode, LinkStatus, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore, SharedStore, StoreUnavailable, WriteBatch
from tests.contract.helpers import Workspace, answers, note, reference, reference_export


def test_generated_workload_gives_the_same_graph_and_answers(store: GraphStore, tmp_path: Path) -> None:
    # 80 notes hold every kind the generator makes at 240 (each node label, edge type and
    # property, link status, problem code, non-empty filter and cut neighbourhood), and no
    # store batch or parallel parse starts below 1,000 rows: a third of the Neo4j reads
    # (answers() asks by path for every note), the same checks.
    info = generate(tmp_path / "workload", notes=80, agents=4, seed=7)
    brain = Brain(tmp_path / "workload", store)
    brain.sync()

    expected = reference(tmp_path / "workload")
    got, want = answers(store), answers(expected.store)  # the export is answers' first read
    graph = got["export"]
    assert graph == want["export"]
    assert len([row for row in graph.nodes if row[1] == "Memory"]) == info.notes
    assert got == want


def test_first_sync_replaces_whatever_the_store_held(store: GraphStore, tmp_path: Path) -> None:
    old = Workspace(tmp_path / "ws")
    old.write("memory/bot/stale.md", note("stale", "[[gone]] and [[also-gone]]"))
    old.brain(store)

    # The same folder, changed while no brain was running (Neo4j keeps its graph meanwhile).
    new = Workspace(tmp_path / "ws")
    shutil.rmtree(new.root / "memory" / "bot")
    new.write("memory/shared/fresh.md", note("fresh", "[[missing]]"))
    new.brain(store)

    assert store.export() == reference_export(new.root)
    assert store.get_nodes(["memory:bot/stale", "unresolved:gone", "agent:bot"]) == {}


def test_another_workspaces_graph_is_replaced_only_when_asked(store: GraphStore, tmp_path: Path) -> None:
    old = Workspace(tmp_path / "old")
    old.write("memory/bot/stale.md", note("stale", "[[gone]]"))
    old.brain(store)
    new = Workspace(tmp_path / "new")
    new.write("memory/shared/fresh.md", note("fresh", "[[missing]]"))
    if isinstance(store, SharedStore):  # a database outlives the process: it is refused first
        with pytest.raises(StoreUnavailable, match="holds the graph of workspace"):
            new.brain(store)
        assert store.export() == reference_export(old.root)
        store.replace_foreign = True
    new.brain(store)
    assert store.export() == reference_export(new.root)


def test_ingest_counts_and_statuses(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("agents/bot.md", "---\ndescription: The bot\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("A", "# Top\n[[b]] [[b#Top]] [[b#Nope]] [[shared/c|see c]] ![[w]]"))
    ws.write("memory/bot/b.md", note("B", "# Top\n[[nowhere]] [[twin]]"))
    ws.write("memory/shared/c.md", note("C", "[[bot/a]]"))
    ws.write("memory/shared/twin.md", note("twin", ""))
    ws.write("workflows/twin.yaml", "title: Twin flow\n")
    ws.write("workflows/w.yaml", "title: W\n")
    ws.brain(store)

    stats = store.stats()
    assert (stats.agents, stats.memories, stats.workflows) == (1, 4, 2)
    assert (stats.links, stats.broken, stats.missing_anchor, stats.unresolved) == (8, 1, 1, 1)
    statuses = [link.status for link in store.links_from(["memory:bot/a"])["memory:bot/a"]]
    assert statuses == [
        LinkStatus.RESOLVED, LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR,
        LinkStatus.RESOLVED, LinkStatus.RESOLVED,
    ]
    twin = store.links_from(["memory:bot/b"])["memory:bot/b"][1]
    assert (twin.status, twin.target_id) == (LinkStatus.RESOLVED, "memory:shared/twin")
    agent = store.get_nodes(["agent:bot"])["agent:bot"]
    assert agent == AgentNode("bot", "The bot", True, False, "agents/bot.md")
    assert store.export() == reference_export(tmp_path)


def test_an_empty_batch_changes_nothing(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/shared/a.md", note("A", "[[b]]"))
    ws.brain(store)
    before = store.export()
    store.write(WriteBatch())
    assert store.export() == before
    memory = store.get_nodes(["memory:shared/a"])["memory:shared/a"]
    assert isinstance(memory, MemoryNode)
    assert memory.description == "A"
