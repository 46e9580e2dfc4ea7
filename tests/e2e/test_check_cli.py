"""`brain check` and `brain ingest` end to end: a real subprocess on a fixture workspace.

tests/fixtures/all-problems holds every problem code at least once next to healthy notes
(links to a workflow, a chat, a work item, an agent, headings, an embed, links in code).
The JSON report is asserted whole, the text report line by line, and the exit codes for
errors, warnings with and without --strict, and usage errors.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.model import Severity

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "all-problems"
PROBLEM_CODES = {
    "broken-link", "ambiguous-link", "missing-anchor", "invalid-frontmatter", "not-markdown",
    "nested-directory", "memory-off", "outside-scope", "symlink", "duplicate-file", "invalid-encoding",
    "empty-link",
}


def brain(
    *args: str | Path, cwd: Path = REPO, snapshots: Path | None = None
) -> subprocess.CompletedProcess[str]:
    # The user's settings must not leak in; the session's private snapshot folder must
    # (conftest.py), so that no snapshot in ~/.cache from another brain is read.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BRAIN_", "NEO4J_")) or k == "BRAIN_SNAPSHOT_DIR"}
    if snapshots is not None:
        env["BRAIN_SNAPSHOT_DIR"] = str(snapshots)
    return subprocess.run(
        [sys.executable, "-m", "brain", *map(str, args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


EXPECTED_JSON = {
    "summary": {
        "agents": 2, "memories": 7, "links": 16, "broken": 2, "ambiguous": 1, "errors": 8, "warnings": 7,
        "layout": "latchai", "layoutReason": "layout latchai (detected: a memory/ folder at the root)",
    },
    "problems": [
        {
            "severity": "warning", "code": "memory-off", "path": "memory/reviewer",
            "message": "agent `reviewer` is defined in agents/reviewer.md without `memory: true`: "
            "its notes are kept but it cannot remember",
            "fix": "add `memory: true` to the frontmatter of agents/reviewer.md",
        },
        {
            "severity": "error", "code": "invalid-frontmatter", "path": "memory/shared/retro.md",
            "line": 2, "column": 19,
            "message": "frontmatter is not valid YAML: mapping values are not allowed in this context",
            "fix": "fix the YAML (quote values that contain `: ` or start with `[`, `{`, `*`)",
        },
        {
            "severity": "warning", "code": "outside-scope", "path": "memory/stray.md",
            "message": "not inside a scope folder, so no agent remembers it",
            "fix": "move it to memory/shared/stray.md or into an agent's folder",
        },
        {
            "severity": "warning", "code": "symlink", "path": "memory/writer/alias.md",
            "message": "a symbolic link: brain does not follow links",
            "fix": "replace the link with the file itself",
        },
        {
            "severity": "warning", "code": "nested-directory", "path": "memory/writer/archive/old.md",
            "message": "in a nested folder: memories live directly in memory/writer/",
            "fix": "move it to memory/writer/old.md",
        },
        {
            "severity": "error", "code": "ambiguous-link", "path": "memory/writer/drafts.md",
            "line": 11, "column": 7,
            "message": "`[[release]]` could mean any of: chat:release, workflow:release",
            "target": "release", "candidates": ["chat:release", "workflow:release"],
            "fix": "name one explicitly, e.g. `[[chat:release]]`",
        },
        {
            "severity": "error", "code": "missing-anchor", "path": "memory/writer/drafts.md",
            "line": 11, "column": 24,
            "message": "`[[style#Nope]]`: the target has no heading `Nope`",
            "target": "style",
            "fix": "link to an existing heading or add that heading to the target",
        },
        {
            "severity": "error", "code": "broken-link", "path": "memory/writer/drafts.md",
            "line": 11, "column": 52,
            "message": "`[[nowhere]]` points to nothing: no memory, workflow, chat or work item "
            "is named `nowhere`",
            "target": "nowhere",
            "fix": "create the note `nowhere` or fix the link's spelling",
        },
        {
            "severity": "error", "code": "broken-link", "path": "memory/writer/drafts.md",
            "line": 11, "column": 74,
            "message": "`[[checklist]]` is out of reach: memories are private to their agent, and "
            "`checklist` is only in another agent's folder (reviewer/checklist)",
            "target": "checklist", "candidates": ["memory:reviewer/checklist"],
            "fix": "link it with its scope, e.g. `[[reviewer/checklist]]`, or move it to memory/shared/",
        },
        {
            "severity": "error", "code": "missing-anchor", "path": "memory/writer/drafts.md",
            "line": 18, "column": 30,
            "message": "`[[style#^slower]]`: the target has no block `^slower`",
            "target": "style",
            "fix": "end a paragraph, list item or quote of the target with ` ^slower`, "
            "or link to an existing block id",
        },
        {
            "severity": "warning", "code": "empty-link", "path": "memory/writer/drafts.md",
            "line": 18, "column": 115,
            "message": "`[[|label]]` links to nothing: it names no note and no heading",
            "fix": "write the note's name before the `|` (`[[Note|label]]`), "
            "or replace the link by its label `label`",
        },
        {
            "severity": "error", "code": "invalid-encoding", "path": "memory/writer/legacy.md",
            "line": 1, "column": 4,
            "message": "not valid UTF-8 (byte 0xe9 on line 1); undecodable bytes are shown as \ufffd",
            "fix": "re-save the file as UTF-8",
        },
        {
            "severity": "warning", "code": "not-markdown", "path": "memory/writer/notes.txt",
            "message": "not a memory: only .md files are memories",
            "fix": "rename it to memory/writer/notes.md if it is a note, else move it out of memory/",
        },
        {
            "severity": "error", "code": "invalid-frontmatter", "path": "memory/writer/todo.md",
            "line": 3, "column": 1,
            "message": "type `todo` is not one of user, feedback, project, reference",
            "target": "todo",
            "fix": "set `type:` to one of user, feedback, project, reference",
        },
        {
            "severity": "warning", "code": "duplicate-file", "path": "workflows/deploy.yaml",
            "message": "defines workflow `deploy` again: brain reads it from workflows/deploy.json "
            "and ignores this file",
            "fix": "merge it into workflows/deploy.json and delete it, or give it another name",
        },
    ],
}


def snapshot(root: Path) -> dict[str, tuple[bytes | str, int]]:
    out: dict[str, tuple[bytes | str, int]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = (os.readlink(path), path.lstat().st_mtime_ns)
        elif path.is_file():
            out[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def test_the_fixture_has_every_problem_code() -> None:
    assert {p["code"] for p in EXPECTED_JSON["problems"]} == PROBLEM_CODES  # type: ignore[index]
    assert (FIXTURE / "memory/writer/alias.md").is_symlink(), "git must keep the symlink"


def test_check_json_is_exact_and_the_workspace_untouched() -> None:
    before = snapshot(FIXTURE)
    result = brain("check", FIXTURE, "--format", "json")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == EXPECTED_JSON
    assert snapshot(FIXTURE) == before, "brain check never writes into the workspace"


def test_a_stale_snapshot_is_replaced_quietly_and_a_damaged_one_is_named(tmp_path: Path) -> None:
    """After an upgrade every snapshot is stale: that is no news for a CI log. Damage is."""
    first = brain("check", FIXTURE, "--format", "json", snapshots=tmp_path)
    (written,) = tmp_path.glob("*.snapshot")
    data = written.read_bytes()
    written.write_bytes(data.replace(b'"format": ', b'"format": 9', 1))  # an older brain's format
    stale = brain("check", FIXTURE, "--format", "json", snapshots=tmp_path)
    assert (stale.returncode, stale.stderr, stale.stdout) == (1, "", first.stdout)

    written.write_bytes(data[: len(data) // 2])
    damaged = brain("check", FIXTURE, "--format", "json", snapshots=tmp_path)
    assert (damaged.returncode, damaged.stdout) == (1, first.stdout)
    assert f"brain: ignoring the snapshot {written}" in damaged.stderr, damaged.stderr
    assert "reading the whole workspace" in damaged.stderr


def test_check_json_fields_follow_the_contract() -> None:
    report = json.loads(brain("check", FIXTURE, "--format", "json").stdout)
    assert list(report) == ["summary", "problems"]
    assert list(report["summary"]) == [
        "agents", "memories", "links", "broken", "ambiguous", "errors", "warnings", "layout",
        "layoutReason",
    ]
    allowed = ["severity", "code", "path", "line", "column", "message", "target", "candidates", "fix"]
    for problem in report["problems"]:
        keys = list(problem)
        assert keys == [k for k in allowed if k in problem], "contract order"
        assert problem["severity"] in {s.value for s in Severity}
        assert ("line" in problem) == ("column" in problem)
        assert re.fullmatch(r"[^/\\][^\\]*", problem["path"]), "relative, with /"
    counts = report["summary"]
    assert counts["errors"] == sum(p["severity"] == "error" for p in report["problems"])
    assert counts["warnings"] == sum(p["severity"] == "warning" for p in report["problems"])


def test_check_text_lines() -> None:
    result = brain("check", FIXTURE)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    expected = []
    for p in EXPECTED_JSON["problems"]:  # type: ignore[attr-defined]
        where = p["path"] + (f":{p['line']}:{p['column']}" if "line" in p else "")
        expected.append(f"{where}: {p['severity']} {p['code']} {p['message']} (fix: {p['fix']})")
    assert lines[:-1] == expected
    assert lines[-1] == (
        "failed: 7 memories of 2 agents, 16 links (2 broken, 1 ambiguous); 8 errors, 7 warnings"
        "; layout latchai (detected: a memory/ folder at the root)"
    )


def test_text_lines_parse_as_path_line_column() -> None:
    line_re = re.compile(r"^(?P<path>[^:]+)(?::(?P<line>\d+):(?P<column>\d+))?: (?P<severity>error|warning) "
                         r"(?P<code>[a-z-]+) (?P<message>.+)$")
    for line in brain("check", FIXTURE).stdout.splitlines()[:-1]:
        assert line_re.match(line), line


def test_a_relative_path_and_a_trailing_slash_report_the_same() -> None:
    relative = brain("check", "tests/fixtures/all-problems/", "--format", "json")
    assert json.loads(relative.stdout) == EXPECTED_JSON


def healthy_copy(tmp_path: Path) -> Path:
    """The fixture without its problems: only the notes and entities that are fine."""
    root = tmp_path / "ws"
    keep = [
        "agents/writer.md", "memory/shared/style.md", "memory/shared/glossary.md",
        "workflows/release.yaml", "work-items/WI-7.md",
    ]
    for rel in keep:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(FIXTURE / rel, root / rel)
    (root / "memory/writer").mkdir(parents=True)
    (root / "memory/writer/plan.md").write_text(
        "---\ndescription: Plan\ntype: project\n---\nSee [[style#Examples]] and [[release]], [[WI-7]].\n"
    )
    return root


def test_a_healthy_workspace_exits_0(tmp_path: Path) -> None:
    root = healthy_copy(tmp_path)
    result = brain("check", root, "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {
        "summary": {
            "agents": 1, "memories": 3, "links": 4, "broken": 0, "ambiguous": 0, "errors": 0, "warnings": 0,
            "layout": "latchai", "layoutReason": "layout latchai (detected: a memory/ folder at the root)",
        },
        "problems": [],
    }
    text = brain("check", root)
    assert (text.returncode, text.stdout) == (
        0, "ok: 3 memories of 1 agents, 4 links (0 broken, 0 ambiguous); 0 errors, 0 warnings"
        "; layout latchai (detected: a memory/ folder at the root)\n",
    )


def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    root = healthy_copy(tmp_path)
    (root / "memory/writer/notes.txt").write_text("not a note")
    assert brain("check", root).returncode == 0
    strict = brain("check", root, "--strict", "--format", "json")
    assert strict.returncode == 1
    assert json.loads(strict.stdout)["summary"]["warnings"] == 1
    assert brain("check", root, "--strict").stdout.splitlines()[-1].startswith("failed: ")


def test_errors_fail_with_or_without_strict() -> None:
    assert brain("check", FIXTURE, "--strict").returncode == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["check"], "the following arguments are required"),
        (["check", "{tmp}/missing"], "is not a folder"),
        (["check", "{tmp}/file.txt"], "is not a folder"),
        (["check", "{tmp}"], "has no memory/ folder"),
        (["check", FIXTURE.as_posix(), "--format", "xml"], "invalid choice"),
        (["check", FIXTURE.as_posix(), "--no-such-option"], "unrecognized arguments"),
        (["ingest", "{tmp}/missing"], "is not a folder"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(tmp_path: Path, args: list[str], words: str) -> None:
    (tmp_path / "file.txt").write_text("x")
    result = brain(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.returncode == 2
    assert result.stdout == ""
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_ingest_prints_a_summary() -> None:
    result = brain("ingest", FIXTURE)
    assert (result.returncode, result.stderr) == (0, "")
    summary = result.stdout.strip()
    assert re.fullmatch(
        r"ingested .+all-problems: 2 agents, 7 memories, 16 links \(2 broken, 1 ambiguous\), "
        r"2 workflows, 1 chats, 1 work items in \d+\.\d\d s \([\d,]+ files/s\)",
        summary,
    ), summary


def test_one_line_per_problem_even_when_a_value_holds_a_newline(tmp_path: Path) -> None:
    note = tmp_path / "memory" / "shared" / "odd.md"
    note.parent.mkdir(parents=True)
    note.write_text('---\ntype: "two\\nlines"\n---\nbody\n')
    lines = brain("check", tmp_path).stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("memory/shared/odd.md:2:1: error invalid-frontmatter type `two\\nlines` ")
    report = json.loads(brain("check", tmp_path, "--format", "json").stdout)
    assert report["problems"][0]["target"] == "two\nlines"
