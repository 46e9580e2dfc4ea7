"""Neo4j without wipes: a restart writes only the difference, all at once, to its own workspace.

Writes are counted twice: at the driver (every statement of every write transaction, through
the fault injector's counting driver) and in the database itself (a bookmark read from a
fresh driver names the last committed transaction: any write moves it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from neo4j import Driver, GraphDatabase

from brain.cli.check_store import open_check
from brain.cli.main import build_parser
from brain.ingest import ingester as ingest
from brain.ingest import parse_helpers
from brain.ingest.parts import PartWriter
from brain.service.brain import Brain
from brain.store.base import StoreUnavailable
from brain.store.linking import NoteChange
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.faults import Crash, FaultyDriver, Injector

pytestmark = pytest.mark.neo4j


def last_commit(login: Login) -> str:
    """The database's own record of its last committed transaction (a bookmark)."""
    uri, user, password, database = login
    with (
        GraphDatabase.driver(uri, auth=(user, password or "") if user else None) as driver,
        driver.session(database=database) as session,
    ):
        session.execute_read(lambda tx: tx.run("RETURN 1").consume())
        return str(sorted(session.last_bookmarks().raw_values))


DEFAULT = Limits()


def counted(login: Login, injector: Injector, limits: Limits = DEFAULT) -> Neo4jStore:
    store = Neo4jStore(cast(Driver, FaultyDriver(driver_for(login), injector)), login[3], login[0])
    store.limits = limits
    return store


@pytest.fixture
def workspace(tmp_path: Path, make_store: StoreMaker) -> Workspace:
    """A small workspace, already in the (otherwise empty) database."""
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[c#Top]] [[nowhere]]"))
    ws.write("memory/bot/b.md", note("b", "[[a]]"))
    ws.write("memory/shared/c.md", note("c", "# Top\n[[a]]"))
    ws.write("workflows/deploy.md", "# Deploy\n")
    store = make_store()
    Brain(ws.root, store).sync()
    store.close()
    return ws


def restart(ws: Workspace, login: Login, limits: Limits = DEFAULT) -> tuple[Brain, Injector]:
    injector = Injector()
    brain = Brain(ws.root, counted(login, injector, limits))
    brain.sync()
    return brain, injector


def test_a_restart_on_an_unchanged_workspace_writes_nothing(workspace: Workspace, neo4j_login: Login) -> None:
    brain, injector = restart(workspace, neo4j_login)
    assert (injector.runs, injector.commits) == (1, 1)  # the writer's lease, nothing of the graph
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()


def test_a_restart_writes_only_what_changed_while_it_was_away(
    workspace: Workspace, neo4j_login: Login
) -> None:
    workspace.write("memory/bot/b.md", note("b changed", "[[a]] [[nowhere]]"))
    workspace.delete("workflows/deploy.md")
    workspace.write("memory/bot/d.md", note("d"))
    changes: list[str] = []
    brain = Brain(workspace.root, counted(neo4j_login, injector := Injector()))
    brain.subscribe(lambda change: changes.append(f"{change.kind} {change.id}"))
    brain.sync()
    assert injector.commits == 2  # the lease, then the difference with its change-log entry
    assert sorted(changes) == ["added memory:bot/d", "changed memory:bot/b", "deleted workflow:deploy"]
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()


def test_a_relinked_note_is_rewritten_by_the_next_restart(workspace: Workspace, neo4j_login: Login) -> None:
    running, _ = restart(workspace, neo4j_login)
    running.sync([workspace.write("memory/shared/nowhere.md", note("now here"))])  # relinks a
    running.close()
    brain, injector = restart(workspace, neo4j_login)
    assert injector.commits == 2
    assert isinstance(brain.store, Neo4jStore)
    assert brain.store.export() == reference_export(workspace.root)
    again, quiet = restart(workspace, neo4j_login)
    assert quiet.commits == 1  # the lease only
    brain.close()
    again.close()


def test_a_difference_is_all_or_nothing_for_readers(workspace: Workspace, neo4j_login: Login) -> None:
    old = reference_export(workspace.root)
    for name in "efghijk":
        workspace.write(f"memory/bot/{name}.md", note(name, "[[a]] [[b]]"))
    workspace.write("memory/bot/a.md", note("a again", "[[e]]"))
    # Small statements, so the difference spans many of them; a crash in the middle.
    small = Limits(node_rows=2, memory_rows=2, link_rows=4, transaction_rows=8)
    crashing = Injector("crash", at=4)
    with pytest.raises(Crash):
        Brain(workspace.root, counted(neo4j_login, crashing, small)).sync()
    probe = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    assert probe.export() == old  # nothing of it was committed
    brain, injector = restart(workspace, neo4j_login, small)
    assert injector.commits == 2
    assert brain.store.export() == reference_export(workspace.root)
    brain.close()
    probe.close()


def test_another_workspaces_graph_is_refused_then_replaced_on_request(
    workspace: Workspace, neo4j_login: Login, tmp_path: Path
) -> None:
    other = Workspace(tmp_path / "other")
    other.write("memory/shared/x.md", note("x"))
    before = last_commit(neo4j_login)
    store = counted(neo4j_login, Injector())
    with pytest.raises(StoreUnavailable) as refused:
        Brain(other.root, store).sync()
    message = str(refused.value)
    assert f"holds the graph of workspace {workspace.root.resolve()}" in message
    assert f"not of {other.root.resolve()}" in message
    assert "--neo4j-replace" in message
    assert "--neo4j-database" in message
    assert last_commit(neo4j_login) == before

    store.replace_foreign = True
    Brain(other.root, store).sync()
    assert store.export() == reference_export(other.root)
    store.close()


def brain_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})


