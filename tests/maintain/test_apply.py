"""`--apply`: only the safe classes, through the memory tool, capped, and idempotent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain.config.operator import MaintainConfig
from brain.maintain import find, maintain, record_run
from brain.maintain.run import MAINTAIN_ACTOR, apply_safe
from tests.maintain.conftest import note, open_brain, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")

MESSY: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-a.md": (STYLE, 5),
    "memory/writer/style-b.md": (STYLE, 1),
    "memory/writer/house-style.md": (note("The real one.", "Headline first, always."), 2),
    "memory/writer/notes.md": note("Notes.", "See [[house-styel]] and [[style-b]]."),
    "memory/writer/old.md": "# Deploy on Fridays\n\nNever.\n",
    "memory/shared/tone.md": note("Tone.", "Plain words."),
    "memory/shared/tone-copy.md": (note("Tone.", "Plain words."), 30),
}


def test_apply_changes_only_the_safe_classes_and_a_second_run_has_nothing_to_apply(
    tmp_path: Path, history_path: Path
) -> None:
    root = workspace_with(tmp_path / "ws", MESSY)
    brain, service = open_brain(root, history_path)
    before_old = (root / "memory/writer/old.md").read_bytes()

    report = maintain(brain, apply=True, service=service)

    assert sorted((a.code, a.path, a.ok) for a in report.applied) == [
        ("duplicate", "memory/shared/tone-copy.md", True),
        ("duplicate", "memory/writer/style-a.md", True),
        ("fixable-link", "memory/writer/notes.md", True),
    ]
    assert not (root / "memory/writer/style-a.md").exists()
    assert (root / "memory/writer/style-b.md").exists()
    assert not (root / "memory/shared/tone-copy.md").exists()
    assert "[[house-style]] and [[style-b]]" in (root / "memory/writer/notes.md").read_text()
    assert (root / "memory/writer/old.md").read_bytes() == before_old  # proposals only
    # Every change is in the memory tool's history, as maintenance.
    records = service.history.records()
    assert {(r.command, r.path, r.via) for r in records} == {
        ("delete", "memory/shared/tone-copy.md", "maintain"),
        ("delete", "memory/writer/style-a.md", "maintain"),
        ("str_replace", "memory/writer/notes.md", "maintain"),
    }
    # The graph followed the writes: the next pass sees the tidy state at once.
    again = maintain(brain, apply=True, service=service)
    assert again.applied == []
    assert again.safe == []
    assert {f.code for f in again.findings} == {"weak-description", "missing-type"}


def test_the_cap_limits_one_run_and_the_next_run_goes_on(tmp_path: Path, history_path: Path) -> None:
    files: dict[str, str | tuple[str, float]] = {
        f"memory/shared/copy-{i}.md": (STYLE, 10 - i) for i in range(6)
    }
    root = workspace_with(tmp_path / "ws", files)
    brain, service = open_brain(root, history_path)
    config = MaintainConfig(max_changes_per_run=2)

    first = maintain(brain, apply=True, service=service, config=config)
    assert [a.ok for a in first.applied] == [True, True]
    assert first.skipped == 3
    assert "3 left for the next run (cap 2 per run)" in first.summary()
    assert len(list((root / "memory/shared").iterdir())) == 4

    second = maintain(brain, apply=True, service=service, config=config)
    third = maintain(brain, apply=True, service=service, config=config)
    assert (len(second.applied), len(third.applied)) == (2, 1)
    assert [p.name for p in (root / "memory/shared").iterdir()] == ["copy-5.md"]  # the newest
    assert maintain(brain, apply=True, service=service, config=config).applied == []


def test_a_note_changed_after_the_pass_read_it_is_not_deleted(tmp_path: Path, history_path: Path) -> None:
    root = workspace_with(
        tmp_path / "ws", {"memory/writer/a.md": (STYLE, 5), "memory/writer/b.md": (STYLE, 1)}
    )
    brain, service = open_brain(root, history_path)
    report = find(brain)
    (root / "memory/writer/a.md").write_text(STYLE + "\nA line someone just added.\n")

    apply_safe(report, service, MAINTAIN_ACTOR, cap=10)

    (applied,) = report.applied
    assert not applied.ok
    assert "changed since you read it" in applied.result
    assert "A line someone just added." in (root / "memory/writer/a.md").read_text()


def test_a_link_fix_that_would_store_a_secret_is_refused(tmp_path: Path, history_path: Path) -> None:
    # The fix rewrites the link's whole line, and the secret scan looks at changed lines.
    line = "See [[house-styel]] with AKIAIOSFODNN7EXAMPLE as the key."
    root = workspace_with(
        tmp_path / "ws", {"memory/writer/house-style.md": STYLE, "memory/writer/n.md": note("N.", line)}
    )
    brain, service = open_brain(root, history_path)
    text = (root / "memory/writer/n.md").read_text()
    report = maintain(brain, apply=True, service=service)
    (applied,) = report.applied
    assert not applied.ok
    assert "AWS access key" in applied.result
    assert "AKIAIOSFODNN7EXAMPLE" not in applied.result  # never echoed
    assert (root / "memory/writer/n.md").read_text() == text


def test_a_run_is_recorded_with_its_report(tmp_path: Path, history_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", MESSY)
    brain, service = open_brain(root, history_path)
    report = maintain(brain, apply=True, service=service)
    record = record_run(service, report)
    (found,) = [r for r in service.history.records() if r.command == "maintain"]
    assert found.id == record.id
    assert found.via == "maintain"
    assert found.scope == "*"
    assert found.report is not None
    assert found.report["summary"] == report.summary()
    assert len(found.report["applied"]) == 3
    assert json.loads(history_path.read_text().splitlines()[-1])["report"]["counts"]["duplicate"] == 2


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **(env or {})},
    )


def test_cli_json_then_apply_then_nothing_left(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", MESSY)
    before = {p: p.read_bytes() for p in root.rglob("*.md")}

    dry = _cli("maintain", str(root), "--format", "json")
    assert dry.returncode == 0, dry.stderr
    data = json.loads(dry.stdout)
    assert set(data) >= {"findings", "applied"}
    assert data["applied"] == []
    assert {f["code"] for f in data["findings"]} == {
        "duplicate",
        "fixable-link",
        "weak-description",
        "missing-type",
    }
    assert all(set(f) >= {"code", "path", "reason", "proposal"} for f in data["findings"])
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == before  # nothing without --apply

    applied = _cli("maintain", str(root), "--apply", "--scope", "writer")
    assert applied.returncode == 0, applied.stderr
    assert "applied 2" in applied.stdout
    assert (root / "memory/shared/tone-copy.md").exists()  # another scope

    again = _cli("maintain", str(root), "--apply", "--scope", "writer", "--format", "json")
    assert json.loads(again.stdout)["applied"] == []
    records = [json.loads(line) for line in (root / ".brain" / "history.jsonl").read_text().splitlines()]
    assert [(r["command"], r["via"]) for r in records] == [
        ("delete", "maintain"),
        ("str_replace", "maintain"),
        ("maintain", "maintain"),
        ("maintain", "maintain"),
    ]
    assert records[2]["report"]["summary"].endswith("applied 2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--scope", "nobody"],
            "there is no memory scope `nobody`; the scopes are: shared, reviewer, writer",
        ),
        (["--max-changes", "0"], "--max-changes must be 1 or more"),
    ],
)
def test_cli_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    root = workspace_with(tmp_path / "ws", {})
    done = _cli("maintain", str(root), *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_cli_reports_a_bad_operator_config(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", {})
    (tmp_path / "ops.toml").write_text("[maintain]\nenabeld = true\n")
    done = _cli("maintain", str(root), "--config", str(tmp_path / "ops.toml"))
    assert done.returncode == 2
    assert "ops.toml line 2: unknown key `enabeld` in [maintain] (did you mean `enabled`?)" in done.stderr


def test_cli_refuses_a_cap_from_brain_toml(tmp_path: Path) -> None:
    """A workspace cannot raise the cap on what one run changes: the limit is the operator's."""
    root = workspace_with(tmp_path / "ws", {})
    (root / "brain.toml").write_text("[maintain]\nmax_changes_per_run = 10000\n")
    done = _cli("maintain", str(root), "--apply")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "brain.toml line 2: [maintain] max_changes_per_run is an operator setting" in done.stderr
    assert "BRAIN_MAINTAIN_MAX_CHANGES_PER_RUN" in done.stderr


def test_cli_takes_the_cap_from_the_operator(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", MESSY)
    done = _cli("maintain", str(root), "--format", "json", env={"BRAIN_MAINTAIN_MAX_CHANGES_PER_RUN": "2"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cap"] == 2
