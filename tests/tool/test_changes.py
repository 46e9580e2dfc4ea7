"""What changed between two moments: a scripted timeline through real `brain serve` processes.

A write over REST, one over MCP, an edit outside brain while it serves, one while it is
stopped (found by the rescan at the next start), a rename and a delete; then the diff,
checked exactly through `brain diff --format json` and GraphQL `changes`, and privacy:
an agent's token (REST, GraphQL, MCP) never sees another agent's private note.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from brain.ingest.memory_files import content_hash
from brain.tool.history.log import History
from tests.mcp.conftest import TOKENS, build_workspace, http_session

MCP_LINE = re.compile(r"MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+)/mcp")
PLAN = "# Plan\n\nsee [[missing-note]]\n"
PLAN_FIXED = "# Plan\n\nsee [[house-style]]\n"
SHORT_EDIT = "---\ndescription: Maya wants short answers.\ntype: user\n---\n\nConclusion first, always.\n"


@contextmanager
def serving(root: Path, tokens: Path) -> Iterator[str]:
    """`brain serve` as users start it; yields its base URL once ready."""
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "BRAIN_TOKENS_FILE": str(tokens)},
    )
    try:
        assert process.stdout is not None
        base = None
        deadline = time.monotonic() + 120
        while base is None and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.2)[0]:
                line = process.stdout.readline()
                if "ready on" in line:
                    for _ in range(3):
                        found = MCP_LINE.search(process.stdout.readline())
                        if found:
                            base = found.group(1)
                            break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert base is not None, "brain serve never became ready"
        yield base
    finally:
        process.terminate()
        process.wait(30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def history_of(root: Path) -> History:
    return History(root / ".brain" / "history.jsonl")


def past_second(moment: float) -> None:
    """Wait until the clock is in a later second than `moment`'s: records are stamped to the
    second and a window's end includes its second, so a change made before then could fall
    in the window that `moment` ends."""
    time.sleep(max(0.0, int(moment) + 1 - time.time()) + 0.05)


def wait_until(predicate: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def brain_diff(root: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "brain", "diff", str(root), *args, "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def graphql(base: str, token: str, since: str, until: str | None = None) -> dict[str, Any]:
    args = f'since: "{since}"' + (f', until: "{until}"' if until else "")
    answer = httpx.post(
        f"{base}/graphql", json={"query": f"{{ changes({args}) }}"},
        headers={"Authorization": f"Bearer {token}"}, timeout=60,
    ).json()
    assert "errors" not in answer, answer
    found: dict[str, Any] = answer["data"]["changes"]
    return found


def note(path: str, origin: str, by: str) -> dict[str, str]:
    return {"path": path, "origin": origin, "by": by}


async def test_a_scripted_timeline_in_the_diff(tmp_path: Path) -> None:
    """Planted bugs, each seen to fail this test: the watcher's listener removed from
    Brain.sync (the edit while serving is missing), the cold rescan not compared with the
    history (the edit while stopped is missing), the tool's own writes not skipped (plan.md
    and style.md come out `external`), the visibility filter dropped (a writer's diff shows
    review.md)."""
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    style = (root / "memory/writer/house-style.md").read_bytes()
    short = (root / "memory/shared/prefers-short-answers.md").read_bytes()
    start = time.time() - 1
    writer = {"Authorization": "Bearer writer-token"}
    baselines = root / ".brain" / "history" / "baseline-v1.jsonl"
    with serving(root, tokens) as base:
        # The first sync keeps the notes that predate the history (on a thread of its own):
        # the outside edit below comes after, so the version before it is kept.
        wait_until(lambda: baselines.exists() and b"prefers-short-answers.md" in baselines.read_bytes(),
                   "the first versions of the notes that predate the history")
        url = f"{base}/api/memory/writer/plan.md"
        put = httpx.put(url, json={"content": PLAN}, headers=writer, timeout=60)
        assert put.status_code in (200, 201), put.text
        async with http_session(base, "reviewer-token") as session:
            ok, text = await session.memory(
                command="create", path="/memories/review.md", file_text="# Review\n",
            )
            assert ok, text
        (root / "memory/shared/prefers-short-answers.md").write_text(SHORT_EDIT, encoding="utf-8")
        wait_until(lambda: any(r.origin == "external" for r in history_of(root).all()),
                   "the watcher's record")
        middle = time.time() + 1
    past_second(middle)
    (root / "memory/writer/plan.md").write_text(PLAN_FIXED, encoding="utf-8")  # while brain is down
    with serving(root, tokens) as base:
        wait_until(lambda: len([r for r in history_of(root).all() if r.origin == "external"]) == 2,
                   "the rescan at start to record the edit made while stopped")
        after_restart = time.time() + 1
        past_second(after_restart)  # what follows falls after the window that ends here
        async with http_session(base, "writer-token") as session:
            ok, text = await session.memory(
                command="rename", old_path="/memories/house-style.md", new_path="/memories/style.md",
            )
            assert ok, text
        gone = httpx.delete(f"{base}/api/memory/shared/prefers-short-answers.md", headers=writer, timeout=60)
        assert gone.status_code in (200, 204), gone.text
        end = time.time() + 1
        as_admin = graphql(base, "admin-token", iso(start), iso(end))
        as_writer = graphql(base, "writer-token", iso(start), iso(end))
        rest_writer = httpx.get(
            f"{base}/api/changes", params={"since": iso(start), "until": iso(end)}, headers=writer,
            timeout=60,
        ).json()
        async with http_session(base, "writer-token") as session:
            ok, text, mcp_writer = await session.tool(
                "memory_changes", {"since": iso(start), "until": iso(end)},
            )
            assert ok, text
        bad = httpx.get(f"{base}/api/changes", params={"since": "last tuesday"}, headers=writer,
                        timeout=60)

    records = history_of(root).all()
    assert [(r.command, r.path, r.via, r.origin or "tool") for r in records] == [
        ("put", "memory/writer/plan.md", "rest", "tool"),
        ("create", "memory/reviewer/review.md", "mcp", "tool"),
        ("put", "memory/shared/prefers-short-answers.md", "watch", "external"),
        ("put", "memory/writer/plan.md", "rescan", "external"),
        ("rename", "memory/writer/house-style.md", "mcp", "tool"),
        ("delete", "memory/shared/prefers-short-answers.md", "rest", "tool"),
    ]
    # The edit while serving: the content brain saw is kept, and so is the version before it
    # (the first version brain saw of a note that predates the history), so nothing is notKept.
    first = brain_diff(root, "--since", iso(start), "--until", iso(middle))
    assert first == {
        "since": iso(start), "until": iso(middle),
        "notes": {
            "added": [note("memory/reviewer/review.md", "tool", "agent:reviewer"),
                      note("memory/writer/plan.md", "tool", "agent:writer")],
            "removed": [],
            "changed": [{
                "path": "memory/shared/prefers-short-answers.md", "before": content_hash(short),
                "after": content_hash(SHORT_EDIT.encode()), "origin": "external", "by": "external",
            }],
        },
        "links": {"broken": [{"source": "memory/writer/plan.md", "target": "missing-note", "line": 3}],
                  "fixed": []},
        "problems": {"new": [], "gone": []},
        "notKept": [],
        # The window starts before the first record: said, not silently missing.
        "retention": {"oldest": records[0].at,
                      "message": f"the history begins at {records[0].at}: changes before it are not known"},
    }
    # The edit while stopped, found by the rescan at start: it fixed plan.md's link.
    stopped = brain_diff(root, "--since", iso(middle), "--until", iso(after_restart))
    assert stopped["notes"] == {"added": [], "removed": [], "changed": [{
        "path": "memory/writer/plan.md", "before": content_hash(PLAN.encode()),
        "after": content_hash(PLAN_FIXED.encode()), "origin": "external", "by": "external",
    }]}
    assert stopped["retention"] is None  # the history reaches back to this window's start
    assert stopped["links"] == {
        "broken": [], "fixed": [{"source": "memory/writer/plan.md", "target": "missing-note", "line": 3}],
    }
    whole = brain_diff(root, "--since", iso(start), "--until", iso(end))
    assert whole["notes"] == {
        "added": [note("memory/reviewer/review.md", "tool", "agent:reviewer"),
                  note("memory/writer/plan.md", "external", "external"),
                  note("memory/writer/style.md", "tool", "agent:writer")],
        "removed": [note("memory/shared/prefers-short-answers.md", "tool", "agent:writer"),
                    note("memory/writer/house-style.md", "tool", "agent:writer")],
        "changed": [],
    }
    # plan.md now links to a name the rename took away; sources.md, unchanged, links to it and
    # to the note the window deleted: broken by the rename and the delete (issue 44, item 4)
    assert whole["links"]["broken"] == [
        {"source": "memory/writer/plan.md", "target": "house-style", "line": 3},
        {"source": "memory/writer/sources.md", "target": "house-style", "line": 6},
        {"source": "memory/writer/sources.md", "target": "prefers-short-answers", "line": 6},
    ]
    assert content_hash(style) != content_hash(PLAN.encode())
    assert as_admin == whole  # GraphQL and the CLI: one function, one answer
    # An agent's token: its own scope and the shared one, never another agent's notes.
    private = [n for n in whole["notes"]["added"] if n["path"].startswith("memory/reviewer/")]
    assert private
    for seen in (as_writer, rest_writer, mcp_writer):
        assert seen["notes"]["added"] == [n for n in whole["notes"]["added"] if n not in private]
        assert seen["retention"] == whole["retention"] == first["retention"]  # every front end
        assert "reviewer" not in json.dumps(seen)
    assert bad.status_code == 400
    assert "is not a time" in bad.json()["error"]["message"]
    only = brain_diff(root, "--since", iso(start), "--until", iso(end), "--agent", "reviewer")
    assert only["notes"]["added"] == private
    assert only["notes"]["removed"] == []
