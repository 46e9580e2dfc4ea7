"""`brain mcp` logs as `brain serve` does: [log] format and level, on stderr (stdout is the
protocol's), and first what was loaded from where."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_json_log_lines_on_stderr_and_nothing_but_the_protocol_on_stdout(tmp_path: Path) -> None:
    notes = tmp_path / "ws" / "memory" / "alice"
    notes.mkdir(parents=True)
    (notes / "note.md").write_text("---\ndescription: A note.\n---\nhello\n")
    argv = ["mcp", str(tmp_path / "ws"), "--agent", "alice", "--log-format", "json"]
    done = subprocess.run([sys.executable, "-m", "brain", *argv], input="", capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # no request, no answer: nothing of the logs reached the protocol
    lines = [json.loads(line) for line in done.stderr.splitlines()]  # every line is one object
    startup = [r["message"] for r in lines if r["event"] == "startup"]
    assert [m.split(":")[0] for m in startup] == ["config", "store", "ui", "native", "semantic", "log"]
    assert startup[-1] == "log: json at info (--log-format json)"
