"""`brain check --mentions` reports unlinked mentions at Severity.INFO: shown (text and
JSON), never counted as a warning or an error, so the exit code is the same with and
without them, `--strict` included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brain.cli.check import CheckReport
from brain.model import Problem, Severity, Stats


def workspace(root: Path) -> Path:
    (root / "agents").mkdir(parents=True)
    (root / "agents/alice.md").write_text("---\nmemory: true\n---\n", encoding="utf-8")
    (root / "memory/alice").mkdir(parents=True)
    (root / "memory/alice/notes.md").write_text(
        "---\ndescription: What the team learned.\ntype: project\n---\nThe Rust Async guide says so.\n",
        encoding="utf-8")
    (root / "memory/alice/rust-async.md").write_text(
        "---\ndescription: Futures and tasks.\ntype: reference\n---\nfutures\n", encoding="utf-8")
    return root


def check(root: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(Path(__file__).parents[2])}
    return subprocess.run([sys.executable, "-m", "brain", "check", str(root), *flags],
                          capture_output=True, text=True, env=env, timeout=300, check=False)


def test_mentions_are_info_and_never_fail_strict(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    plain = check(root, "--strict", "--format", "json")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    done = check(root, "--strict", "--format", "json", "--mentions")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["summary"]["warnings"], report["summary"]["errors"]) == (0, 0)
    assert [(i["severity"], i["code"], i["path"], i["line"], i["column"], i["replacement"])
            for i in report["info"]] == [
        ("info", "unlinked-mention", "memory/alice/notes.md", 5, 5, "[[rust-async|Rust Async]]"),
    ]
    text = check(root, "--strict", "--mentions")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "memory/alice/notes.md:5:5: info unlinked-mention `Rust Async` names a note" in text.stdout
    assert "0 errors, 0 warnings" in text.stdout


def test_info_problems_count_as_neither_warnings_nor_errors() -> None:
    info = Problem("unlinked-mention", Severity.INFO, "memory/a/x.md", "`y` names a note", line=1, column=1)
    warning = Problem("broken-link", Severity.WARNING, "memory/a/x.md", "no such note")
    stats = Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert CheckReport(stats, [info], strict=True).exit_code == 0
    assert CheckReport(stats, [info], strict=True).warnings == 0
    assert CheckReport(stats, [info, warning], strict=True).exit_code == 1
    assert CheckReport(stats, [], strict=True, info=[info]).exit_code == 0
