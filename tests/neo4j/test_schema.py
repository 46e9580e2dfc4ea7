"""The schema: published without drift, created idempotently, and used by every lookup."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Query

from bench.workload import generate
from brain.service.brain import Brain
from brain.store.base import MemoryFilter
from brain.store.neo4j import cypher
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.store import Neo4jStore
from tests.conftest import open_neo4j
from tests.neo4j.conftest import Login

REPO = Path(__file__).resolve().parents[2]
ALLOWED = {
    *cypher.LABELS, "LINKS_TO", "REMEMBERS", "BrainWorkspace", "BrainChange", "BrainLease",
    *generation.STAGED_LABELS, *generation.LEGACY_LABELS, generation.STAGING_LABEL, generation.LIVE_LABEL,
}


def every_statement() -> list[str]:
    found: list[str] = []
    for value in vars(cypher).values():
        if isinstance(value, str) and re.search(r"\b(MATCH|MERGE|CREATE|CALL|RETURN)\b", value):
            found.append(value)
        elif isinstance(value, dict):
            found += [v for v in value.values() if isinstance(v, str) and "MATCH" in v]
        elif isinstance(value, tuple):
            found += [v for v in value if isinstance(v, str) and "CREATE" in v]
    found += [generation.staged(s) for s in found if "UNWIND $rows" in s]  # a rebuild's
    found += [generation.SWITCH, generation.ANY_STAGED, generation.DROP_STAGED, generation.STAGING,
              generation.SWITCH_ONCE, generation.LIVE, generation.switch_size(generation.STAGED_PREFIX)]
    for prefix in (generation.STAGED_PREFIX, generation.LEGACY_PREFIX):
        found += [s for step in generation.relabel_steps(prefix) for s in step]
    for where in (MemoryFilter(), MemoryFilter("a", "b", "user", "x", True)):
        found += [cypher.list_memories(where, "memory:x", 5)[0], cypher.count_memories(where)[0]]
    return found + [generation.on(s, generation.STAGED_PREFIX) for s in found]  # brain reading staged


def test_the_published_schema_matches_the_store() -> None:
    published = (REPO / "schema" / "neo4j.cypher").read_text(encoding="utf-8")
    assert published == cypher.schema_file(), (
        "schema/neo4j.cypher is stale: run `python -m brain.store.neo4j.cypher > schema/neo4j.cypher`"
    )


def test_statements_name_only_allow_listed_labels_and_types() -> None:
    statements = every_statement()
    assert len(statements) > 40
    for statement in statements:
        names = re.findall(r"[(\[]\w*:([A-Za-z_|]+)", statement)
        names += re.findall(r"\bn:(\w+)\b", statement)  # label predicates: `t:Unresolved`
        used = {part for name in names for part in name.split("|")}
        assert used <= ALLOWED, statement
        assert "{label}" not in statement


@pytest.mark.neo4j
def test_every_constraint_and_index_exists(neo4j_store: Neo4jStore) -> None:
    driver = neo4j_store._driver
    constraints = {r["name"] for r in driver.execute_query("SHOW CONSTRAINTS").records}
    indexes = {r["name"]: r["state"] for r in driver.execute_query("SHOW INDEXES").records}
    wanted = {re.search(r"(?:CONSTRAINT|INDEX) (\w+)", s).group(1) for s in cypher.SCHEMA}  # type: ignore[union-attr]
    assert {f"{c}" for c in wanted if c.endswith("_id")} <= constraints
    assert all(indexes[name] == "ONLINE" for name in wanted)


def plan_operators(store: Neo4jStore, statement: str, params: dict[str, Any]) -> list[str]:
    summary = store._driver.execute_query(Query("EXPLAIN " + statement), params).summary
    operators: list[str] = []
    stack = [summary.plan]
    while stack:
        node = stack.pop()
        operators.append(node["operatorType"].split("@")[0])
        stack += node.get("children", [])
    return operators


ROW = {"props": {"id": "memory:a/b", "ordinal": 0, "name": "b"}, "owner": "agent:a",
       "source": "memory:a/b", "target": "memory:a/c", "name": "c"}
LOOKUPS: list[tuple[str, str, dict[str, Any]]] = [
    ("get_nodes", cypher.GET_NODES, {"ids": ["memory:a/b"]}),
    ("name_entries", cypher.NAME_ENTRIES, {"keys": ["b"]}),
    ("links_with_keys", cypher.LINKS_WITH_KEYS, {"keys": ["b"]}),
    ("links_from", cypher.LINKS_FROM, {"ids": ["memory:a/b"]}),
    ("links_to", cypher.LINKS_TO, {"ids": ["memory:a/b"]}),
    ("anchors", cypher.ANCHORS, {"ids": ["memory:a/b"]}),
    ("memory_by_id", cypher.MEMORY_BY_ID, {"id": "memory:a/b"}),
    ("memories_by_key", cypher.MEMORIES_BY_KEY, {"key": "b"}),
    ("memory_by_path", cypher.MEMORY_BY_PATH, {"path": "memory/a/b.md"}),
    ("problems_at", cypher.PROBLEMS_AT, {"paths": ["memory/a/b.md"]}),
    ("type_counts", cypher.MEMORY_TYPE_COUNTS, {"scopes": ["a"]}),
    ("neighbours", cypher.NEIGHBOURS, {"ids": ["memory:a/b", "agent:a"]}),
    ("list_by_scope", *cypher.list_memories(MemoryFilter(scope="a"), None, 10)),
    ("upsert_memories", cypher.UPSERT_MEMORIES, {"rows": [ROW]}),
    ("upsert_agents", cypher.UPSERT_AGENTS, {"rows": [ROW], "shared": "shared"}),
    ("drop_links", cypher.DROP_LINKS, {"rows": [{"source": "memory:a/b", "rev": "x"}]}),
    *((f"create_links_{k}", v, {"rows": [ROW]}) for k, v in cypher.CREATE_LINKS.items()),
    *((f"relinks_{k}", v, {"rows": [ROW]}) for k, v in cypher.RELINKS.items()),
    *((f"delete_{k}", v, {"ids": ["x"]}) for k, v in cypher.DELETE_NODES.items()),
    ("cleanup", cypher.CLEANUP_UNRESOLVED, {"ids": ["unresolved:x"]}),
]
SCANS = ("AllNodesScan", "NodeByLabelScan", "UndirectedAllRelationshipsScan", "DirectedAllRelationshipsScan",
         "DirectedRelationshipTypeScan", "UndirectedRelationshipTypeScan")


@pytest.fixture(scope="module")
def ingested(neo4j_login: Login, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jStore]:
    """A store holding a small workload, so the planner has statistics to go by."""
    root = tmp_path_factory.mktemp("plans") / "workload"
    generate(root, notes=120, agents=3, seed=1)
    store = open_neo4j(neo4j_login)
    Brain(root, store).sync()
    yield store
    store.close()


@pytest.mark.neo4j
@pytest.mark.parametrize("live", ["", generation.STAGED_PREFIX], ids=["plain-live", "staged-live"])
@pytest.mark.parametrize(("name", "statement", "params"), LOOKUPS, ids=[x[0] for x in LOOKUPS])
def test_lookups_seek_indexes_instead_of_scanning(
    name: str, statement: str, params: dict[str, Any], live: str, ingested: Neo4jStore,
) -> None:
    """On either set of labels (brain/store/neo4j/generations/staged.py): each has its own indexes."""
    operators = plan_operators(ingested, generation.on(statement, live), params)
    assert not [op for op in operators if op.startswith(SCANS)], f"{name} scans: {operators}"


@pytest.mark.neo4j
def test_the_scan_check_catches_a_scan(ingested: Neo4jStore) -> None:
    operators = plan_operators(ingested, "MATCH (n) WHERE n.id = $id RETURN n", {"id": "x"})
    assert [op for op in operators if op.startswith(SCANS)]
