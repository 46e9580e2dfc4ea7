"""The live graph is always under the documented labels (issue 42, item 1).

People explore the graph by hand (Neo4j Browser, Bloom, their own Cypher): `MATCH (m:Memory)`
must find the notes after a first sync, a rebuild, a restart, a replace and a branch switch
alike, and no node of the graph may stay under a staging label. Each check counts with plain
Cypher on a driver of its own (no generation lookup, as a hand-written query runs) and compares
with GraphQL's `stats` served from the embedded store on the same files.
"""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import Driver

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.generations import rebuild as rebuild_module
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.api.client import post
from tests.api.live import live_server
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.test_connect import brain_cli
from tests.neo4j.test_generations import LOOK, bot_workspace, looking_after_commits, write_notes

pytestmark = pytest.mark.neo4j

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
STATS = "{ stats { agents memories links unresolved workflows chats workItems } }"
# The counts a hand-written query gets, under the documented labels only.
HAND_WRITTEN = """
RETURN COUNT { MATCH (:Agent) } AS agents, COUNT { MATCH (:Memory) } AS memories,
  COUNT { MATCH (:Memory)-[:LINKS_TO]->() } AS links, COUNT { MATCH (:Unresolved) } AS unresolved,
  COUNT { MATCH (:Workflow) } AS workflows, COUNT { MATCH (:Chat) } AS chats,
  COUNT { MATCH (:WorkItem) } AS workItems
"""
# Any node under a label of a generation being written or of an older brain's second set.
STAGED = """
MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'BrainStaged' OR l STARTS WITH 'BrainB'
  OR l STARTS WITH 'BrainNext' OR l = 'BrainOld')
RETURN count(n) AS n
"""
# A rebuild at every change (a row is "too big") and a switch in pages of one node's worth.
GENERATION = Limits(node_rows=8, memory_rows=6, link_rows=24, transaction_rows=40, memory_weight=2,
                    atomic_rows=1)
PAGED = Limits(node_rows=8, memory_rows=6, link_rows=24, transaction_rows=40, memory_weight=2,
               atomic_rows=1, switch_nodes=1)
# Notes of the `bot` workspace (test_generations.py's 60 less): with pages of one node, a switch
# of 16 notes is already dozens of pages, and every page was transactions, and looks, more.
NOTES = 16


# GraphQL's counts by the workspace's files: the tests come back to the same files (the
# example, before and after each edit) in several workspaces, and a server of each was most
# of what a check cost.
SERVED: dict[str, dict[str, int]] = {}


def files_digest(root: Path) -> str:
    """The workspace's files as a digest of each path and its bytes (not where it is)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(root).as_posix()}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


async def graphql_stats(root: Path) -> dict[str, int]:
    """GraphQL's counts of the workspace at `root`, served from the embedded store (once for
    the same files)."""
    key = files_digest(root)
    if key not in SERVED:
        with live_server(root, MemoryStore(), watch=False) as server:
            async with httpx.AsyncClient(timeout=30) as client:
                body = await post(client, server.graphql, STATS)
        SERVED[key] = body["data"]["stats"]
    return dict(SERVED[key])


def raw(driver: Driver, database: str, query: str) -> dict[str, Any]:
    return dict(driver.execute_query(query, database_=database).records[0])


async def assert_documented(login: Login, root: Path) -> None:
    """The graph of `root` is under the documented labels, nothing is staged, brain reads them."""
    driver = driver_for(login)
    try:
        assert raw(driver, login[3], HAND_WRITTEN) == await graphql_stats(root)
        assert raw(driver, login[3], STAGED)["n"] == 0
        live = driver.execute_query(generation.LIVE, database_=login[3]).records
        assert not (live and live[0]["labels"])  # brain's own reads are on them too
    finally:
        driver.close()


def alone(store: Neo4jStore) -> Neo4jStore:
    """`store` with no grace at a paged switch: the grace keeps the replaced labels whole for
    readers of other processes that looked them up just before (generations/live.py), and no
    reader runs beside this store's switches (the test that has one keeps it)."""
    store.switch_grace = 0.0
    return store


def workspace(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "workspace"))


def edit_every_note(root: Path, word: str) -> list[str]:
    """Every note's description changed, as a branch switch does; the paths changed."""
    changed = []
    for path in sorted((root / "memory").glob("*/*.md")):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("description: ", f"description: {word} ", 1), encoding="utf-8")
        changed.append(path.relative_to(root).as_posix())
    return changed


