"""`memoryHealth` over HTTP on both stores: one query answers a dashboard, agents' tokens see
only their own notes and the shared ones, lists page by cursor, bad arguments are refused in
words; and `brain stats --format json` prints the same object (a real subprocess).

The tests only ask, so they share one served copy a store (`served`): each server is a first
ingest, and on Neo4j several transactions. The refusals and the table of `brain stats` run its
`main()` in this process (a subprocess was an interpreter and an ingest each, for one line);
the JSON one stays a real process, as a script runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.cli.main import main
from brain.store.memory.store import MemoryStore
from tests.api.client import post
from tests.api.live import live_server
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note

REPO = Path(__file__).resolve().parents[2]
DOCUMENT = (REPO / "graphql" / "memory-health.graphql").read_text(encoding="utf-8")
ADMIN, ALICE, BOB = "admin-secret", "alice-secret", "bob-secret"


def workspace(root: Path) -> Path:
    ws = Workspace(root)
    for name in ("alice", "bob"):
        ws.write(f"agents/{name}.md", f"---\ndescription: {name}\nmemory: true\n---\n")
    ws.write("memory/alice/hub.md", note("hub", "[[a1]]"))
    for i in range(1, 6):  # five orphans without type
        ws.write(f"memory/alice/a{i}.md", "---\ndescription: x\n---\n" + ("[[hub]]" if i == 1 else ""))
    for i in range(1, 4):  # bob's private notes: his orphans, and two links into alice's hub
        ws.write(f"memory/bob/b{i}.md", note("b", "[[alice/hub]] [[nowhere]]" if i < 3 else ""))
    ws.write("memory/shared/s.md", note("s", "[[alice/hub]] [[nowhere]]"))
    return root


def tokens(tmp_path: Path) -> TokenRegistry:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({ALICE: "alice", BOB: "bob"}), encoding="utf-8")
    return TokenRegistry(ADMIN, file)


async def ask(url: str, token: str, query: str = DOCUMENT, **variables: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as client:
        return await post(client, url, query, variables, token=token)


class Served:
    """The module's servers of `workspace`, one a store, started when a test first asks
    (a Neo4j one only for the Neo4j tests) and stopped at the end of the module. The tests
    only read; each started server's workspace is checked unchanged at the end."""

    def __init__(self, folder: Path, stack: ExitStack) -> None:
        self.folder, self.stack = folder, stack
        self.urls: dict[str, str] = {}
        self.root = workspace(folder / "ws")
        self.files = files_of(self.root)

    def url(self, kind: str, request: pytest.FixtureRequest) -> str:
        if kind not in self.urls:
            # A store of its own (open_neo4j clears the database), not the `store` fixture:
            # it would clear the database under this server at the next test.
            store = MemoryStore() if kind == "memory" else open_neo4j(request.getfixturevalue("neo4j_login"))
            self.stack.callback(store.close)
            live = self.stack.enter_context(live_server(self.root, store, tokens=tokens(self.folder)))
            self.urls[kind] = live.graphql
        return self.urls[kind]


