"""Secrets in the disguises docs/security.md ("Secrets") promises to see through, on every way in.

Before, each of these was written without a refusal and `brain check` said nothing: a token
split over three lines, broken by an HTML comment or a tag, written in spaced letters, split
across the frontmatter's closing fence and the body, or cut by markdown emphasis. Now the
memory tool refuses each (in process, over REST, through `brain memory`), an edit that
completes a split secret is refused too, and `brain check` reports each once, at its line.
The scan stays linear on texts built to make it slow (the cases of tests/hostile/corpus.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from brain.service.brain import Brain
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.api.live import LiveServer
from tests.hostile.budget import MIB
from tests.hostile.zygote import brain_case
from tests.tool.conftest import make_workspace
from tests.tool.secret_corpus import PLANTED, TOKEN, Planted
from tests.tool.test_rest import serve

SECONDS = 15.0
MEMORY = 1024 * MIB
EVASIONS = {p.name: p for p in PLANTED if p.name in {
    "three-line split", "many-line split after a word", "HTML comment in the middle",
    "HTML comment over lines", "HTML tag in the middle", "spaced letters",
    "spaced letters over two lines", "split across frontmatter and body",
    "split across frontmatter and body, indented", "bold in the middle", "escaped underscore",
}}
assert len(EVASIONS) == 11


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


@pytest.fixture
def tool(workspace: Path, tmp_path: Path) -> MemoryTool:
    brain = Brain(workspace)
    brain.sync()
    return MemoryTool(MemoryService(workspace, brain, history=History(tmp_path / "history.jsonl")))


def _note(planted: Planted) -> str:
    """The planted text as a note: with a frontmatter of its own unless it starts one."""
    if planted.text.startswith("---\n"):
        return planted.text
    return "---\ndescription: deploy notes\n---\n" + planted.text


def _line(planted: Planted) -> int:
    return planted.line + (0 if planted.text.startswith("---\n") else 3)


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_the_tool_refuses_each_disguise(tool: MemoryTool, workspace: Path, name: str) -> None:
    planted = EVASIONS[name]
    payload = {"command": "create", "path": "/memories/deploy.md", "file_text": _note(planted)}
    result = tool.run("writer", payload)
    assert result.refusal is not None, name
    assert result.refusal.code.value == "secret"
    assert f"line {_line(planted)} " in result.refusal.message
    assert TOKEN not in result.refusal.message
    assert not (workspace / "memory" / "writer" / "deploy.md").exists()


def test_an_edit_that_completes_a_split_secret_is_refused(tool: MemoryTool, workspace: Path) -> None:
    first = f"---\ndescription: deploy notes\n---\nstart {TOKEN[:14]}\n{TOKEN[14:28]}\n"
    created = tool.run("writer", {"command": "create", "path": "/memories/deploy.md", "file_text": first})
    assert created.refusal is None  # two pieces are not yet a token
    result = tool.run("writer", {
        "command": "insert", "path": "/memories/deploy.md", "insert_line": 5, "insert_text": TOKEN[28:],
    })
    assert result.refusal is not None
    assert result.refusal.code.value == "secret"
    assert "line 4 " in result.refusal.message
    assert (workspace / "memory" / "writer" / "deploy.md").read_text() == first


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("rest")
    with serve(make_workspace(tmp / "ws"), tmp / "history.jsonl") as server:
        yield server


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_rest_refuses_each_disguise(live: LiveServer, name: str) -> None:
    planted = EVASIONS[name]
    with httpx.Client(base_url=live.base, timeout=10) as client:
        response = client.put("/api/memory/writer/deploy.md", json={"content": _note(planted)})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "secret"
    assert f"line {_line(planted)} " in error["message"]
    assert TOKEN not in response.text
    assert not (live.brain.root / "memory" / "writer" / "deploy.md").exists()


@pytest.mark.parametrize("name", ["three-line split", "HTML comment in the middle", "spaced letters",
                                  "split across frontmatter and body"])
def test_the_cli_refuses_the_issue_s_disguises(tmp_path: Path, name: str) -> None:
    root = make_workspace(tmp_path / "ws")
    planted = EVASIONS[name]
    args = ["memory", "--workspace", str(root), "writer", "create", "/memories/deploy.md"]
    outcome = brain_case(args, seconds=SECONDS, memory=MEMORY, stdin=_note(planted).encode())
    assert outcome.returncode == 1, outcome.summary() + outcome.stdout + outcome.stderr
    assert "secret" in outcome.stderr, outcome.stderr
    assert f"line {_line(planted)} " in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert TOKEN not in outcome.stderr + outcome.stdout
    assert not (root / "memory" / "writer" / "deploy.md").exists()


def test_check_reports_each_disguise_once_at_its_line(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    for index, name in enumerate(sorted(EVASIONS)):
        (root / "memory" / "shared" / f"e{index}.md").write_text(_note(EVASIONS[name]))
    (root / "memory" / "shared" / "ci.md").write_text(
        "---\ndescription: release workflow\n---\n```yaml\npermissions:\n  id-token: write\n"
        "  attestations: write\n```\n")
    outcome = brain_case(["check", "--format", "json", str(root)], seconds=SECONDS, memory=MEMORY)
    assert "Traceback" not in outcome.stderr, outcome.stderr[-2000:]
    problems = [p for p in json.loads(outcome.stdout)["problems"] if p["code"] == "secret"]
    got = sorted((p["path"], p["line"]) for p in problems)
    want = sorted((f"memory/shared/e{i}.md", _line(EVASIONS[n])) for i, n in enumerate(sorted(EVASIONS)))
    assert got == want
    assert TOKEN not in outcome.stdout


def test_check_reports_a_keyword_far_from_its_separator(tmp_path: Path) -> None:
    """`password`, 50 blanks, then `: value`: the memory tool refused it, and `brain check`
    said nothing (its prefilter looked at only the 40 characters before each `:` and `=`)."""
    root = make_workspace(tmp_path / "ws")
    spaced = "password" + " " * 50 + ": Zq8xW2pL9v!"
    (root / "memory" / "shared" / "far.md").write_text(f"---\ndescription: db notes\n---\n{spaced}\n")
    outcome = brain_case(["check", "--format", "json", str(root)], seconds=SECONDS, memory=MEMORY)
    assert "Traceback" not in outcome.stderr, outcome.stderr[-2000:]
    problems = [p for p in json.loads(outcome.stdout)["problems"] if p["code"] == "secret"]
    assert [(p["path"], p["line"]) for p in problems] == [("memory/shared/far.md", 4)]
    assert "Zq8xW2pL9v" not in outcome.stdout
