"""The web UI's GraphQL fields: memory review by scope and file, and the graph overview."""

from __future__ import annotations

from pathlib import Path

import httpx

from brain import model
from brain.api.http.auth import TokenRegistry
from brain.ingest.memory_files import content_hash
from brain.service.overview import overview_backbone
from tests.api.client import post
from tests.api.conftest import ServerFactory

SCOPES = "{ memoryScopes { scope agent memoryOff defined files { file name type size age description } } }"
FILE = """query($s: String!, $f: String!) { memoryFile(scope: $s, file: $f) {
  text hash info { path type } problems { code line column } } }"""
WRITE = """mutation($s: String!, $f: String!, $c: String!, $h: String) {
  memoryWrite(scope: $s, file: $f, content: $c, expectedHash: $h) {
    ok path hash previousHash refusal { code message } } }"""
REMOVE = """mutation($s: String!, $f: String!, $h: String) {
  memoryRemove(scope: $s, file: $f, expectedHash: $h) { ok path refusal { code } } }"""
MOVE = """mutation($s: String!, $f: String!, $t: String!, $g: String!) {
  memoryMove(scope: $s, file: $f, newScope: $t, newFile: $g) { ok path refusal { code message } } }"""
OVERVIEW = """{ graphOverview { truncated edgeSources edgeTargets edgeStatus
  nodes { id kind label scope problems memoryOff } } }"""


