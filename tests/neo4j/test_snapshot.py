"""A restart on Neo4j from the ingester's snapshot: nothing read, nothing written, never blind.

The snapshot of a Neo4j brain holds only the ingester's state and the stamp of the graph it
goes with (brain/store/neo4j/sharing/database.py, GRAPH_STAMP). These tests start real brains on a
real database with the snapshot on, and count what each start reads (files) and writes
(statements and commits at the driver).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from brain.model import AgentNode
from brain.service.brain import Brain
from brain.snapshot.keeper import SnapshotKeeper
from brain.store.base import WriteBatch
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import Login, StoreMaker
from tests.neo4j.faults import Injector
from tests.neo4j.test_restart import counted

pytestmark = pytest.mark.neo4j

FILES = 5  # in the workspace below, every one of them read by a full ingest


@pytest.fixture
def workspace(tmp_path: Path, make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """A small workspace, in the (otherwise empty) database, with its snapshot written."""
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[c#Top]] [[nowhere]]"))
    ws.write("memory/bot/b.md", note("b", "[[a]]"))
    ws.write("memory/shared/c.md", note("c", "# Top\n[[a]]"))
    ws.write("workflows/deploy.md", "# Deploy\n")
    age(ws)
    first = Brain(ws.root, make_store(), cache=True)
    assert first.sync().read == FILES
    first.close()  # waits for the snapshot
    assert keeper(first).writes == 1
    assert keeper(first).path.name.endswith(".neo4j.snapshot")  # not the embedded store's
    return ws


def age(ws: Workspace, seconds: float = 60.0, pattern: str = "**/*.md") -> None:
    """Files written a while ago: a snapshot distrusts files modified in its last seconds
    (brain/snapshot/image.py, distrust_recent), and a test writes them just before."""
    then = time.time() - seconds
    for path in ws.root.glob(pattern):
        os.utime(path, (then, then))


def keeper(brain: Brain) -> SnapshotKeeper:
    assert brain.snapshots is not None
    return brain.snapshots


def start(ws: Workspace, login: Login) -> tuple[Brain, Injector, int]:
    """A writer's start with the snapshot on: the brain, what it wrote, how many files it read."""
    injector = Injector()
    brain = Brain(ws.root, counted(login, injector), cache=True)
    return brain, injector, brain.sync().read


def test_an_unchanged_restart_reads_no_file_and_writes_nothing(
    workspace: Workspace, neo4j_login: Login
) -> None:
    brain, injector, read = start(workspace, neo4j_login)
    assert keeper(brain).loaded, keeper(brain).status
    assert read == 0
    assert (injector.runs, injector.commits) == (1, 1)  # the writer's lease, nothing of the graph
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()
    again, quiet, read = start(workspace, neo4j_login)  # and again: nothing new to snapshot
    assert keeper(again).loaded, keeper(again).status
    assert (read, quiet.commits) == (0, 1)
    again.close()


def test_a_file_changed_while_down_is_the_only_one_read(workspace: Workspace, neo4j_login: Login) -> None:
    workspace.write("memory/bot/b.md", note("b changed", "[[a]] [[nowhere]]"))
    age(workspace, 30, "memory/bot/b.md")
    brain, injector, read = start(workspace, neo4j_login)
    assert keeper(brain).loaded, keeper(brain).status
    assert read == 1
    assert injector.commits == 2  # the lease, then the change with its change-log entry
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()
    again, quiet, read = start(workspace, neo4j_login)  # the change is in the new snapshot
    assert (keeper(again).loaded, read, quiet.commits) == (True, 0, 1)
    again.close()


def test_a_graph_written_by_another_brain_makes_the_snapshot_stale(
    workspace: Workspace, neo4j_login: Login, make_store: StoreMaker
) -> None:
    # Another writer (no snapshot of its own) follows an edit; this brain's snapshot predates it.
    workspace.write("memory/bot/d.md", note("d", "[[a]]"))
    other = Brain(workspace.root, make_store())
    other.sync()
    other.close()
    brain, injector, read = start(workspace, neo4j_login)
    assert not keeper(brain).loaded, keeper(brain).status
    assert keeper(brain).status == "ignored: stale: the graph in the database changed since it was written"
    assert read == FILES + 1  # the whole workspace again
    assert injector.commits == 1  # which the database already holds: nothing to write
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()


def test_a_reset_database_is_ingested_again(
    workspace: Workspace, neo4j_login: Login, make_store: StoreMaker
) -> None:
    make_store().clear()
    brain, _, read = start(workspace, neo4j_login)
    assert not keeper(brain).loaded, keeper(brain).status
    # The writer's claim made the database its own again, with a stamp of its own.
    assert keeper(brain).status == "ignored: stale: the graph in the database changed since it was written"
    assert read == FILES
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()


def test_a_write_after_the_snapshot_makes_it_stale(workspace: Workspace, neo4j_login: Login) -> None:
    """Every transaction stamps the graph: a write the snapshot never saw (its writer died
    before writing one, or stopped after the first part) is never mistaken for its graph."""
    store = counted(neo4j_login, Injector())
    stamp = store.graph_stamp()
    assert stamp
    store.write_logged(WriteBatch(agents=[AgentNode("stray", "", True, False, None)]), [])
    assert store.graph_stamp() != stamp
    store.close()
    brain, _, read = start(workspace, neo4j_login)
    assert not keeper(brain).loaded, keeper(brain).status
    assert read == FILES
    assert isinstance(brain.store, Neo4jStore)
    assert brain.store.export() == reference_export(workspace.root)  # the stray agent is gone
    brain.close()
