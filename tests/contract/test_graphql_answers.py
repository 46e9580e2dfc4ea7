"""Every query document in graphql/ gives the same answer with Neo4j behind the API.

Two real servers on the same copy of examples/workspace, one per store; each document runs
with a spread of variables (every memory, pages, filters, neighbourhoods) and the JSON
answers must be identical. (`age` is the only field left out: it counts seconds of now.)
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.store.memory.store import MemoryStore
from tests.api.client import post
from tests.api.live import LiveServer, live_server
from tests.conftest import open_neo4j
from tests.contract.helpers import without_age

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = REPO / "graphql"
EXAMPLE = REPO / "examples" / "workspace"

pytestmark = pytest.mark.neo4j


def queries() -> list[str]:
    """The query documents (subscriptions are event streams: tests/api covers them)."""
    return sorted(
        p.name for p in DOCUMENTS.glob("*.graphql")
        if not re.search(r"^subscription\b", p.read_text(encoding="utf-8"), re.MULTILINE)
    )


def variable_sets(name: str, root: Path) -> list[dict[str, Any]]:
    memories = sorted(p.relative_to(root).as_posix() for p in (root / "memory").glob("*/*.md"))
    ids = ["memory:" + m[len("memory/"):-3] for m in memories]
    table: dict[str, list[dict[str, Any]]] = {
        "memory.graphql": [{"path": m} for m in memories] + [
            {"scope": "shared", "name": ids[-1].rsplit("/", 1)[1]}, {"path": "memory/none/x.md"},
        ],
        "memories-page.graphql": [
            {}, {"first": 4}, {"filter": {"scope": "shared"}, "first": 2},
            {"filter": {"type": "FEEDBACK"}}, {"filter": {"text": "release"}},
            {"filter": {"hasProblems": True}}, {"filter": {"agent": "on-call", "hasProblems": False}},
        ],
        "neighborhood.graphql": [
            {"id": i, "depth": d, "limit": lim} for i in ids[::4] for d, lim in ((1, 100), (2, 6))
        ] + [{"id": "agent:release-writer", "depth": 2}, {"id": "workflow:nope"}],
        "problems.graphql": [
            {}, {"first": 3}, {"severity": "WARNING"}, {"code": "broken-link", "first": 2},
            {"path": memories[0]},
        ],
        "link-report.graphql": [{}, {"top": 2}],
        # A scope's notes, whole and capped (tests/api/test_graph_clusters.py drills into each
        # cluster graphClusters names, on both stores).
        "cluster-notes.graphql": [{"cluster": "scope:shared"}, {"cluster": "scope:on-call", "limit": 3}],
    }
    return table.get(name, [{}])


@pytest.fixture(scope="module")
def servers(
    tmp_path_factory: pytest.TempPathFactory, neo4j_login: tuple[str, str | None, str | None, str],
) -> Iterator[tuple[LiveServer, LiveServer, Path]]:
    """One pair of servers for the module: the documents only read (no mutation is among
    them), so each read the same two ingests of the example that a pair a test made again."""
    root = Path(shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("answers") / "workspace"))
    on_neo4j_store = open_neo4j(neo4j_login)
    try:
        with live_server(root, MemoryStore(), watch=False) as embedded, \
                live_server(root, on_neo4j_store, watch=False) as on_neo4j:
            yield embedded, on_neo4j, root
    finally:
        on_neo4j_store.close()


@pytest.mark.parametrize("name", queries())
async def test_document_answers_the_same_on_both_stores(
    name: str, servers: tuple[LiveServer, LiveServer, Path],
) -> None:
    embedded, on_neo4j, root = servers
    document = (DOCUMENTS / name).read_text(encoding="utf-8")
    async with httpx.AsyncClient(timeout=30) as client:
        for variables in variable_sets(name, root):
            for _page in range(20):  # and the pages after the first, by their cursors
                asked = stamp(time.time())
                expected = without_age(await post(client, embedded.graphql, document, variables))
                answer = without_age(await post(client, on_neo4j.graphql, document, variables))
                answered = stamp(time.time() + 1)
                assert "errors" not in expected, (variables, expected)
                for end in [*now_ends(expected), *now_ends(answer)]:
                    assert asked <= end <= answered, (variables, end)
                assert answer == expected, variables
                cursor = next_cursor(expected)
                if cursor is None:
                    break
                variables = {**variables, "after": cursor}


def stamp(moment: float) -> str:
    return dt.datetime.fromtimestamp(int(moment), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_ends(body: dict[str, Any]) -> list[str]:
    """Takes out the end of a change digest's current week, which is the moment of the request to
    the second: the two requests can fall on either side of a second (a failure seen under load).
    Returned so the caller checks it against the clock instead."""
    weeks = (body.get("data") or {}).get("changeDigest")
    return [weeks[-1].pop("end")] if weeks else []


def next_cursor(body: dict[str, Any]) -> str | None:
    for value in (body.get("data") or {}).values():
        info = value.get("pageInfo") if isinstance(value, dict) else None
        if info and info.get("hasNextPage"):
            cursor: str = info["endCursor"]
            return cursor
    return None
