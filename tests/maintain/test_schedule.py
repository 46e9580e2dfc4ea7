"""Scheduled maintenance: once a day at the local hour, applied, capped, and in the history."""

from __future__ import annotations

import signal
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from brain.config.operator import MaintainConfig
from brain.maintain.schedule import MaintenanceScheduler, next_run
from tests.api.test_cli_serve import brain_serve, wait_for_url
from tests.maintain.conftest import note, open_brain, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
TZ = timezone(timedelta(hours=9))  # a local zone that is not UTC, so local and UTC dates differ


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=TZ)


@pytest.mark.parametrize(
    ("now", "last", "expected"),
    [
        (at(3, 1, 30), None, at(3, 2)),
        (at(3, 2, 15), None, at(3, 2, 15)),  # inside the hour: now
        (at(3, 2, 15), date(2026, 11, 3), at(4, 2)),  # done today
        (at(3, 5), date(2026, 11, 2), at(4, 2)),  # the hour has passed
        (at(3, 23, 59), None, at(4, 2)),
    ],
)
def test_next_run(now: datetime, last: date | None, expected: datetime) -> None:
    assert next_run(now, 2, last) == expected


class FakeClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_a_run_a_day_at_the_hour_applied_and_recorded(tmp_path: Path, history_path: Path) -> None:
    files: dict[str, str | tuple[str, float]] = {
        f"memory/shared/copy-{i}.md": (STYLE, 9 - i) for i in range(4)
    }
    root = workspace_with(tmp_path / "ws", files)
    brain, service = open_brain(root, history_path)
    clock = FakeClock(at(3, 1, 59))
    lines: list[str] = []
    scheduler = MaintenanceScheduler(
        brain,
        MaintainConfig(enabled=True, daily_local_hour=2, max_changes_per_run=2),
        clock=clock,
        service=service,
        report=lines.append,
    )
    assert scheduler.tick() is None  # not yet the hour
    assert len(list((root / "memory/shared").iterdir())) == 4

    clock.now = at(3, 2, 0)
    report = scheduler.tick()
    assert report is not None
    assert [a.ok for a in report.applied] == [True, True]  # the cap
    assert report.skipped == 1
    assert len(list((root / "memory/shared").iterdir())) == 2
    assert lines == [f"scheduled maintenance: {report.summary()}"]

    clock.now = at(3, 2, 30)
    assert scheduler.tick() is None  # once a day

    runs = [r for r in service.history.records() if r.command == "maintain"]
    assert len(runs) == 1
    assert runs[0].report is not None
    assert runs[0].report["skipped"] == 1
    assert runs[0].report["localDay"] == "2026-11-03"  # the server's day, whatever UTC says
    assert [a["path"] for a in runs[0].report["applied"]] == [
        "memory/shared/copy-0.md",
        "memory/shared/copy-1.md",
    ]

    # A restart within the hour knows today's run is done (from the history).
    restarted = MaintenanceScheduler(
        brain, MaintainConfig(enabled=True), clock=clock, service=service, report=lines.append
    )
    assert restarted.last_run == date(2026, 11, 3)
    assert restarted.tick() is None

    clock.now = at(4, 2, 1)
    tomorrow = restarted.tick()
    assert tomorrow is not None
    assert len(tomorrow.applied) == 1
    assert [p.name for p in (root / "memory/shared").iterdir()] == ["copy-3.md"]


def test_nothing_runs_before_the_graph_is_read(tmp_path: Path, history_path: Path) -> None:
    from brain.service.brain import Brain
    from brain.tool.history.log import History
    from brain.tool.service import MemoryService

    root = workspace_with(tmp_path / "ws", {"memory/shared/a.md": STYLE, "memory/shared/b.md": STYLE})
    brain = Brain(root)  # not synced
    service = MemoryService(root, brain, history=History(history_path))
    scheduler = MaintenanceScheduler(
        brain, MaintainConfig(enabled=True), clock=FakeClock(at(3, 2)), service=service
    )
    assert scheduler.tick() is None
    assert service.history.records() == []


def test_serve_says_when_maintenance_runs(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", {"memory/shared/a.md": STYLE})
    (tmp_path / "ops.toml").write_text("[maintain]\nenabled = true\ndaily_local_hour = 4\n")
    env = {"BRAIN_MAINTAIN_MAX_CHANGES_PER_RUN": "7"}  # the environment over the file
    with brain_serve(str(root), "--port", "0", "--config", str(tmp_path / "ops.toml"), env=env) as process:
        wait_for_url(process)
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
        assert process.stderr is not None
        stderr = process.stderr.read()
    assert "scheduled maintenance daily at 04:00 local time, at most 7 changes a run" in stderr


def test_serve_is_off_by_default_and_refuses_a_bad_setting(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", {})
    with brain_serve(str(root), "--port", "0") as process:
        wait_for_url(process)
        process.send_signal(signal.SIGTERM)
        process.wait(15)
        assert process.stderr is not None
        assert "scheduled maintenance" not in process.stderr.read()
    (tmp_path / "ops.toml").write_text("[maintain]\ndaily_local_hour = 25\n")
    with brain_serve(str(root), "--port", "0", env={"BRAIN_CONFIG": str(tmp_path / "ops.toml")}) as process:
        assert process.wait(30) == 2
        assert process.stderr is not None
        stderr = process.stderr.read()
    assert "ops.toml line 2: [maintain] daily_local_hour must be an hour from 0 to 23" in stderr


def test_serve_refuses_a_schedule_in_brain_toml(tmp_path: Path) -> None:
    """When maintenance writes, and how much, is the operator's; the workspace cannot turn it on."""
    root = workspace_with(tmp_path / "ws", {})
    (root / "brain.toml").write_text("[maintain]\nenabled = true\n")
    with brain_serve(str(root), "--port", "0") as process:
        assert process.wait(30) == 2
        assert process.stderr is not None
        stderr = process.stderr.read()
    assert stderr.count("\n") == 1, stderr
    assert "brain.toml line 2: [maintain] enabled is an operator setting" in stderr
    assert "BRAIN_MAINTAIN_ENABLED" in stderr
