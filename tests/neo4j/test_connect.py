"""Choosing Neo4j from the command line, and what users see when the server is not there."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from brain.service.brain import Brain
from brain.store.base import MemoryFilter, StoreUnavailable
from brain.store.neo4j import cypher
from brain.store.neo4j.reads.readcache import WINDOW
from brain.store.neo4j.store import Neo4jStore
from tests.api.client import post
from tests.api.live import live_server
from tests.contract.helpers import Workspace, note, reference
from tests.neo4j.conftest import Login, StoreMaker
from tests.neo4j.proxy import Proxy

pytestmark = pytest.mark.neo4j


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    sock.close()
    return port


def brain_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "BRAIN_STORE"))}
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], env={**clean, **(env or {})},
        capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[missing]]"))
    ws.write("memory/shared/b.md", note("b", "[[a#Nope]]"))
    return ws


def test_an_unreachable_server_is_one_line_and_exit_2(workspace: Workspace) -> None:
    uri = f"bolt://127.0.0.1:{closed_port()}"
    done = brain_cli("ingest", str(workspace.root), "--store", "neo4j", "--neo4j-uri", uri)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"brain ingest: cannot reach Neo4j at {uri}: connection refused "
        "(is the server running? For development: tools/neo4j/neo4j.sh start)"
    ]


def test_connection_settings_come_from_the_environment(workspace: Workspace, neo4j_login: Login) -> None:
    uri, user, password, database = neo4j_login
    env = {"NEO4J_URI": uri, "NEO4J_DATABASE": database, "BRAIN_STORE": "neo4j"}
    env |= {"NEO4J_USER": user, "NEO4J_PASSWORD": password or ""} if user else {}
    done = brain_cli("check", str(workspace.root), env=env)
    embedded = brain_cli("check", str(workspace.root))
    assert (done.returncode, done.stdout) == (embedded.returncode, embedded.stdout)
    assert "broken-link" in done.stdout

    missing = brain_cli("check", str(workspace.root), env={**env, "NEO4J_DATABASE": "nosuchdb"})
    assert missing.returncode == 2
    assert missing.stderr.splitlines() == [
        f"brain check: Neo4j at {uri} has no database 'nosuchdb': create it, or pass "
        "--neo4j-database (NEO4J_DATABASE) with an existing one"
    ]


def test_ingest_on_neo4j_reports_the_same_summary(workspace: Workspace, neo4j_login: Login) -> None:
    uri, user, password, database = neo4j_login
    args = ["ingest", str(workspace.root), "--store", "neo4j", "--neo4j-uri", uri]
    args += ["--neo4j-database", database, "--neo4j-replace"]  # earlier tests left their graphs
    if user:
        args += ["--neo4j-user", user, "--neo4j-password", password or ""]
    done = brain_cli(*args)
    embedded = brain_cli("ingest", str(workspace.root))
    assert done.returncode == 0, done.stderr

    def summary(out: str) -> str:
        return re.sub(r" in [\d.]+ s \([\d,]+ files/s\)", "", out)

    assert summary(done.stdout) == summary(embedded.stdout)


def test_names_a_new_database_has_not_seen_yet_are_not_warned_about(
    neo4j_login: Login, caplog: pytest.LogCaptureFixture
) -> None:
    """A first start on a new database reads a property and a relationship type nothing has
    written yet. The server's "does not exist" notices are about brain's own queries: a first
    `brain ingest` printed two of them, 300 characters each, before its summary."""
    uri, user, password, database = neo4j_login
    store = Neo4jStore.connect(uri, user, password, database)
    try:
        with caplog.at_level(logging.INFO, logger="neo4j"):
            store._read("MATCH (n:Memory)-[:BRAIN_NEVER_WRITTEN]->() RETURN n.brainNeverWritten AS x LIMIT 1")
    finally:
        store.close()
    assert [r.getMessage() for r in caplog.records if r.name == "neo4j.notifications"] == []


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("http://127.0.0.1:7474", "'http://127.0.0.1:7474' is not a Neo4j Bolt URI: use bolt://host:7687"),
        ("127.0.0.1:7687", "'127.0.0.1:7687' is not a Neo4j Bolt URI"),
        ("bolt://no-such-host.invalid:7687", "cannot reach Neo4j at bolt://no-such-host.invalid:7687: "
         "cannot resolve the host name"),
    ],
)
def test_bad_uris_are_explained(uri: str, message: str) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        Neo4jStore.connect(uri)
    assert str(caught.value).startswith(message)


def schema_on_server(store: Neo4jStore) -> set[tuple[str, ...]]:
    """Every constraint and index on the server: (kind, name, type, on, properties, state)."""
    found: set[tuple[str, ...]] = set()
    for kind in ("CONSTRAINTS", "INDEXES"):
        for record in store._driver.execute_query(f"SHOW {kind}", database_=store.database).records:
            row = record.data()
            on = row.get("labelsOrTypes") or []
            found.add((kind, row["name"], row["type"], ",".join(on), ",".join(row.get("properties") or []),
                       str(row.get("state", ""))))
    return found


def _drop_brains_schema(store: Neo4jStore) -> set[str]:
    wanted = {re.search(r"(?:CONSTRAINT|INDEX) (\w+)", s).group(1) for s in cypher.SCHEMA}  # type: ignore[union-attr]
    for kind, name, *_ in sorted(schema_on_server(store)):
        if name in wanted:
            what = {"CONSTRAINTS": "CONSTRAINT", "INDEXES": "INDEX"}[kind]
            store._driver.execute_query(f"DROP {what} {name} IF EXISTS", database_=store.database)
    return wanted


def test_brains_that_set_up_the_schema_at_once_all_start_and_the_next_adds_nothing(
    neo4j_login: Login,
) -> None:
    """Replicas starting together each set up the schema; on the schema lock Neo4j may pick one
    as a deadlock's victim, which must retry instead of refusing to start. A brain started
    after them finds it all and adds nothing. (From none of brain's schema, its constraints
    first: they own their indexes. Two tests each dropped and rebuilt the schema, one for the
    start together, one for a first connect then a second: the same build, made once.)"""
    store = Neo4jStore.connect(*neo4j_login)
    wanted = _drop_brains_schema(store)
    assert not {row[1] for row in schema_on_server(store)} & wanted
    store.close()
    errors: list[BaseException] = []
    stores: list[Neo4jStore] = []
    started = threading.Barrier(4)

    def start() -> None:
        try:
            started.wait()
            stores.append(Neo4jStore.connect(*neo4j_login))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    seen = [schema_on_server(stores[0])]  # what the first starts made
    for started_store in stores:
        started_store.close()
    store = Neo4jStore.connect(*neo4j_login)
    seen.append(schema_on_server(store))  # after one more start
    store.close()
    assert seen[0] == seen[1]
    assert store.schema_statements == 0  # it read the names and ran no CREATE
    assert sum(s.schema_statements for s in stores) >= len(cypher.SCHEMA)  # each made by some start
    online = {row[1] for row in seen[0] if row[0] == "CONSTRAINTS" or row[5] == "ONLINE"}
    assert wanted <= online


def test_a_start_makes_again_what_was_dropped_and_only_that(neo4j_login: Login) -> None:
    """A brain connects to a database that has brain's schema but for an index and a
    constraint someone dropped: it makes those two again (the same as before they went),
    and runs no statement for the others (brain/store/neo4j/schema.py)."""
    store = Neo4jStore.connect(*neo4j_login)
    whole = schema_on_server(store)
    for what, name in (("INDEX", "memory_text"), ("CONSTRAINT", "brain_staged_agent_id")):
        store._driver.execute_query(f"DROP {what} {name}", database_=store.database)
    assert {"memory_text", "brain_staged_agent_id"}.isdisjoint(row[1] for row in schema_on_server(store))
    store.close()
    store = Neo4jStore.connect(*neo4j_login)
    again = schema_on_server(store)
    store.close()
    assert again == whole
    assert store.schema_statements == 2

def test_a_server_that_goes_away_gives_errors_then_recovers(
    workspace: Workspace, proxy: Proxy, make_store: StoreMaker,
) -> None:
    store = make_store(uri=proxy.uri, retry_seconds=0.5)
    brain = Brain(workspace.root, store)
    brain.sync()
    expected = reference(workspace.root).store

    proxy.down()
    with pytest.raises(StoreUnavailable, match=rf"^Neo4j at {proxy.uri} is unavailable: connection refused$"):
        store.stats()
    with pytest.raises(StoreUnavailable):
        store.list_memories(MemoryFilter())

    proxy.up()
    assert store.stats() == expected.stats()
    assert store.export() == expected.export()
    brain.sync([workspace.write("memory/shared/missing.md", note("here now"))])
    assert store.get_nodes(["unresolved:missing"]) == {}


async def test_api_clients_get_errors_while_the_server_is_away_then_answers(
    workspace: Workspace, proxy: Proxy, make_store: StoreMaker,
) -> None:
    query = "{ stats { memories links } memories(first: 5) { edges { node { id } } } }"
    store = make_store(uri=proxy.uri, retry_seconds=0.5)
    with live_server(workspace.root, store, watch=False) as live:
        async with httpx.AsyncClient(timeout=30) as client:
            before = await post(client, live.graphql, query)
            assert before["data"]["stats"] == {"memories": 2, "links": 3}
            proxy.down()
            # A kept answer stays trusted for WINDOW after its token was read (readcache.py):
            # asked again within it, the same answer comes back; past it, the server is asked.
            await asyncio.sleep(WINDOW * 2)
            failed = await post(client, live.graphql, query)
            assert failed.get("errors"), failed
            assert "unavailable" in failed["errors"][0]["message"]  # said, not masked
            assert (await client.get(f"{live.base}/healthz")).status_code == 200  # the API stays up
            proxy.up()
            assert await post(client, live.graphql, query) == before
