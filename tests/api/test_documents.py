"""Every operation document in graphql/ is valid, and answers correctly on examples/workspace.

The store comes from the `store_factory` fixture (tests/conftest.py), so each document runs on
the embedded store and on Neo4j. Expected answers are read off the files themselves where
possible (folders, frontmatter, the `[[...]]` text), and from `brain check` for problems.
"""

from __future__ import annotations

import math
import re
import shutil
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import parse, validate

from brain.api.graphql.schema import build_schema
from brain.cli.check import CheckReport
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.api.client import post, ws_session
from tests.api.files import write
from tests.api.live import LiveServer, live_server, until_subscribed
from tests.conftest import STORES, open_neo4j

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = REPO / "graphql"
EXAMPLE = REPO / "examples" / "workspace"
WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")

Check = Callable[[LiveServer, Path], Awaitable[None]]
CHECKS: dict[str, Check] = {}


def checks(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn

    return register


def document(name: str) -> str:
    return (DOCUMENTS / name).read_text(encoding="utf-8")


async def run(live: LiveServer, doc: str, /, **variables: Any) -> Any:
    async with httpx.AsyncClient(timeout=30) as client:
        body = await post(client, live.graphql, document(doc), variables)
    assert "errors" not in body, body
    return body["data"]


# ------------------------------------------------------------------ oracles read off the files


def memory_files(root: Path) -> dict[str, Path]:
    """`memory:<scope>/<name>` -> file, for every memory on disk."""
    return {
        f"memory:{p.parent.name}/{p.stem}": p
        for p in sorted((root / "memory").glob("*/*.md"))
        if not p.name.startswith(".")
    }


def frontmatter_value(path: Path, key: str) -> str | None:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return None
    head = text[4 : text.find("\n---", 4)]
    found = re.search(rf"^{key}:\s*(.+?)\s*$", head, re.MULTILINE)
    return found.group(1) if found else None


def link_texts(path: Path) -> list[str]:
    return [m.group(0) for m in WIKILINK.finditer(path.read_text(encoding="utf-8"))]


@cache
def reference(root: Path) -> Brain:
    """A fresh embedded read of `root`, the oracle: once a copy, for the checks that ask it
    (four documents and the maintenance report read the same unchanged shared copy, whose
    files the fixture checks at the end)."""
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain


def check_report(root: Path) -> CheckReport:
    brain = reference(root)
    return CheckReport(brain.stats(), brain.problems())


# ------------------------------------------------------------------ one check per document


@checks("agents-overview.graphql")
async def _agents_overview(live: LiveServer, root: Path) -> None:
    answer = await run(live, "agents-overview.graphql")
    files = memory_files(root)
    scopes = {p.parent.name for p in files.values()} - {"shared"}
    defined = {p.stem for p in (root / "agents").glob("*.md")}
    agents = {a["name"]: a for a in answer["agents"]}
    assert sorted(agents) == sorted(scopes | defined)
    for name, agent in agents.items():
        own = [p for p in files.values() if p.parent.name == name]
        types = [frontmatter_value(p, "type") for p in own]
        counts = agent["memoryCounts"]
        assert counts["total"] == len(own), name
        assert {c["type"].lower(): c["count"] for c in counts["byType"]} == {
            t: types.count(t) for t in ("user", "feedback", "project", "reference")
        }, name
        enabled = name in defined and frontmatter_value(root / "agents" / f"{name}.md", "memory") == "true"
        assert agent["memoryEnabled"] is enabled
        assert agent["memoryOff"] is (name in scopes and not enabled)
    assert any(a["memoryOff"] for a in agents.values()), "the example keeps a folder without an agent"
    assert answer["stats"]["memories"] == len(files)
    assert answer["stats"]["agents"] == len(agents)


@checks("memory.graphql")
async def _memory(live: LiveServer, root: Path) -> None:
    path = root / "memory/release-writer/house-style.md"
    started = time.monotonic()
    by_path = await run(live, "memory.graphql", path="memory/release-writer/house-style.md")
    by_name = await run(live, "memory.graphql", scope="release-writer", name="house-style")
    between = math.ceil(time.monotonic() - started)
    ages = by_path["memory"].pop("age"), by_name["memory"].pop("age")
    assert by_path == by_name
    # Ages are whole seconds from the clock: they may differ by the time the queries took.
    assert 0 <= ages[1] - ages[0] <= between + 1
    memory = by_path["memory"]
    assert memory["id"] == "memory:release-writer/house-style"
    assert memory["virtualPath"] == "/memories/house-style.md"
    assert memory["description"] == frontmatter_value(path, "description")
    assert memory["type"] == "FEEDBACK"
    assert memory["owner"] == {"name": "release-writer", "memoryEnabled": True}
    assert memory["size"] == path.stat().st_size
    assert [h["text"] for h in memory["headings"]] == re.findall(
        r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE
    )
    assert [link["text"] for link in memory["links"]] == link_texts(path)
    first = memory["links"][0]
    assert (first["label"], first["anchor"], first["status"]) == ("glossary", "Product terms", "RESOLVED")
    assert first["target"] == {"__typename": "Memory", "id": "memory:shared/glossary"}
    wanting = {
        p.relative_to(root).as_posix()
        for p in memory_files(root).values()
        if any("house-style" in t for t in link_texts(p))
    }
    assert {b["source"]["path"] for b in memory["backlinks"]} == wanting
    assert all(b["status"] == "RESOLVED" for b in memory["backlinks"])
    assert memory["problems"] == []


@checks("memories-page.graphql")
async def _memories_page(live: LiveServer, root: Path) -> None:
    seen: dict[str, Any] = {}
    after = None
    while True:
        page = (await run(live, "memories-page.graphql", first=10, after=after))["memories"]
        assert page["totalCount"] == len(memory_files(root))
        seen.update((e["node"]["id"], e["node"]) for e in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert sorted(seen) == sorted(memory_files(root))
    for node_id, node in seen.items():
        scope = node_id.split(":", 1)[1].split("/", 1)[0]
        owner = node["owner"]
        assert owner is None if scope == "shared" else owner["name"] == scope
    shared = await run(live, "memories-page.graphql", filter={"scope": "shared"})
    assert {e["node"]["scope"] for e in shared["memories"]["edges"]} == {"shared"}


@checks("link-report.graphql")
async def _link_report(live: LiveServer, root: Path) -> None:
    report = (await run(live, "link-report.graphql", top=50))["linkReport"]
    expected = check_report(root)
    assert (report["errors"], report["warnings"]) == (expected.errors, expected.warnings)
    by_status = {s["status"]: s["count"] for s in report["byStatus"]}
    assert sum(by_status.values()) == report["total"] == expected.stats.links
    assert by_status["BROKEN"] == expected.stats.broken
    codes = {c["code"]: c["count"] for c in report["byCode"]}
    assert codes == {code: sum(1 for p in expected.problems if p.code == code)
                     for code in {p.code for p in expected.problems}}
    assert sum(w["count"] for w in report["mostWanted"]) == by_status["BROKEN"]
    for wanted in report["mostWanted"]:
        target = wanted["target"]
        assert target["id"] == f"unresolved:{target['target']}"
        assert len(target["wantedBy"]) == wanted["count"]
        for link in target["wantedBy"]:
            line = (root / link["source"]["path"]).read_text(encoding="utf-8").splitlines()[link["line"] - 1]
            assert line[link["column"] - 1 :].startswith(link["text"])


@checks("change-digest.graphql")
async def _change_digest(live: LiveServer, root: Path) -> None:
    scope = sorted(memory_files(root))[0].split(":", 1)[1].split("/", 1)[0]
    async with httpx.AsyncClient(timeout=30) as client:
        wrote = await post(client, live.graphql, """mutation($scope: String!) {
          memoryWrite(scope: $scope, file: "digest-check.md",
                      content: "# Digest\\n\\nsee [[no-such-note]]\\n")
          { ok } }""", {"scope": scope})
    assert wrote["data"]["memoryWrite"]["ok"], wrote
    weeks = (await run(live, "change-digest.graphql", weeks=3))["changeDigest"]
    assert len(weeks) == 3
    assert [w["notesAdded"] for w in weeks] == [0, 0, 1]
    assert weeks[-1]["byOrigin"] == [{"origin": "tool", "count": 1}]
    assert weeks[-1]["linksBroken"] == 1
    assert all(w["retention"] for w in weeks)  # all start before the first record: said


@checks("memory-health.graphql")
async def _memory_health(live: LiveServer, root: Path) -> None:
    health = (await run(live, "memory-health.graphql", top=100, first=100))["memoryHealth"]
    expected = check_report(root)
    files = memory_files(root)
    total = health["total"]
    assert (total["notes"], total["links"], total["broken"]) == (
        len(files), expected.stats.links, expected.stats.broken
    )
    assert sorted(row["scope"] for row in health["scopes"]) == sorted({p.parent.name for p in files.values()})
    untyped = sorted(i for i, p in files.items() if frontmatter_value(p, "type") is None)
    assert [n["id"] for n in health["withoutType"]["nodes"]] == untyped
    linked = {WIKILINK.match(t).group(1).split("|")[0].split("#")[0].strip()  # type: ignore[union-attr]
              for p in files.values() for t in link_texts(p)}
    orphans = [i for i, p in files.items() if not link_texts(p) and i.split("/")[-1] not in linked]
    assert [n["id"] for n in health["orphans"]["nodes"]] == sorted(orphans)
    assert sum(w["notes"] for w in health["mostWanted"]) <= expected.stats.broken
    assert health["hubs"] == sorted(health["hubs"], key=lambda h: -h["links"])


@checks("graph-clusters.graphql")
async def _graph_clusters(live: LiveServer, root: Path) -> None:
    summary = (await run(live, "graph-clusters.graphql"))["graphClusters"]
    files = memory_files(root)
    per_scope: dict[str, int] = {}
    for p in files.values():
        per_scope[p.parent.name] = per_scope.get(p.parent.name, 0) + 1
    assert summary["notes"] == len(files)
    assert {s["scope"]: s["notes"] for s in summary["scopes"] if s["notes"]} == per_scope
    notes = [c for c in summary["clusters"] if c["kind"] == "notes"]
    assert sum(c["notes"] for c in notes) == len(files)
    # A small folder is one cluster: here one per scope.
    assert {c["scope"]: c["notes"] for c in notes} == per_scope
    stats = check_report(root).stats
    assert summary["problems"] == stats.broken + stats.ambiguous + stats.missing_anchor
    n = len(summary["clusters"])
    assert all(0 <= a < b < n for a, b in zip(summary["edgeSources"], summary["edgeTargets"], strict=True))
    assert sum(summary["edgeLinks"]) + sum(c["links"] for c in summary["clusters"]) == summary["links"]


@checks("cluster-notes.graphql")
async def _cluster_notes(live: LiveServer, root: Path) -> None:
    summary = (await run(live, "graph-clusters.graphql"))["graphClusters"]
    files = memory_files(root)
    for c in summary["clusters"]:
        if c["kind"] != "notes":
            continue
        drawn = (await run(live, "cluster-notes.graphql", cluster=c["id"]))["graphOverview"]
        columns = drawn["columns"]
        ids = sorted(i for i, k in zip(columns["id"], columns["kind"], strict=True) if k == "memory")
        assert ids == sorted(i for i, p in files.items() if p.parent.name == c["scope"]), c["id"]
        assert (drawn["memoryTotal"], drawn["truncated"]) == (c["notes"], False)
    one = next(c for c in summary["clusters"] if c["kind"] == "notes" and c["notes"] > 1)
    capped = (await run(live, "cluster-notes.graphql", cluster=one["id"], limit=1))["graphOverview"]
    assert capped["columns"]["kind"].count("memory") == 1
    assert (capped["memoryTotal"], capped["truncated"]) == (one["notes"], True)


@checks("neighborhood.graphql")
async def _neighborhood(live: LiveServer, root: Path) -> None:
    node_id = "memory:release-writer/house-style"
    near = (await run(live, "neighborhood.graphql", id=node_id))["neighborhood"]
    ids = {n["id"] for n in near["nodes"]}
    memory = (await run(live, "memory.graphql", path="memory/release-writer/house-style.md"))["memory"]
    assert ids == {node_id, "agent:release-writer"} | {
        link["target"]["id"] for link in memory["links"]
    } | {b["source"]["id"] for b in memory["backlinks"]}
    assert all(e["source"] in ids and e["target"] in ids for e in near["edges"])
    remembers = {"type": "REMEMBERS", "source": "agent:release-writer", "target": node_id, "link": None}
    assert remembers in near["edges"]
    wider = (await run(live, "neighborhood.graphql", id=node_id, depth=2))["neighborhood"]
    assert ids < {n["id"] for n in wider["nodes"]}
    assert (await run(live, "neighborhood.graphql", id="memory:nope/nope"))["neighborhood"] is None


@checks("problems.graphql")
async def _problems(live: LiveServer, root: Path) -> None:
    seen: list[tuple[str, str, int | None]] = []
    after = None
    while True:
        page = (await run(live, "problems.graphql", first=2, after=after))["problems"]
        seen += [(e["node"]["path"], e["node"]["code"], e["node"]["line"]) for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    expected = check_report(root).problems
    assert sorted(seen, key=str) == sorted(((p.path, p.code, p.line) for p in expected), key=str)
    errors = (await run(live, "problems.graphql", severity="ERROR"))["problems"]
    assert errors["totalCount"] == sum(1 for p in expected if p.severity.value == "error")
    assert all(e["node"]["fix"] for e in errors["edges"])


@checks("entities.graphql")
async def _entities(live: LiveServer, root: Path) -> None:
    answer = await run(live, "entities.graphql")
    for field, folder in (("workflows", "workflows"), ("chats", "chats"), ("workItems", "work-items")):
        on_disk = {p.stem: p for p in (root / folder).iterdir() if not p.name.startswith(".")}
        assert sorted(e["name"] for e in answer[field]) == sorted(on_disk)
        for entity in answer[field]:
            assert entity["path"] == on_disk[entity["name"]].relative_to(root).as_posix()
            for backlink in entity["backlinks"]:
                assert entity["name"].lower() in backlink["text"].lower()
    train = next(w for w in answer["workflows"] if w["name"] == "release-train")
    assert train["title"] == "Release train"
    assert train["backlinks"], "notes link to the release train"


@checks("graph-changed.graphql")
async def _graph_changed(live: LiveServer, root: Path) -> None:
    rel = "memory/release-writer/house-style.md"
    text = (root / rel).read_text(encoding="utf-8")
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(document("graph-changed.graphql"), {"scope": "release-writer"})
        await until_subscribed(live.base)
        write(root, "memory/shared/glossary.md", "an edit in another scope\n")
        write(root, rel, text.replace("headline first", "headline always first"))
        event = (await stream.payload(timeout=15))["data"]["graphChanged"]
    assert (event["kind"], event["id"]) == ("CHANGED", "memory:release-writer/house-style")
    assert event["scope"] == "release-writer"
    assert "description" in event["fields"]
    assert "headline always first" in event["node"]["description"]


@checks("maintenance-report.graphql")
async def _maintenance_report(live: LiveServer, root: Path) -> None:
    from brain.maintain import find

    expected = find(reference(root)).findings  # the oracle: the same pass over a fresh embedded graph
    answer = (await run(live, "maintenance-report.graphql"))["maintenanceReport"]
    assert [(f["code"], f["path"], f["safe"]) for f in answer["findings"]] == [
        (f.code, f.path, f.safe) for f in expected
    ]
    assert answer["findings"], "the example workspace has something to tidy"
    for finding in answer["findings"]:
        assert (root / finding["path"]).is_file()
        scope = finding["path"].split("/")[1]
        assert finding["proposal"]["agent"] == (None if scope == "shared" else scope)
    one = (await run(live, "maintenance-report.graphql", scope="shared"))["maintenanceReport"]
    assert all(f["scope"] == "shared" for f in one["findings"])


# ------------------------------------------------------------------ the tests


def test_every_document_is_checked() -> None:
    assert sorted(p.name for p in DOCUMENTS.glob("*.graphql")) == sorted(CHECKS)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_document_is_valid_against_the_schema(name: str) -> None:
    schema = build_schema()
    assert validate(schema._schema, parse(document(name))) == []


# The documents that change the workspace: each runs on a copy of its own. The others only
# read, and share one served copy a store (the shared copy is checked unchanged at the end).
WRITES = {
    "change-digest.graphql": "writes a memory through GraphQL",
    "graph-changed.graphql": "edits two files and waits for the event",
}
READS = sorted(set(CHECKS) - set(WRITES))


def test_the_writing_documents_are_documents() -> None:
    assert set(WRITES) <= set(CHECKS)


def example_files(root: Path) -> dict[str, bytes]:
    """What a served copy holds of the example (brain's own .brain folder aside)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".brain" not in p.relative_to(root).parts}


@pytest.fixture(scope="module", params=STORES)
def shared_example(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LiveServer, Path]]:
    """One served copy of the example a store, for the documents that only read: the
    example's ingest (on Neo4j several transactions, 2-7 s a test in CI) once, not once a
    document. It fails at the end if a reading document changed a file of it."""
    root = Path(shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("documents") / "workspace"))
    before = example_files(root)
    store: GraphStore = (MemoryStore() if request.param == "memory"
                         else open_neo4j(request.getfixturevalue("neo4j_login")))
    try:
        with live_server(root, store, watch=False) as live:
            yield live, root
    finally:
        store.close()
    assert example_files(root) == before, "a reading document changed the shared copy"


@pytest.mark.parametrize("name", READS)
async def test_document_answers_on_the_example_workspace(
    name: str, shared_example: tuple[LiveServer, Path]
) -> None:
    live, root = shared_example
    await CHECKS[name](live, root)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A copy of examples/workspace: the writing check changes it."""
    return Path(shutil.copytree(EXAMPLE, tmp_path / "workspace"))


@pytest.fixture
def example_server(
    example: Path, store_factory: Callable[[], GraphStore], request: pytest.FixtureRequest
) -> Iterator[LiveServer]:
    watch = request.node.callspec.params["name"] == "graph-changed.graphql"
    with live_server(example, store_factory(), watch=watch) as live:
        yield live


@pytest.mark.parametrize("name", sorted(WRITES))
async def test_writing_document_answers_on_a_copy_of_its_own(
    name: str, example_server: LiveServer, example: Path
) -> None:
    await CHECKS[name](example_server, example)
