"""The graph at a moment (issue 44 item 2): a scripted timeline through real `brain serve`
processes, on both stores, checked at each moment against a fresh ingest of that moment's files.

Writes go through REST, MCP, GraphQL and the CLI; one edit is made outside brain while it
serves and one while it is stopped; a note is renamed, one deleted, and `brain maintain
--apply` fixes a link. After each step the workspace's files are copied. The property: at
every moment, GraphQL `asOf` (notes, descriptions, types, links with their statuses and
targets, backlinks, problems, stats) equals what a fresh ingest of the copied files gives, and
`brain check WS --as-of t` prints exactly what `brain check` of the copy prints. Then privacy:
an agent's token sees, as of a moment, its own notes and the shared ones only (GraphQL, MCP,
REST), as it does now.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.model import Severity
from brain.service.brain import Brain
from brain.store.base import MemoryFilter
from brain.tool.history.log import History
from tests.conftest import STORES
from tests.mcp.conftest import TOKENS, build_workspace, http_session
from tests.tool.serving import serving

ADMIN = {"Authorization": "Bearer admin-token"}
WRITER = {"Authorization": "Bearer writer-token"}
NOTES = "---\ndescription: Notes.\ntype: project\n---\n\nSee [[house-styel]] and [[plan]].\n"


def iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def records(root: Path) -> int:
    return len(History(root / ".brain" / "history.jsonl").all())


def wait_until(predicate: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def brain_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True,
                          timeout=300, check=False)


# Runs `main(argv)` for each argv of a JSON list, in order, in this one process: its return
# code (or SystemExit's) and what it printed to stdout, as a JSON list of pairs.
BATCH = """
import contextlib, io, json, sys
from brain.cli.main import main
out = []
for argv in json.loads(sys.argv[1]):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code
    out.append([code, printed.getvalue()])
sys.stdout.write(json.dumps(out))
"""


def brain_cli_each(calls: list[list[str]]) -> list[tuple[int, str]]:
    """`brain ARGS` for each of `calls`, one process for them all: the CLI's own entry (argument
    parsing, the command, its exit code and stdout), without a Python start and brain's imports
    for each (about 0.8 s of CPU a call; the test makes eighteen). brain.cli keeps nothing
    between calls; what the two sides of a comparison print comes from two processes."""
    done = subprocess.run([sys.executable, "-c", BATCH, json.dumps(calls)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return [(code, printed) for code, printed in json.loads(done.stdout)]


def gql(base: str, query: str, headers: dict[str, str] = ADMIN) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.post(f"{base}/graphql", json={"query": query}, headers=headers,
                                        timeout=120).json()
    return answer


class Moments:
    """The timeline's moments: after each step, the time and a copy of the files then."""

    def __init__(self, root: Path, copies: Path) -> None:
        self.root, self.copies = root, copies
        self.taken: list[tuple[str, float, Path]] = []

    def take(self, name: str) -> None:
        copy = self.copies / f"{len(self.taken):02d}-{name}"
        shutil.copytree(self.root, copy, ignore=shutil.ignore_patterns(".brain"))
        self.taken.append((name, time.time(), copy))
        time.sleep(0.01)  # the next change is stamped after this moment


def fresh(copy: Path) -> dict[str, Any]:
    """What a fresh ingest of the files gives: notes with their links and backlinks, problems, stats."""
    brain = Brain(copy)
    brain.sync()
    store = brain.store
    memories = store.list_memories(MemoryFilter(), bodies=False)
    ids = [m.id for m in memories]
    out = store.links_from(ids)
    into = store.links_to(ids)
    notes = {
        m.path: {
            "description": m.description, "type": m.type,
            "links": sorted((lk.raw, lk.line, lk.status.value.upper(), lk.target_id)
                            for lk in out.get(m.id, [])),
            "backlinks": sorted((lk.raw, lk.line, lk.source) for lk in into.get(m.id, [])),
        }
        for m in memories
    }
    found = brain.problems()
    problems = sorted((p.path, p.line, p.code, p.message) for p in found)
    errors = sum(1 for p in found if p.severity is Severity.ERROR)
    stats = brain.stats()
    plan = store.memory_by_path("memory/writer/plan.md")
    near = [] if plan is None else sorted(n.id for n in store.neighborhood(plan.id, 1, 100).nodes)
    overview = sorted(m.id for m in memories) + sorted(a.id for a in store.list_agents())
    brain.close()
    return {"notes": notes, "problems": problems,
            "stats": {"memories": stats.memories, "links": stats.links, "broken": stats.broken,
                      "ambiguous": stats.ambiguous},
            "errors": errors, "neighborhood": near,
            "overview": overview}


