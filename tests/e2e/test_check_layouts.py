"""`brain check` end to end on examples/mindlink and examples/lab: a real subprocess, the
JSON report asserted whole.

Every problem code of the two layouts is in one of the examples. Dates: the mindlink example's
oldest daily note (2025-06-02) is expired on any day these tests run; the others are recent
when written, so the expected report computes which of them are past the retention on the
day the test runs, as brain does (UTC). Which copy of a duplicate is reported depends on
modification times, which a git checkout does not keep: the exact report is taken on a copy
whose times the test sets.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from tests.e2e.test_check_cli import REPO, brain, snapshot

MINDLINK = REPO / "examples" / "mindlink"
LAB = REPO / "examples" / "lab"
MINDLINK_CODES = {"feedback-incomplete", "expired-daily-note", "duplicate-entry", "not-a-memory", "secret"}
LAB_CODES = {"daily-log-name", "undated-entry", "incomplete-skill", "secret"}
SECRET_FIX = "remove the value and rotate it; keep a reference to where the secret is stored instead"
RETAIN_DAYS = 30  # examples/mindlink/brain.toml


def secret(path: str, line: int, column: int) -> dict[str, Any]:
    """A `secret` problem at the column where the value starts (not the line's first)."""
    return {
        "severity": "error", "code": "secret", "path": path, "line": line, "column": column,
        "message": f"line {line} holds what looks like a password or key assignment: "
        "secrets must not be kept in memory",
        "fix": SECRET_FIX,
    }


def expired(path: str, today: date) -> dict[str, Any] | None:
    day = date.fromisoformat(path.rsplit("/", 1)[1].removesuffix(".md"))
    age = (today - day).days
    if age <= RETAIN_DAYS:
        return None
    return {
        "severity": "warning", "code": "expired-daily-note", "path": path,
        "message": f"daily note of {day.isoformat()} is {age} days old; daily notes are kept "
        f"{RETAIN_DAYS} days (`daily_note_retain_days`)",
        "fix": "move what still matters into an entry under memory/entries/, then delete the note "
        "(`brain maintain --apply` deletes expired notes nothing links to)",
    }


def sort_key(p: dict[str, Any]) -> tuple[str, int, int, str]:
    return (p["path"], p.get("line", 0), p.get("column", 0), p["code"])


def mindlink_expected(today: date) -> dict[str, Any]:
    older = "concierge/memory/entries/reply-style-v1.md"
    newer = "concierge/memory/entries/reply-style.md"
    problems: list[dict[str, Any]] = [
        {
            "severity": "warning", "code": "duplicate-entry", "path": older, "line": 1, "column": 1,
            "message": f"same body as {newer}, which is newer: this copy adds nothing",
            "candidates": [newer],
            "fix": f"delete this entry, or make it say something {newer} does not",
        },
        {
            "severity": "error", "code": "feedback-incomplete",
            "path": "concierge/memory/entries/no-weekend-pings.md", "line": 4, "column": 1,
            "message": "a feedback entry must say why and how to apply it: no line starts with "
            "`How to apply:`",
            "fix": "add a line `How to apply: ...` to the body",
        },
        secret("concierge/memory/entries/vendor-portal.md", 9, 18),
        {
            "severity": "warning", "code": "not-a-memory", "path": "concierge/memory/scratch.txt",
            "message": "not a memory: memory/ holds entries (memory/entries/<name>.md) and daily "
            "notes (memory/YYYY-MM-DD.md)",
            "fix": "move it to concierge/memory/entries/scratch.md if it is a memory, else out of memory/",
        },
    ]
    dailies = sorted(str(p.relative_to(MINDLINK)) for p in MINDLINK.glob("*/memory/????-??-??.md"))
    problems += [found for rel in dailies if (found := expired(rel, today)) is not None]
    problems.sort(key=sort_key)
    errors = sum(p["severity"] == "error" for p in problems)
    return {
        "summary": {
            "agents": 2, "memories": 14, "links": 12, "broken": 0, "ambiguous": 0,
            "errors": errors, "warnings": len(problems) - errors, "layout": "mindlink",
            "layoutReason": 'layout mindlink (set: layout = "mindlink" in brain.toml)',
        },
        "problems": problems,
    }


LAB_EXPECTED: dict[str, Any] = {
    "summary": {
        "agents": 3, "memories": 13, "links": 23, "broken": 0, "ambiguous": 0, "errors": 3,
        "warnings": 3, "layout": "lab", "layoutReason": 'layout lab (set: layout = "lab" in brain.toml)',
    },
    "problems": [
        {
            "severity": "warning", "code": "undated-entry", "path": "MEMORY.md", "line": 13, "column": 1,
            "message": "entry (section) without a date: every MEMORY.md entry is timestamped",
            "fix": "add the day it was learned to the entry's heading, as YYYY-MM-DD",
        },
        {
            "severity": "warning", "code": "undated-entry", "path": "agents/ops/MEMORY.md",
            "line": 5, "column": 1,
            "message": "entry (list item) without a date: every MEMORY.md entry is timestamped",
            "fix": "add the day it was learned to the entry's first line, as YYYY-MM-DD",
        },
        secret("memory/2026-12-01.md", 5, 50),
        {
            "severity": "warning", "code": "daily-log-name", "path": "memory/ideas.md",
            "message": "not a daily log: files in memory/ are named after their UTC day, YYYY-MM-DD.md",
            "fix": "rename it to memory/YYYY-MM-DD.md if it is a day's log; durable facts go in "
            "MEMORY.md, project notes in projects/<project>/",
        },
        {
            "severity": "error", "code": "incomplete-skill", "path": "skills/paper-digest/SKILL.md",
            "line": 1, "column": 1,
            "message": "this SKILL.md lacks `triggers`: the agent cannot tell what it is or when to use it",
            "fix": "add a `## Triggers` section listing the phrases that call for this skill",
        },
        {
            "severity": "error", "code": "incomplete-skill", "path": "tools/backup/TOOL.md",
            "line": 1, "column": 1,
            "message": "this TOOL.md lacks `description`: the agent cannot tell what it is or when to use it",
            "fix": "add `description: ...` to the frontmatter",
        },
    ],
}


def copy_with_times(source: Path, target: Path) -> Path:
    """The example, every file modified at one moment, but the older copy of the duplicate."""
    shutil.copytree(source, target)
    moment = 1_795_000_000
    for path in target.rglob("*"):
        if path.is_file():
            os.utime(path, (moment, moment))
    older = target / "concierge/memory/entries/reply-style-v1.md"
    os.utime(older, (moment - 86_400, moment - 86_400))
    return target


def today() -> date:
    return datetime.now(UTC).date()


def test_every_code_of_both_layouts_is_in_an_example() -> None:
    assert {p["code"] for p in mindlink_expected(date(2026, 12, 1))["problems"]} == MINDLINK_CODES
    assert {p["code"] for p in LAB_EXPECTED["problems"]} == LAB_CODES


def test_check_mindlink_json_is_exact(tmp_path: Path) -> None:
    root = copy_with_times(MINDLINK, tmp_path / "mindlink")
    result = brain("check", root, "--format", "json")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == mindlink_expected(today())


def test_check_mindlink_example_in_place() -> None:
    """On the checkout itself: the same report, whichever copy of the duplicate git made newer."""
    before = snapshot(MINDLINK)
    result = brain("check", MINDLINK, "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    duplicates = [p for p in report["problems"] if p["code"] == "duplicate-entry"]
    assert len(duplicates) == 1
    expected = mindlink_expected(today())
    assert [(p["code"], p["path"]) for p in report["problems"] if p["code"] != "duplicate-entry"] == [
        (p["code"], p["path"]) for p in expected["problems"] if p["code"] != "duplicate-entry"
    ]
    assert {duplicates[0]["path"], *duplicates[0]["candidates"]} == {
        "concierge/memory/entries/reply-style.md", "concierge/memory/entries/reply-style-v1.md",
    }
    assert snapshot(MINDLINK) == before, "brain check never writes into the workspace"


def test_check_lab_json_is_exact() -> None:
    before = snapshot(LAB)
    result = brain("check", LAB, "--format", "json")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == LAB_EXPECTED
    assert snapshot(LAB) == before, "brain check never writes into the workspace"


def test_retention_comes_from_brain_toml(tmp_path: Path) -> None:
    """A longer `daily_note_retain_days` keeps the old note; the setting is read per workspace."""
    root = copy_with_times(MINDLINK, tmp_path / "mindlink")
    days = (today() - date(2025, 6, 2)).days
    (root / "brain.toml").write_text(f'layout = "mindlink"\n\n[mindlink]\ndaily_note_retain_days = {days}\n')
    report = json.loads(brain("check", root, "--format", "json").stdout)
    assert "expired-daily-note" not in {p["code"] for p in report["problems"]}


def test_detected_without_brain_toml(tmp_path: Path) -> None:
    """Without brain.toml, the folders say which layout it is, and the report says so."""
    for source, name, reason in (
        (MINDLINK, "mindlink", "layout mindlink (detected: analyst/memory/entries/)"),
        (LAB, "lab", "layout lab (detected: MEMORY.md at the root)"),
    ):
        root = tmp_path / name
        shutil.copytree(source, root)
        (root / "brain.toml").unlink()
        summary = json.loads(brain("check", root, "--format", "json").stdout)["summary"]
        assert (summary["layout"], summary["layoutReason"]) == (name, reason)
