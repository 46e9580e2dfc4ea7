"""What `brain ingest` imports: nothing that only another command needs (issue 43: the
process is timed from start to exit against `iwe count`, and every import is CPU there)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# importlib.metadata (with zipfile and csv) is for `--version` alone.
NOT_FOR_INGEST = {"importlib.metadata", "zipfile"}


def test_ingest_does_not_import_what_only_other_commands_need(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text("# A\n\nSee [[b]].\n")
    # `-X importtime` names every module imported, the process's own way out aside (brain
    # leaves with os._exit, past any atexit hook).
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "brain", "ingest", str(tmp_path), "--no-cache"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ingested" in done.stdout
    loaded = set(re.findall(r"^import time:.*\|\s*(\S+)$", done.stderr, re.M))
    assert "brain.ingest.ingester" in loaded  # the run did ingest
    assert not loaded & NOT_FOR_INGEST
