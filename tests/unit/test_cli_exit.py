"""A finished `brain ingest` or `brain check` leaves by os._exit (brain.cli.main.program), skipping
the interpreter's teardown: whatever it printed into a pipe, block-buffered, is written first,
and its exit code is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.contract.helpers import note

# Block-buffered output: the environment this runs in may ask for unbuffered streams.
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def workspace(root: Path) -> Path:
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True)
    (shared / "a.md").write_text(note("a", "[[b]] [[nowhere]]"))
    (shared / "b.md").write_text(note("b", "plain"))
    return root


def test_a_finished_check_writes_its_whole_report_and_keeps_its_exit_code(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "brain", "check", str(root), "--format", "json", "--no-cache"],
        capture_output=True, text=True, env=BUFFERED, timeout=120,
    )
    report = json.loads(done.stdout)
    assert report["summary"]["memories"] == 2
    assert [p["code"] for p in report["problems"]] == ["broken-link"]
    assert done.returncode == 1


def test_a_finished_ingest_writes_its_summary(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "brain", "ingest", str(root), "--no-cache"],
        capture_output=True, text=True, env=BUFFERED, timeout=120,
    )
    assert done.returncode == 0
    assert done.stdout.startswith(f"ingested {root}: ")
    assert "2 memories" in done.stdout