def files_of(root: Path) -> dict[str, bytes]:
    """The workspace's files but brain's own state (.brain/)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".brain" not in p.relative_to(root).parts}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with ExitStack() as stack:
        shared = Served(tmp_path_factory.mktemp("health"), stack)
        yield shared
    assert files_of(shared.root) == shared.files, "a test changed the shared workspace"


@pytest.fixture
def health_server(served: Served, store_kind: str, request: pytest.FixtureRequest) -> str:
    return served.url(store_kind, request)


@pytest.fixture
def memory_server(served: Served, request: pytest.FixtureRequest) -> str:
    return served.url("memory", request)


async def test_one_query_answers_the_dashboard_as_each_caller_sees_it(health_server: str) -> None:
    admin = (await ask(health_server, ADMIN, first=2))["data"]["memoryHealth"]
    assert admin["total"]["notes"] == 10
    assert {row["scope"]: row["orphans"] for row in admin["scopes"]} == {"alice": 4, "bob": 1, "shared": 0}
    assert admin["hubs"][0] == {"links": 4, "node": {"id": "memory:alice/hub", "path": "memory/alice/hub.md"}}
    assert admin["mostWanted"] == [{"notes": 3, "target": {"id": "unresolved:nowhere", "target": "nowhere"}}]
    orphans = admin["orphans"]
    assert orphans["totalCount"] == 5
    assert orphans["pageInfo"]["hasNextPage"]
    assert [n["id"] for n in orphans["nodes"]] == ["memory:alice/a2", "memory:alice/a3"]

    alice = (await ask(health_server, ALICE))["data"]["memoryHealth"]
    assert [row["scope"] for row in alice["scopes"]] == ["alice", "shared"]
    assert alice["total"]["notes"] == 7
    assert alice["hubs"][0]["links"] == 2  # bob's two links are not hers to see
    assert alice["mostWanted"] == [{"notes": 1, "target": {"id": "unresolved:nowhere", "target": "nowhere"}}]
    assert all(n["id"].startswith(("memory:alice/", "memory:shared/")) for n in alice["orphans"]["nodes"])

    bob = (await ask(health_server, BOB))["data"]["memoryHealth"]
    # Every [[alice/hub]] is broken to bob (he cannot see it), and wants its name.
    assert {row["scope"]: row["broken"] for row in bob["scopes"]} == {"bob": 4, "shared": 2}
    assert bob["mostWanted"] == [
        {"notes": 3, "target": {"id": "unresolved:alice/hub", "target": "alice/hub"}},
        {"notes": 3, "target": {"id": "unresolved:nowhere", "target": "nowhere"}},
    ]
    assert bob["hubs"] == []


async def test_lists_page_by_cursor_to_the_end(health_server: str) -> None:
    query = """query($after: String) { memoryHealth { withoutType(first: 2, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } nodes { id } } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = (await ask(health_server, ADMIN, query, after=after))["data"]["memoryHealth"]["withoutType"]
        seen += [n["id"] for n in page["nodes"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"memory:alice/a{i}" for i in range(1, 6)]
    assert page["totalCount"] == 5


@pytest.mark.parametrize(
    ("token", "query", "words"),
    [
        (ALICE, '{ memoryHealth(scope: "bob") { total { notes } } }', "scope `bob` is not yours to read"),
        (ADMIN, "{ memoryHealth(staleDays: -1) { total { notes } } }", "give a number of days from 0"),
        (ADMIN, "{ memoryHealth { hubs(first: 1000) { links } } }", "at most 100"),
        (ADMIN, '{ memoryHealth { orphans(after: "nope") { totalCount } } }', "is not a cursor of this list"),
    ],
)
async def test_bad_arguments_are_refused_in_words(
    memory_server: str, token: str, query: str, words: str
) -> None:
    body = await ask(memory_server, token, query)
    assert words in body["errors"][0]["message"], body


async def test_brain_stats_json_is_the_documents_answer(memory_server: str, served: Served) -> None:
    root = served.root
    answer = (await ask(memory_server, ADMIN, first=3, top=5))["data"]["memoryHealth"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cli = subprocess.run(
        [sys.executable, "-m", "brain", "stats", str(root), "--format", "json", "--first", "3", "--top", "5"],
        capture_output=True, text=True, env=env, check=True, timeout=120,
    )
    printed = json.loads(cli.stdout)
    for key in ("scope", "staleDays", "total", "scopes"):
        assert printed[key] == answer[key], key
    assert printed["hubs"] == [{"id": h["node"]["id"], "links": h["links"]} for h in answer["hubs"]]
    wanted = answer["mostWanted"]
    assert printed["mostWanted"] == [{"id": w["target"]["id"], "notes": w["notes"]} for w in wanted]
    for key in ("orphans", "stale", "withoutDescription", "withoutType"):
        listed = answer[key]
        assert printed[key] == {
            "totalCount": listed["totalCount"], "hasNextPage": listed["pageInfo"]["hasNextPage"],
            "ids": [n["id"] for n in listed["nodes"]],
        }, key


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--stale-days", "-1"], "brain stats: staleDays is -1: give a number of days from 0 to 36500"),
        (["--top", "101"], "brain stats: hubs is 101: a top list holds 0 to 100 entries"),
        (["--first", "500"], "brain stats: first is 500: a page holds 0 to 100 notes"),
    ],
)
def test_brain_stats_refuses_bad_bounds_in_one_line(
    served: Served, capsys: pytest.CaptureFixture[str], words: list[str], said: str
) -> None:
    code = main(["stats", str(served.root), *words])
    stderr = capsys.readouterr().err
    assert code == 2
    assert stderr.strip().startswith(said), stderr
    assert len(stderr.strip().splitlines()) == 1


def test_brain_stats_text_is_a_table_per_scope(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(served.root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["scope", "notes", "links"]
    rows = [line.split()[:2] for line in lines[1:5]]
    assert rows == [["alice", "6"], ["bob", "3"], ["shared", "1"], ["(all)", "10"]]
    assert lines[5].startswith("hubs: memory:alice/hub (4)")
    assert lines[6] == "most wanted: nowhere (3)"