async def test_first_sync_rebuild_restart_replace_and_branch_switch_keep_the_documented_labels(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login,
) -> None:
    root = workspace(tmp_path)
    # A first sync (staged in parts, switched in at once at this size).
    first = make_store(limits=Limits())
    Brain(root, first).sync()
    await assert_documented(neo4j_login, root)
    first.close()

    # A rebuild, forced the way an operator would with a small server heap ([store]
    # neo4j_atomic_rows, or BRAIN_NEO4J_ATOMIC_ROWS, which open_store passes on).
    edit_every_note(root, "rebuilt")
    login_uri, user, password, database = neo4j_login
    rebuilt = alone(Neo4jStore.connect(login_uri, user, password, database, atomic_rows=4))
    assert (rebuilt.limits.atomic_rows, rebuilt.limits.switch_nodes) == (4, 1)  # paged switch too
    brain = Brain(root, rebuilt)
    brain.sync()
    assert rebuilt.rebuilds == 1
    await assert_documented(neo4j_login, root)
    assert rebuilt.export() == reference_export(root)

    # A branch switch under the running writer: a big incremental change, written onto a copy.
    brain.sync(edit_every_note(root, "branch"))
    assert rebuilt.rebuilds == 2
    await assert_documented(neo4j_login, root)
    brain.close()

    # A restart on the unchanged workspace writes nothing, and the labels stay.
    again = make_store(limits=Limits())
    Brain(root, again).sync()
    assert again.transactions == 0
    await assert_documented(neo4j_login, root)
    again.close()

    # Another workspace replaces this one (--neo4j-replace), as a generation.
    other = Workspace(tmp_path / "other")
    other.write("agents/bot.md", "---\nmemory: true\n---\n")
    for i in range(12):
        other.write(f"memory/bot/n{i}.md", note(f"other {i}", f"[[n{(i + 1) % 12}]] [[gone{i}]]"))
    replacing = make_store(limits=GENERATION)
    replacing.replace_foreign = True
    Brain(other.root, replacing).sync()
    await assert_documented(neo4j_login, other.root)
    assert replacing.export() == reference_export(other.root)
    replacing.close()


@pytest.mark.parametrize("limits", [GENERATION, PAGED], ids=["one-transaction", "in-pages"])
async def test_a_first_sync_written_as_a_generation_ends_under_the_documented_labels(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login, limits: Limits,
) -> None:
    root = workspace(tmp_path)
    store = alone(make_store(limits=limits))
    brain = Brain(root, store)
    brain.sync()
    assert store.rebuilds == 1
    await assert_documented(neo4j_login, root)
    assert store.export() == reference_export(root)
    brain.close()