async def test_scopes_list_shared_first_with_memory_off(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        body = await post(client, live.graphql, SCOPES)
    scopes = body["data"]["memoryScopes"]
    assert [s["scope"] for s in scopes] == ["shared", "bot", "old-bot", "writer"]
    off = {s["scope"]: (s["memoryOff"], s["defined"]) for s in scopes}
    assert off == {
        "shared": (False, True), "bot": (False, True), "old-bot": (True, False), "writer": (False, True),
    }
    glossary = scopes[0]["files"][0]
    assert glossary == {
        "file": "glossary.md", "name": "glossary", "type": "REFERENCE",
        "size": (workspace / "memory/shared/glossary.md").stat().st_size, "age": "today",
        "description": "Team words",
    }


async def test_a_file_with_its_hash_and_problems(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        body = await post(client, live.graphql, FILE, {"s": "bot", "f": "notes.md"})
        missing = await post(client, live.graphql, FILE, {"s": "bot", "f": "nope.md"})
    note = body["data"]["memoryFile"]
    assert note["hash"] == content_hash((workspace / "memory/bot/notes.md").read_bytes())
    assert note["text"] == (workspace / "memory/bot/notes.md").read_text()
    assert {"code": "broken-link", "line": 6, "column": 22} in note["problems"]
    assert missing["data"] == {"memoryFile": None}


async def test_a_write_with_a_stale_hash_is_refused_and_leaves_the_file(
    serve: ServerFactory, workspace: Path
) -> None:
    live = serve(workspace)
    path = workspace / "memory/shared/glossary.md"
    stale = content_hash(path.read_bytes())
    path.write_text(path.read_text() + "Someone else's line.\n")
    theirs = path.read_text()
    async with httpx.AsyncClient() as client:
        target = {"s": "shared", "f": "glossary.md"}
        refused = await post(client, live.graphql, WRITE, {**target, "c": "mine", "h": stale})
        fresh = content_hash(path.read_bytes())
        saved = await post(client, live.graphql, WRITE, {**target, "c": "mine\n", "h": fresh})
    assert refused["data"]["memoryWrite"]["ok"] is False
    assert refused["data"]["memoryWrite"]["refusal"]["code"] == "CONFLICT"
    assert saved["data"]["memoryWrite"] == {
        "ok": True, "path": "memory/shared/glossary.md", "hash": content_hash(b"mine\n"),
        "previousHash": fresh, "refusal": None,
    }
    assert path.read_text() == "mine\n"
    assert theirs != "mine\n"


async def test_new_only_when_absent_and_memory_off_notes_can_be_cleared(
    serve: ServerFactory, workspace: Path
) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        created = await post(client, live.graphql, WRITE, {"s": "writer", "f": "new.md", "c": "x\n", "h": ""})
        again = await post(client, live.graphql, WRITE, {"s": "writer", "f": "new.md", "c": "y\n", "h": ""})
        cleared = await post(client, live.graphql, REMOVE, {"s": "old-bot", "f": "leftover.md"})
        move = {"s": "writer", "f": "new.md", "t": "shared", "g": "newer.md"}
        moved = await post(client, live.graphql, MOVE, move)
        nested = await post(client, live.graphql, WRITE, {"s": "shared", "f": "a/b.md", "c": "x"})
    assert created["data"]["memoryWrite"]["ok"] is True
    assert again["data"]["memoryWrite"]["refusal"]["code"] in ("CONFLICT", "ALREADY_EXISTS")
    assert cleared["data"]["memoryRemove"] == {
        "ok": True, "path": "memory/old-bot/leftover.md", "refusal": None,
    }
    assert not (workspace / "memory/old-bot/leftover.md").exists()
    assert moved["data"]["memoryMove"]["path"] == "memory/shared/newer.md"
    assert (workspace / "memory/shared/newer.md").read_text() == "x\n"
    assert nested["data"]["memoryWrite"]["refusal"]["code"] == "NESTED_DIRECTORY"


async def test_an_agent_token_reaches_its_scope_and_shared_only(
    serve: ServerFactory, workspace: Path, tmp_path: Path
) -> None:
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text('{"bot-token": "bot"}')
    live = serve(workspace, tokens=TokenRegistry(tokens_file=tokens_file))
    async with httpx.AsyncClient() as client:
        scopes = await post(client, live.graphql, SCOPES, token="bot-token")
        other = await post(client, live.graphql, FILE, {"s": "writer", "f": "style.md"}, token="bot-token")
        style = {"s": "writer", "f": "style.md", "c": "x"}
        write = await post(client, live.graphql, WRITE, style, token="bot-token")
        overview = await post(client, live.graphql, OVERVIEW, token="bot-token")
    assert [s["scope"] for s in scopes["data"]["memoryScopes"]] == ["shared", "bot"]
    assert other["data"] == {"memoryFile": None}
    assert write["data"]["memoryWrite"]["refusal"]["code"] == "NOT_FOUND"
    assert "admin token" in overview["errors"][0]["message"]


async def test_the_overview_holds_every_node_and_edge(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        body = await post(client, live.graphql, OVERVIEW)
    o = body["data"]["graphOverview"]
    ids = [n["id"] for n in o["nodes"]]
    assert len(ids) == len(set(ids))
    assert {"memory:bot/notes", "agent:old-bot", "workflow:release", "unresolved:missing-thing"} <= set(ids)
    triples = zip(o["edgeSources"], o["edgeTargets"], o["edgeStatus"], strict=True)
    edges = {(ids[s], ids[t], st) for s, t, st in triples}
    assert ("agent:bot", "memory:bot/notes", None) in edges
    assert ("memory:bot/notes", "unresolved:missing-thing", "BROKEN") in edges
    assert ("memory:bot/notes", "memory:shared/glossary", "RESOLVED") in edges
    notes = next(n for n in o["nodes"] if n["id"] == "memory:bot/notes")
    assert notes["problems"] >= 1
    assert o["truncated"] is False


BUDGETED = """query($budget: Int) { graphOverview(edgeBudget: $budget) { edgeTotal degree columns } }"""


async def test_an_edge_budget_sends_only_the_backbone(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        whole = (await post(client, live.graphql, BUDGETED))["data"]["graphOverview"]
        cut = (await post(client, live.graphql, BUDGETED, {"budget": 1}))["data"]["graphOverview"]
        bad = await post(client, live.graphql, BUDGETED, {"budget": 100_001})
    full, kept = whole["columns"], cut["columns"]
    assert kept["id"] == full["id"], "every node, whatever the budget"
    assert kept["label"] == full["label"]
    assert cut["degree"] == whole["degree"] == kept["degree"] == full["degree"]
    statuses = [None if s is None else model.LinkStatus(s) for s in full["status"]]
    backbone = overview_backbone(full["source"], full["target"], statuses, len(full["id"]), 1)
    assert cut["edgeTotal"] == whole["edgeTotal"] == backbone.total
    assert backbone.total > 1
    assert len(backbone.kept) < backbone.total
    edges = list(zip(full["source"], full["target"], full["status"], strict=True))
    sent = list(zip(kept["source"], kept["target"], kept["status"], strict=True))
    assert sent == [edges[i] for i in backbone.kept]
    assert "broken" in kept["status"]
    assert None not in kept["status"]
    assert "edgeBudget must be between 0 and 100,000, not 100001" in bad["errors"][0]["message"]


async def test_a_scope_s_files_page_by_name(serve: ServerFactory, workspace: Path) -> None:
    for name in ("Beta.md", "alpha.md", "gamma.md", "delta.md"):
        (workspace / "memory/shared" / name).write_text(f"---\ndescription: {name}\n---\n")
    live = serve(workspace)
    page = """query($first: Int, $after: String) { memoryScope(scope: "shared") {
      fileCount files(first: $first, after: $after) { file } } }"""
    async with httpx.AsyncClient() as client:
        whole = await post(client, live.graphql, page)
        first = await post(client, live.graphql, page, {"first": 2})
        rest = await post(client, live.graphql, page, {"after": "Beta.md"})
        gone = await post(client, live.graphql, page, {"after": "c-was-deleted.md", "first": 1})
        bad = await post(client, live.graphql, page, {"first": -1})
    names = [f["file"] for f in whole["data"]["memoryScope"]["files"]]
    assert names[:3] == ["alpha.md", "Beta.md", "delta.md"]  # by name, case folded
    assert whole["data"]["memoryScope"]["fileCount"] == len(names)
    assert [f["file"] for f in first["data"]["memoryScope"]["files"]] == names[:2]
    assert [f["file"] for f in rest["data"]["memoryScope"]["files"]] == names[2:]
    assert [f["file"] for f in gone["data"]["memoryScope"]["files"]] == ["delta.md"]
    assert "out of range" in bad["errors"][0]["message"]
