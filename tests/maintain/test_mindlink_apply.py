"""`brain maintain` in a mindlink workspace: proposals are mindlink calls, applied by its verbs.

seeds/003's idle maintain deletes expired daily notes. The latchai memory tool has no agent
to act as there, so the pass proposes and applies the seed's own calls (`memory_delete`,
`memory_write`, `memory_get`) through brain.tool.layouts.mindlink: confined, atomic, in the history.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain.maintain import maintain
from tests.maintain.conftest import open_brain

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mindlink"
RETAIN = 30  # examples/mindlink/brain.toml


def _maintain(root: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "brain", "maintain", str(root), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )
    return done.returncode, done.stdout


def test_apply_deletes_an_expired_daily_note_through_memory_delete(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    day = (datetime.now(UTC).date() - timedelta(days=RETAIN + 7)).isoformat()
    expired = root / "analyst" / "memory" / f"{day}.md"
    expired.write_text(f"# {day}\n\n- Rebuilt the churn dashboard.\n")
    call = {"verb": "memory_delete", "path": f"{day}.md"}

    status, text = _maintain(root)
    assert status == 0
    assert f"-> as analyst: {json.dumps(call)}" in text
    assert '"command"' not in text, "no latchai memory-tool command in a mindlink workspace"
    assert expired.exists(), "without --apply nothing changes"

    status, out = _maintain(root, "--apply", "--format", "json")
    report = json.loads(out)
    assert status == 0, out
    mine = [a for a in report["applied"] if a["path"] == f"analyst/memory/{day}.md"]
    assert mine == [{
        "code": "expired-daily-note", "path": f"analyst/memory/{day}.md", "call": json.dumps(call),
        "ok": True, "result": f"Deleted {day}.md (file, 1 file)",
    }]
    assert all(a["ok"] for a in report["applied"])
    finding = next(f for f in report["findings"] if f["path"] == f"analyst/memory/{day}.md")
    assert finding["proposal"]["tool"] == "mindlink"
    assert finding["proposal"]["command"] == "memory_delete"
    assert not expired.exists()
    records = [json.loads(line) for line in (root / ".brain" / "history.jsonl").read_text().splitlines()]
    mine_recorded = [r for r in records if r["path"] == f"analyst/memory/{day}.md"]
    assert [(r["command"], r["via"], r["scope"]) for r in mine_recorded] == [
        ("memory_delete", "maintain", "analyst"),
    ]

    status, out = _maintain(root, "--apply", "--format", "json")
    again = json.loads(out)
    assert (status, again["applied"]) == (0, [])
    assert not [f for f in again["findings"] if f["safe"]]


def test_link_fixes_are_whole_text_writes_that_chain(tmp_path: Path) -> None:
    """Two fixes in one entry: the second write holds the first's result and expects its hash."""
    (tmp_path / "brain.toml").write_text('layout = "mindlink"\n')
    entries = tmp_path / "bot" / "memory" / "entries"
    entries.mkdir(parents=True)
    (entries / "release-checklist.md").write_text(
        "---\nname: release-checklist\ndescription: Steps before a release.\ntype: project\n---\n\nDone.\n"
    )
    (entries / "deploy-window.md").write_text(
        "---\nname: deploy-window\ndescription: When we deploy.\ntype: project\n---\n\nDone.\n"
    )
    notes = entries / "plan.md"
    notes.write_text(
        "---\nname: plan\ndescription: The plan.\ntype: project\n---\n\n"
        "First [[release-checklst]].\nThen [[deploy-windw]].\n"
    )
    brain, service = open_brain(tmp_path, tmp_path / "history.jsonl")

    report = maintain(brain, apply=True, service=service)

    fixes = [f for f in report.findings if f.code == "fixable-link"]
    assert [(f.proposal.tool, f.proposal.command, f.proposal.arguments["path"]) for f in fixes] == [
        ("mindlink", "memory_write", "entries/plan.md")
    ] * 2
    assert [(a.code, a.ok) for a in report.applied] == [("fixable-link", True)] * 2
    assert "First [[release-checklist]].\nThen [[deploy-window]].\n" in notes.read_text()
    assert [r.command for r in service.history.records()] == ["memory_write", "memory_write"]