def test_brain_reads_one_generation_while_a_paged_switch_relabels(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    """In pages, a hand-written query may see part of each generation (docs/neo4j.md says
    so); brain's own readers (a replica here) see the old graph or the new one."""
    ws = bot_workspace(tmp_path / "ws", NOTES)
    first = make_store(limits=PAGED)
    Brain(ws.root, first).sync()
    first.close()
    write_notes(ws, "new", NOTES)
    replica = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    seen: Counter[tuple[str, int]] = Counter()
    hand: Counter[tuple[str, ...]] = Counter()

    def look() -> None:
        found = replica._read(LOOK)[0]
        words = " ".join(sorted({d.split()[0] for d in found["descriptions"]}))
        seen[(words, len(found["descriptions"]))] += 1
        mine = replica._driver.execute_query(LOOK, database_=replica.database).records[0]
        hand[tuple(sorted({d.split()[0] for d in mine["descriptions"]}))] += 1

    pages = 0
    real_page = rebuild_module.relabel_page

    def counting(tx: Any, page: tuple[str, str, int]) -> int:
        nonlocal pages
        pages += 1
        return real_page(tx, page)

    with pytest.MonkeyPatch.context() as patch, looking_after_commits(look):  # after each commit
        patch.setattr(rebuild_module, "relabel_page", counting)
        writer = make_store(limits=PAGED)
        writer.clear_rows = 1  # a page a node
        brain = Brain(ws.root, writer)
        brain.sync()
    assert writer.rebuilds == 1
    assert pages > NOTES, "the switch should have relabelled in pages"
    assert set(seen) <= {("old", NOTES), ("new", NOTES)}, seen
    assert seen[("new", NOTES)] > 0
    assert writer.export() == reference_export(ws.root)
    assert raw(writer._driver, writer.database, STAGED)["n"] == 0
    brain.close()
    replica.close()


def test_a_paged_switch_cut_short_is_finished_by_the_next_start(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    ws = bot_workspace(tmp_path / "ws", NOTES)
    first = make_store(limits=PAGED)
    Brain(ws.root, first).sync()
    first.close()
    write_notes(ws, "new", NOTES)
    real_page = rebuild_module.relabel_page
    calls = 0

    def dying(tx: Any, page: tuple[str, str, int]) -> int:
        nonlocal calls
        calls += 1
        if calls > NOTES // 2:
            raise RuntimeError("the writer died midway through the relabelling")
        return real_page(tx, page)

    dead = alone(make_store(limits=PAGED))
    dead.clear_rows = 1  # a page a node
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rebuild_module, "relabel_page", dying)
        with pytest.raises(RuntimeError, match="died midway"):
            Brain(ws.root, dead).sync()
    dead.release_lease()
    # Brain's readers already read the whole new generation (under the staged labels).
    replica = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    assert {d.split()[0] for d in replica._read(LOOK)[0]["descriptions"]} == {"new"}
    assert raw(replica._driver, replica.database, STAGED)["n"] > 0
    # The next writer's start finishes the switch before anything else. With its grace: the
    # replica beside it looked the live set up just now (above), and may read the replaced set
    # for LIVE_TTL after; without the grace that set is gone at once. (The start used to take
    # over a second setting up the schema, longer than LIVE_TTL; since a start creates only
    # what is missing it is quicker, and CI caught the replica reading an emptied set.)
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    assert raw(writer._driver, writer.database, STAGED)["n"] == 0
    assert writer.export() == reference_export(ws.root)
    assert replica.export() == reference_export(ws.root)
    brain.close()
    replica.close()


def test_an_older_brains_second_set_is_switched_in_at_start(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    """A database an older brain left with the graph under `BrainB…` (and `BrainLive` naming
    them): the next writer's start moves it under the documented labels, writing no note again."""
    ws = bot_workspace(tmp_path / "ws", NOTES)
    old = make_store(limits=Limits())
    Brain(ws.root, old).sync()
    old.close()
    driver, database = driver_for(neo4j_login), neo4j_login[3]
    for label in generation.LABELS:  # as an older brain's switch left it
        driver.execute_query(f"MATCH (n:{label}) REMOVE n:{label} SET n:BrainB{label}", database_=database)
    driver.execute_query("MERGE (g:BrainLive {key: 'brain'}) SET g.labels = 'BrainB'", database_=database)
    driver.close()
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    assert writer.transactions == 0 or writer.last_write["nodes_created"] == 0  # nothing rewritten
    assert raw(writer._driver, writer.database, STAGED)["n"] == 0
    assert writer.export() == reference_export(ws.root)
    assert raw(writer._driver, writer.database, "MATCH (m:Memory) RETURN count(m) AS n")["n"] == NOTES
    brain.close()


@pytest.mark.parametrize("atomic_rows", ["400000", "4"], ids=["one-transaction", "in-pages"])
async def test_brain_ingest_then_the_browsers_first_query_finds_the_notes(
    tmp_path: Path, neo4j_login: Login, atomic_rows: str,
) -> None:
    """The issue as a new user met it: `brain ingest WS --store neo4j`, then Neo4j Browser's
    `MATCH (m:Memory) RETURN m`; with a small BRAIN_NEO4J_ATOMIC_ROWS, a rebuild next."""
    root = workspace(tmp_path)
    Neo4jStore.connect(*neo4j_login).clear()
    env = {"BRAIN_NEO4J_ATOMIC_ROWS": atomic_rows}
    args = ["ingest", str(root), "--store", "neo4j", "--neo4j-uri", neo4j_login[0]]
    done = brain_cli(*args, env=env)
    assert done.returncode == 0, done.stderr
    await assert_documented(neo4j_login, root)
    edited = len(edit_every_note(root, "again")) - sum(
        "description: " not in p.read_text(encoding="utf-8") for p in (root / "memory").glob("*/*.md"))
    done = brain_cli(*args, "--no-cache", env=env)
    assert done.returncode == 0, done.stderr
    await assert_documented(neo4j_login, root)
    driver = driver_for(neo4j_login)
    try:
        found = driver.execute_query("MATCH (m:Memory) WHERE m.description STARTS WITH 'again '"
                                     " RETURN count(m) AS n", database_=neo4j_login[3])
        assert found.records[0]["n"] == edited > 30
    finally:
        driver.close()
