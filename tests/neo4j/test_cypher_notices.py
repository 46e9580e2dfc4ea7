"""brain's Cypher draws no deprecation notice from the server.

The Neo4j driver logs each notice the server sends with a query's answer, and the server
sends a deprecation notice every time the query runs: the backlinks page (`CALL { WITH id }`)
put 4 KB on brain serve's stderr per GraphQL request, which filled a pipe nobody read and then
blocked the server inside a request (bench_neo4j_graphql saw a 503 after 30 s at 2,000 notes).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
from pathlib import Path

import pytest
from neo4j import NotificationClassification

import brain.store.neo4j as package
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import Login, driver_for

CYPHER = re.compile(r"\b(MATCH|MERGE|RETURN|CREATE|UNWIND|CALL)\b")


def published_statements() -> dict[str, str]:
    """Every public module-level Cypher string of brain/store/neo4j (fragments are private)."""
    found: dict[str, str] = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            public = name.isupper() and not name.startswith("_")
            if public and isinstance(value, str) and CYPHER.search(value):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_statement_plans_without_a_deprecation(neo4j_login: Login) -> None:
    statements = published_statements()
    assert len(statements) > 40  # the walk found the modules
    driver = driver_for(neo4j_login)
    deprecated: dict[str, list[str]] = {}
    try:
        for name, statement in statements.items():
            summary = driver.execute_query("EXPLAIN " + statement, database_=neo4j_login[3]).summary
            notes = [s.status_description for s in summary.gql_status_objects
                     if s.classification == NotificationClassification.DEPRECATION]
            if notes:
                deprecated[name] = notes
    finally:
        driver.close()
    assert deprecated == {}


def test_a_backlinks_page_logs_nothing(
    tmp_path: Path, neo4j_login: Login, caplog: pytest.LogCaptureFixture
) -> None:
    """The query as brain runs it, on brain's own driver settings."""
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    uri, user, password, database = neo4j_login
    store = Neo4jStore.connect(uri, user, password, database)
    try:
        store.clear()
        ws.brain(store)
        with caplog.at_level(logging.INFO, logger="neo4j"):
            pages = store.backlinks(["memory:bot/b"], 20)
    finally:
        store.close()
    assert [link.source for link in pages["memory:bot/b"]] == ["memory:bot/a"]
    assert [r.getMessage()[:200] for r in caplog.records if r.name == "neo4j.notifications"] == []
