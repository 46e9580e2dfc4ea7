"""Depth, names and special files (brain/safefs.py), on every front end they reach, in budget.

Before the fixes: a folder ~1,200 levels deep made `brain check` print a RecursionError
traceback, `brain serve` exit at start (and a running server stop applying changes), the
language server know no notes, and `brain space … delete` of it fail; a name that is not
UTF-8 was taken in and then broke GraphQL `memories`/`problems` and made `check --format
json` invalid UTF-8; a FIFO at `.brain/history.jsonl` hung every history read and made a
memory write answer 500 after it had changed the note.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.safefs import MAX_DEPTH
from brain.tool.history.blobs import BlobStore
from tests.conftest import STORES
from tests.hostile.budget import MIB, python_case
from tests.hostile.fs_shapes import bad_names, deep_tree, expected, remove_tree, too_deep_path, workspace
from tests.hostile.zygote import brain_case
from tests.tool.conftest import make_workspace
from tests.tool.test_rest import serve

REPO = Path(__file__).resolve().parents[2]
SECONDS = 30.0
MEMORY = 1024 * MIB


@pytest.fixture(autouse=True)
def _cleaned(tmp_path: Path) -> Iterator[None]:
    yield
    remove_tree(tmp_path / "ws")  # pytest's own cleanup recurses once a level


def check_lines(report: str) -> list[str]:
    return [line for line in report.splitlines() if ": error " in line or ": warning " in line]


def test_check_reports_each_shape_once_and_reads_the_rest(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    text = brain_case(["check", str(root)], seconds=SECONDS, memory=MEMORY)
    print(text.summary())
    assert not text.timed_out, text.summary()
    assert "Traceback" not in text.stderr, text.stderr[-2000:]
    assert text.returncode == 1, text.stdout[-2000:]
    lines = check_lines(text.stdout)
    assert sorted([line.split(": ")[0], line.split()[2]] for line in lines) == expected(root), lines
    assert all("(fix: " in line for line in lines)
    assert "2 memories" in text.stdout  # fine.md and other.md: the rest is read, [[other]] resolves

    as_json = brain_case(["check", str(root), "--format", "json"], seconds=SECONDS, memory=MEMORY)
    assert not as_json.timed_out, as_json.summary()
    # budget.py decodes with "replace": a raw byte that is not UTF-8 would show as U+FFFD.
    assert "\ufffd" not in as_json.stdout
    report = json.loads(as_json.stdout)
    found = sorted([p["path"], p["code"]] for p in report["problems"])
    assert found == expected(root)


def test_space_layout_check_and_delete_of_a_deep_tree(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    memory = root / "bot" / "memory"
    memory.mkdir(parents=True)
    (root / "brain.toml").write_text('layout = "space"\n')
    (memory / "keep.md").write_text("kept\n")
    deep_tree(memory)
    bad_names(memory)
    checked = brain_case(["check", str(root)], seconds=SECONDS, memory=MEMORY)
    assert not checked.timed_out, checked.summary()
    assert "Traceback" not in checked.stderr, checked.stderr[-2000:]
    codes = sorted(line.split()[2] for line in check_lines(checked.stdout))
    assert codes == ["bad-name", "bad-name", "too-deep"], checked.stdout[-2000:]

    listed = brain_case(["space", "bot", "read", "/", "-w", str(root)], seconds=SECONDS, memory=MEMORY)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "bad\\xff.md" in listed.stdout  # shown escaped, never sent raw
    deleted = brain_case(["space", "bot", "delete", "a", "-w", str(root)], seconds=SECONDS, memory=MEMORY)
    print(deleted.summary())
    assert not deleted.timed_out, deleted.summary()
    assert deleted.returncode == 0, deleted.stdout[-2000:] + deleted.stderr[-2000:]
    assert "Traceback" not in deleted.stderr
    assert not (memory / "a").exists()
    assert (memory / "keep.md").read_text() == "kept\n"
    deleted_bad = brain_case(["space", "bot", "delete", "dir\udcfe", "-w", str(root)],
                             seconds=SECONDS, memory=MEMORY)
    assert "Traceback" not in deleted_bad.stderr  # a name that is not UTF-8 is refused as input


@pytest.fixture(params=STORES)
def store_args(request: pytest.FixtureRequest) -> list[str]:
    if request.param == "memory":
        return []
    uri = request.getfixturevalue("neo4j_login")[0]
    return ["--store", "neo4j", "--neo4j-uri", uri, "--neo4j-replace"]


def test_serve_starts_answers_and_keeps_applying_changes(tmp_path: Path, store_args: list[str]) -> None:
    root = workspace(tmp_path / "ws")
    code = (
        f"import sys\nsys.argv = ['fs_shapes', {str(root)!r}, *{store_args!r}]\n"
        "from tests.hostile.fs_shapes import main\nmain()\n"
    )
    outcome = python_case(code, seconds=150, memory=2048 * MIB, cwd=REPO)
    print(outcome.summary(), outcome.stdout[-3000:], outcome.stderr[-3000:])
    assert not outcome.timed_out, outcome.summary()
    seen: dict[str, Any] = json.loads(outcome.stdout)
    assert seen["ready"], (tmp_path / "serve.log").read_text(errors="replace")[-3000:]
    assert seen["healthz"] == "ready"
    start = seen["at_start"]
    assert start["status"] == 200
    assert start["errors"] is None
    assert start["memories"] == ["memory/shared/fine.md", "memory/shared/other.md"]
    assert start["problems"] == expected(root)
    live = seen["live"]
    assert live["status"] == 200
    assert live["errors"] is None
    assert "memory/live/arrived.md" in live["memories"]
    assert all(p in live["problems"] for p in expected(root, live=True)), live["problems"]
    assert seen["healthz_after"] == "ready"
    assert seen["stopped"]
    assert not seen["traceback"], (tmp_path / "serve.log").read_text(errors="replace")[-3000:]


def test_the_language_server_knows_the_notes(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    code = (
        f"import sys\nsys.argv = ['lsp_cases', 'fs-shapes', {str(root)!r}]\n"
        "from tests.hostile.lsp_cases import main\nmain()\n"
    )
    outcome = python_case(code, seconds=60, memory=2048 * MIB, cwd=REPO)
    print(outcome.summary())
    assert not outcome.timed_out, outcome.summary()
    assert outcome.returncode == 0, outcome.stderr[-3000:]
    seen = json.loads(outcome.stdout)
    assert seen["definition"]["answered"]
    assert not seen["definition"]["traceback"]
    targets = [loc.get("uri") or loc.get("targetUri") for loc in seen["definition"]["result"] or []]
    assert targets == [(root / "memory" / "shared" / "other.md").as_uri()]
    assert "broken-link" not in seen["diagnostics"]


def test_depth_budget_is_counted_from_the_root_by_every_walk(tmp_path: Path) -> None:
    """A named-path sync (the watcher's, an editor's) refuses the same folder a full walk does."""
    from brain.service.brain import Brain
    from brain.store.base import MemoryFilter

    root = workspace(tmp_path / "ws")
    brain = Brain(root)
    brain.sync()
    full = sorted([p.path, p.code] for p in brain.problems())
    (root / "memory" / "shared" / "later").mkdir()
    deep_tree(root / "memory" / "shared" / "later", depth=MAX_DEPTH + 5, name="c")
    brain.sync(["memory/shared/later"])
    named = sorted([p.path, p.code] for p in brain.problems())
    assert named == sorted([*full, [too_deep_path("shared/later", "c")[: -2], "too-deep"]])
    shutil.rmtree(root / "memory" / "shared" / "later")
    brain.sync(["memory/shared/later"])
    assert sorted([p.path, p.code] for p in brain.problems()) == full
    bad = os.fsdecode(b"memory/shared/bad\xff.md")  # as the watcher names it
    os.rename(root / bad, root / "memory" / "shared" / "renamed.md")
    brain.sync([bad, "memory/shared/renamed.md"])
    paths = [p.path for p in brain.problems()]
    assert "memory/shared/bad\\xff.md" not in paths
    assert "memory/shared/renamed.md" in [m.path for m in brain.store.list_memories(MemoryFilter())]


# ---------------------------------------------------------------- FIFOs among brain's own files

NOTE = "memory/writer/house-style.md"


def fifo_history(root: Path) -> Path:
    history = root / ".brain" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(history)  # no writer: a blocking open for reading waits forever
    return history


def test_a_fifo_history_refuses_cli_writes_before_any_change_and_never_hangs_a_read(
    tmp_path: Path,
) -> None:
    root = make_workspace(tmp_path / "ws")
    fifo_history(root)
    before = (root / NOTE).read_bytes()
    ws = ["-w", str(root)]
    wrote = brain_case(["memory", "writer", *ws, "str_replace", "/memories/house-style.md", "$$ or $1", "$2"],
                       seconds=SECONDS, memory=MEMORY)
    print(wrote.summary())
    assert not wrote.timed_out, wrote.summary()
    assert wrote.returncode == 1, wrote.stdout + wrote.stderr
    assert "Traceback" not in wrote.stderr
    said = wrote.stdout + wrote.stderr
    assert "history" in said
    assert "FIFO" in said
    assert "nothing was changed" in said
    assert (root / NOTE).read_bytes() == before
    read = brain_case(["memory", "writer", *ws, "history"], seconds=SECONDS, memory=MEMORY)
    assert not read.timed_out, read.summary()
    assert read.returncode == 0, read.stderr[-2000:]
    assert "Traceback" not in read.stderr


def test_a_fifo_history_refuses_space_writes_before_any_change(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "bot" / "memory").mkdir(parents=True)
    (root / "brain.toml").write_text('layout = "space"\n')
    (root / "bot" / "memory" / "keep.md").write_text("kept\n")
    fifo_history(root)
    for verb in (["write", "keep.md", "--text", "changed\n"], ["delete", "keep.md"]):
        argv = ["space", "bot", *verb[:2], "-w", str(root), *verb[2:]]
        done = brain_case(argv, seconds=SECONDS, memory=MEMORY)
        assert not done.timed_out, done.summary()
        assert done.returncode != 0, done.stdout
        assert "FIFO" in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert (root / "bot" / "memory" / "keep.md").read_text() == "kept\n"


def test_a_fifo_history_over_rest_and_graphql_is_a_refusal_not_a_500_after_the_change(
    tmp_path: Path,
) -> None:
    root = make_workspace(tmp_path / "ws")
    history = fifo_history(root)
    before = (root / NOTE).read_bytes()
    with serve(root, history) as live, httpx.Client(base_url=live.base, timeout=15) as http:
        put = http.put("/api/memory/writer/house-style.md", json={"content": "replaced\n"})
        assert put.status_code == 409, put.text
        assert "FIFO" in put.json()["error"]["message"]
        mutation = ('mutation { memoryCreate(agent: "writer", path: "/memories/new.md", fileText: "x\\n")'
                    " { ok refusal { code message } } }")
        created = http.post("/graphql", json={"query": mutation}).json()
        assert "errors" not in created, created
        assert created["data"]["memoryCreate"]["ok"] is False
        assert created["data"]["memoryCreate"]["refusal"]["code"] == "UNSAFE_FOLDER"
        listed = http.get("/api/memory-history")  # a read never waits on the FIFO
        assert listed.status_code == 200, listed.text
        assert http.get("/healthz").status_code == 200
    assert (root / NOTE).read_bytes() == before
    assert not (root / "memory" / "writer" / "new.md").exists()


def test_a_fifo_in_the_blob_folder_is_not_waited_on(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs", 1024)
    digest = blobs.put(b"kept\n")
    assert digest is not None
    path = blobs.directory / digest[:2] / digest
    path.unlink()
    os.mkfifo(path)
    assert blobs.get(digest) is None  # before: a blocking open, forever


def _write(path: bytes, data: bytes = b"---\ndescription: d\n---\nhi\n") -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data)


@pytest.mark.parametrize("layout", ["lab", "space", "mindlink"])
def test_layouts_that_pick_names_report_the_ones_they_cannot_say(tmp_path: Path, layout: str) -> None:
    """Agent, skill and project folders are picked out by name, not walked: each layout still
    reports a name that is not UTF-8, and no agent or problem carries one raw."""
    from brain.service.brain import Brain

    root = tmp_path / "ws"
    root.mkdir()
    (root / "brain.toml").write_text(f'layout = "{layout}"\n')
    base = os.fsencode(root)
    if layout == "lab":
        _write(base + b"/MEMORY.md")
        _write(base + b"/agents/ok/MEMORY.md")
        _write(base + b"/agents/\xff/MEMORY.md")
        _write(base + b"/skills/\xfe/SKILL.md")
        _write(base + b"/projects/p/\xfd.md")
        bad = ["agents/\\xff", "projects/p/\\xfd.md", "skills/\\xfe"]
    else:
        _write(base + b"/ok/memory/entries/fine.md")
        _write(base + b"/\xff/memory/entries/x.md")
        _write(base + b"/ok/memory/entries/\xfe.md")
        bad = ["\\xff", "ok/memory/entries/\\xfe.md"]
    brain = Brain(root)
    brain.sync()
    problems = brain.problems()
    assert sorted(p.path for p in problems if p.code == "bad-name") == bad
    for p in problems:
        json.dumps([p.path, p.message]).encode("utf-8")  # strict: a surrogate would raise
    assert all(safefs_ok(a.name) for a in brain.store.list_agents())


def safefs_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
