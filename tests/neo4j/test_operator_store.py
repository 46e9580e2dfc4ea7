"""The store and its Neo4j server come from the operator's settings like everything else:
`[store]` in the --config file (or BRAIN_CONFIG), under the variables (NEO4J_URI, ...), under
the flags. The real CLI against the real server."""

from __future__ import annotations

from pathlib import Path

from brain.config.sections import StoreConfig
from brain.store.neo4j.store import Neo4jStore
from brain.store.open import open_store
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import Login
from tests.neo4j.test_connect import brain_cli


def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[missing]]"))
    return ws


def operator_file(tmp_path: Path, login: Login, database: str | None = None) -> Path:
    uri, user, _, db = login
    ops = tmp_path / "ops" / "brain.toml"
    ops.parent.mkdir()
    ops.write_text(
        '[store]\nkind = "neo4j"\n'
        f'neo4j_uri = "{uri}"\nneo4j_database = "{database or db}"\n'
        + (f'neo4j_user = "{user}"\nneo4j_password_env = "MY_GRAPH_SECRET"\n' if user else "")
    )
    return ops


def graph_root(login: Login) -> str | None:
    uri, user, password, database = login
    store = Neo4jStore.connect(uri, user, password, database, read_only=True)
    try:
        found = store.workspace()
        return None if found is None else str(found.get("root"))
    finally:
        store.close()


def test_the_operator_file_chooses_the_neo4j_store(tmp_path: Path, neo4j_login: Login) -> None:
    open_neo4j(neo4j_login).close()  # an empty database
    ws = workspace(tmp_path)
    ops = operator_file(tmp_path, neo4j_login)
    secret = {"MY_GRAPH_SECRET": neo4j_login[2] or ""}
    done = brain_cli("ingest", str(ws.root), env={"BRAIN_CONFIG": str(ops), **secret})
    assert done.returncode == 0, done.stderr
    assert graph_root(neo4j_login) == str(ws.root.resolve())  # written to the file's database

    # A variable beats the file: a database that does not exist is refused, naming it.
    missing = brain_cli("ingest", str(ws.root), env={"BRAIN_CONFIG": str(ops), "NEO4J_DATABASE": "nosuchdb",
                                                     **secret})
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1, missing.stderr
    assert "has no database 'nosuchdb'" in missing.stderr

    # A flag beats both: the embedded store, and the database is left alone.
    open_neo4j(neo4j_login).close()
    embedded = brain_cli("ingest", str(ws.root), "--store", "memory",
                         env={"BRAIN_CONFIG": str(ops), "NEO4J_DATABASE": "nosuchdb", **secret})
    assert embedded.returncode == 0, embedded.stderr
    assert graph_root(neo4j_login) is None


def test_config_show_names_the_store_and_hides_its_password(tmp_path: Path, neo4j_login: Login) -> None:
    ops = operator_file(tmp_path, neo4j_login)
    shown = brain_cli("config", "show", "--config", str(ops), env={"NEO4J_PASSWORD": "pw-never-shown"})
    assert shown.returncode == 0, shown.stderr
    assert "pw-never-shown" not in shown.stdout
    kind = next(line for line in shown.stdout.splitlines() if line.startswith("store.kind"))
    assert kind.endswith(f"# {ops} line 2")


def test_the_writer_lease_lasts_what_the_operator_set(tmp_path: Path, neo4j_login: Login) -> None:
    """[store] neo4j_lease_seconds (BRAIN_NEO4J_LEASE_SECONDS) reaches the lease a writer takes;
    tests/neo4j/conftest.py sets the variable to 600, so a store opened without it would say 600."""
    uri, user, password, database = neo4j_login
    config = StoreConfig(kind="neo4j", neo4j_uri=uri, neo4j_user=user or "",
                         neo4j_database=database or "neo4j", neo4j_lease_seconds=7.0)
    store = open_store(config, password=password)
    assert isinstance(store, Neo4jStore)
    try:
        store.clear()
        store.take_lease(str(tmp_path))
        assert store._lease is not None
        assert store._lease.seconds == 7.0
    finally:
        store.close()