def as_of(base: str, at: float) -> dict[str, Any]:
    """The same, from GraphQL `asOf`."""
    when = iso(at)
    answer = gql(base, f"""{{
      memories(asOf: "{when}", first: 100) {{ nodes {{ id path description type
        links {{ text line status targetId }} backlinks {{ text line source {{ id }} }} }} }}
      problems(asOf: "{when}", first: 100) {{ nodes {{ path line code message }} }}
      stats(asOf: "{when}") {{ memories links broken ambiguous }}
      linkReport(asOf: "{when}") {{ errors }}
      graphOverview(asOf: "{when}") {{ nodes {{ id kind }} }}
      neighborhood(id: "memory:writer/plan", asOf: "{when}") {{ nodes {{ ... on Memory {{ id }}
        ... on Agent {{ id }} ... on Unresolved {{ id }} }} }}
    }}""")
    assert "errors" not in answer, answer
    data = answer["data"]
    notes = {
        n["path"]: {
            "description": n["description"],
            "type": n["type"].lower() if n["type"] else None,
            "links": sorted((lk["text"], lk["line"], lk["status"], lk["targetId"]) for lk in n["links"]),
            "backlinks": sorted((lk["text"], lk["line"], lk["source"]["id"]) for lk in n["backlinks"]),
        }
        for n in data["memories"]["nodes"]
    }
    problems = sorted((p["path"], p["line"], p["code"], p["message"]) for p in data["problems"]["nodes"])
    near = data["neighborhood"]
    overview = [n["id"] for n in data["graphOverview"]["nodes"] if n["kind"] in ("memory", "agent")]
    return {"notes": notes, "problems": problems, "stats": data["stats"],
            "errors": data["linkReport"]["errors"],
            "neighborhood": [] if near is None else sorted(n["id"] for n in near["nodes"]),
            "overview": sorted(i for i in overview if i.startswith("memory:")) + sorted(
                i for i in overview if i.startswith("agent:"))}