def store_args(login: Login) -> list[str]:
    uri, user, password, database = login
    args = ["--store", "neo4j", "--neo4j-uri", uri, "--neo4j-database", database]
    return args + (["--neo4j-user", user, "--neo4j-password", password or ""] if user else [])


def test_check_beside_a_writer_compares_and_writes_nothing(workspace: Workspace, neo4j_login: Login) -> None:
    before = last_commit(neo4j_login)
    checked = brain_cli("check", str(workspace.root), *store_args(neo4j_login))
    assert checked.returncode == 1, checked.stderr  # the workspace has a broken link
    assert "is in step with these files" in checked.stderr
    workspace.write("memory/bot/b.md", note("b on disk only"))
    differs = brain_cli("check", str(workspace.root), *store_args(neo4j_login))
    assert "differs from these files in 1 nodes" in differs.stderr
    assert last_commit(neo4j_login) == before


def test_check_compares_the_whole_graph_from_parts_and_from_the_snapshot(
    workspace: Workspace, neo4j_login: Login, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The first check's graph comes in parts (a big workspace's), the second from the startup
    snapshot with one file read: both compare the whole graph with the database."""
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "1")
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parse_helpers, "CHUNK", 1)
    monkeypatch.setattr(PartWriter, "size", 1)
    monkeypatch.setattr(ingest, "MEMORY_PART", 1)  # the check's graph is an embedded store's
    parts: list[int] = []
    write = PartWriter.write

    def counting(self: PartWriter, notes: list[NoteChange]) -> None:
        parts.append(len(notes))
        write(self, notes)

    monkeypatch.setattr(PartWriter, "write", counting)
    args = build_parser().parse_args(["check", str(workspace.root), *store_args(neo4j_login)])

    def check() -> tuple[str, int]:
        compared = open_check(args)
        try:
            result = compared.brain.sync()
            return compared.summary(), result.read
        finally:
            compared.brain.close()  # writes the snapshot
            compared.close()

    summary, read = check()
    assert (summary.endswith("is in step with these files"), read) == (True, 5)
    assert len(parts) >= 2
    workspace.write("memory/bot/b.md", note("b on disk only"))
    summary, read = check()
    assert read == 1  # the snapshot's graph, b.md read again
    assert summary.endswith(f"differs from these files in 1 nodes: the writer (`brain serve "
                            f"{workspace.root.resolve()} --store neo4j`) brings it in step as it "
                            "follows the files")


@pytest.mark.parametrize("example", ["space", "mindlink", "lab"])
def test_a_restart_of_every_layout_writes_nothing(
    example: str, tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    """Every node kind a layout adds (File, DailyNote, Skill, Tool) carries its revision: a
    kind left out of the comparison would be rewritten, or never written, on every start."""
    root = tmp_path / example
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / example, root)
    store = make_store()
    Brain(root, store).sync()
    store.close()
    injector = Injector()
    brain = Brain(root, counted(neo4j_login, injector))
    brain.sync()
    assert (injector.runs, injector.commits) == (1, 1)  # the writer's lease, nothing of the graph
    reference = Brain(root)
    reference.sync()
    assert brain.store.export() == reference.store.export()
    brain.close()