@pytest.mark.parametrize("store_kind", STORES)
async def test_the_graph_at_each_moment_is_a_fresh_check_of_that_moments_files(
    tmp_path: Path, store_kind: str, request: pytest.FixtureRequest,
) -> None:
    """Planted bugs, each seen to fail this test: the reverse delta taking the `after` of the
    first record after t instead of its `before` (every changed note one version late); the
    rename's new path left present at t (notebook.md before it existed); the absent paths not
    taken away in the re-sync (cli.md at moments before it was created)."""
    store = [] if store_kind == "memory" else [
        "--store", "neo4j", "--neo4j-uri", request.getfixturevalue("neo4j_uri"), "--neo4j-replace",
    ]
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    moments = Moments(root, tmp_path / "copies")
    with serving(root, tokens, *store) as base:
        put = httpx.put(f"{base}/api/memory/writer/plan.md",
                        json={"content": "# Plan\n\nsee [[missing-note]]\n"}, headers=WRITER, timeout=60)
        assert put.status_code == 201, put.text
        moments.take("rest")
        async with http_session(base, "reviewer-token") as session:
            ok, text = await session.memory(
                command="create", path="/memories/review.md",
                file_text="# Review\n\nsee [[plan]] and [[prefers-short-answers]]\n")
            assert ok, text
        moments.take("mcp")
        made = gql(base, f"""mutation {{ memoryCreate(agent: "writer", path: "/memories/notes.md",
                   fileText: {json.dumps(NOTES)}) {{ ok }} }}""")
        assert made["data"]["memoryCreate"]["ok"], made
        moments.take("graphql")
        done = brain_cli("memory", "-w", str(root), "writer", "create", "/memories/cli.md", "--text",
                         "---\ndescription: From the shell.\n---\n\nsee [[notes]]\n")
        assert done.returncode == 0, done.stderr
        moments.take("cli")
        count = records(root)
        (root / "memory/writer/plan.md").write_text("# Plan\n\nsee [[sources]]\n", encoding="utf-8")
        wait_until(lambda: records(root) > count, "the watcher's record of the outside edit")
        moments.take("outside-serving")
        async with http_session(base, "writer-token") as session:
            ok, text = await session.memory(command="rename", old_path="/memories/notes.md",
                                            new_path="/memories/notebook.md")
            assert ok, text
        moments.take("rename")
        gone = httpx.delete(f"{base}/api/memory/writer/cli.md", headers=WRITER, timeout=60)
        assert gone.status_code in (200, 204), gone.text
        moments.take("delete")
        applied = brain_cli("maintain", str(root), "--apply", "--scope", "writer")
        assert applied.returncode == 0, applied.stderr
        assert "[[house-style]]" in (root / "memory/writer/notebook.md").read_text()
        moments.take("maintain")
    count = records(root)
    (root / "memory/writer/plan.md").write_text("# Plan\n\nsee [[missing-again]]\n", encoding="utf-8")
    with serving(root, tokens, *store) as base:
        wait_until(lambda: records(root) > count, "the rescan's record of the edit made while stopped")
        moments.take("outside-stopped")
        for name, at, copy in moments.taken:
            assert as_of(base, at) == fresh(copy), f"as of the moment after the {name} step"
        # Privacy: an agent's token, as of a moment, sees its notes and the shared ones only.
        _, at_mcp, copy_mcp = moments.taken[1]
        health = gql(base, f'{{ memoryHealth(asOf: "{iso(at_mcp)}") {{ total {{ notes }} }} }}', WRITER)
        own = [p for p in copy_mcp.rglob("*.md") if p.parent.name in ("writer", "shared")]
        assert health["data"]["memoryHealth"]["total"]["notes"] == len(own)
        asked = f'{{ memory(path: "memory/reviewer/review.md", asOf: "{iso(at_mcp)}") {{ body }} }}'
        refused = gql(base, asked, WRITER)
        assert refused["data"] is None or refused["data"]["memory"] is None
        assert "errors" in refused
        async with http_session(base, "writer-token") as session:
            ok, text, listing = await session.tool("memory_as_of", {"at": iso(at_mcp)})
            assert ok, text
            assert "review" not in json.dumps(listing)
            assert "private" not in json.dumps(listing)
            assert {n["path"] for n in listing["notes"]} == {
                "/memories/house-style.md", "/memories/plan.md", "/memories/sources.md",
                "/memories/shared/prefers-short-answers.md",
            }
            ok, text, plan = await session.tool("memory_as_of",
                                                {"at": iso(at_mcp), "path": "/memories/plan.md"})
            assert ok, text
            assert plan["text"] == (copy_mcp / "memory/writer/plan.md").read_text()
            assert [(lk["text"], lk["status"]) for lk in plan["links"]] == [("[[missing-note]]", "broken")]
            ok, text, _ = await session.tool("memory_as_of",
                                             {"at": iso(at_mcp), "path": "/memories/review.md"})
            assert not ok
            assert "does not exist" in text
        async with http_session(base, "reviewer-token") as session:
            ok, text, review = await session.tool("memory_as_of",
                                                  {"at": iso(at_mcp), "path": "/memories/review.md"})
            assert ok, text
            # The reviewer's link into the writer's private note is broken as the reviewer sees it.
            assert [(lk["text"], lk["status"]) for lk in review["links"]] == [
                ("[[plan]]", "broken"), ("[[prefers-short-answers]]", "resolved")]
        url = f"{base}/api/memory/reviewer/review.md"
        assert httpx.get(url, params={"asOf": iso(at_mcp)}, headers=WRITER, timeout=60).status_code == 404
        listing_then = httpx.get(f"{base}/api/memory/writer", params={"asOf": iso(at_mcp)}, headers=WRITER,
                                 timeout=60)
        assert listing_then.status_code == 200, listing_then.text
        files = [f["file"] for f in listing_then.json()["files"]]
        assert files == ["house-style.md", "plan.md", "sources.md"]
        others = f"{base}/api/memory/reviewer"
        other = httpx.get(others, params={"asOf": iso(at_mcp)}, headers=WRITER, timeout=60)
        assert other.status_code == httpx.get(others, headers=WRITER, timeout=60).status_code
        assert other.status_code in (403, 404)
        mine = httpx.get(f"{base}/api/memory/writer/plan.md", params={"asOf": iso(at_mcp)}, headers=WRITER,
                         timeout=60)
        assert mine.status_code == 200, mine.text
        assert mine.json()["content"] == (copy_mcp / "memory/writer/plan.md").read_text()
    # The CLI: `brain check WS --as-of t` is `brain check` of the files of t, to the byte.
    # The first moment's pair as `python -m brain` runs; the others' each side in one process.
    name, at, copy = moments.taken[0]
    then = brain_cli("check", str(root), "--as-of", iso(at), "--format", "json")
    of_copy = brain_cli("check", str(copy), "--format", "json")
    assert (then.returncode, then.stdout) == (of_copy.returncode, of_copy.stdout), name
    later = moments.taken[1:]
    thens = brain_cli_each([["check", str(root), "--as-of", iso(at), "--format", "json"]
                            for _, at, _ in later])
    copies = brain_cli_each([["check", str(copy), "--format", "json"] for _, _, copy in later])
    for (name, _, _), then_seen, files_seen in zip(later, thens, copies, strict=True):
        assert then_seen == files_seen, name
    shown = brain_cli("show", str(root), "memory/writer/plan.md", "--as-of", iso(moments.taken[0][1]))
    assert shown.returncode == 0, shown.stderr
    assert "see [[missing-note]]" in shown.stdout
    assert "[[missing-note]] -> unresolved:missing-note (broken)" in shown.stdout
