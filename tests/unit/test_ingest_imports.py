"""What `brain ingest` imports: nothing that only another command needs (issue 43: the
process is timed from start to exit against `iwe count`, and every import is CPU there)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

# importlib.metadata (with zipfile and csv) is for `--version` alone; prometheus_client (and
# the http.server and http.client it imports) for `brain serve`'s /metrics alone.
NOT_FOR_INGEST = {"importlib.metadata", "zipfile", "prometheus_client", "http.server"}


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


# Runs a command of the CLI in this process and says how its store kept memory health.
HEALTH_DRIVER = """
import json, sys
from brain.store.memory import store as memory
made = []
init = memory.MemoryStore.__init__
def recorded(self, *args, **kwargs):
    init(self, *args, **kwargs)
    made.append(self)
memory.MemoryStore.__init__ = recorded
from brain.cli.main import main
code = main(sys.argv[1:])
store = made[0]
print(json.dumps({"code": code, "valid": store._health.valid, "sources": len(store._health.out),
                  "links": sum(len(rows) for _, rows in store._out.items())}))
"""


def test_ingest_and_check_count_no_memory_health(tmp_path: Path) -> None:
    """Neither command asks memory health: their store does not keep its counters batch by
    batch (a third of a first sync's CPU in the ingesting process)."""
    (tmp_path / "memory" / "alice").mkdir(parents=True)
    (tmp_path / "memory" / "alice" / "a.md").write_text("# A\n\nSee [[b]] and [[c]].\n")
    (tmp_path / "memory" / "alice" / "b.md").write_text("# B\n\nSee [[a]].\n")
    for command in ("ingest", "check"):
        done = subprocess.run([sys.executable, "-c", HEALTH_DRIVER, command, str(tmp_path), "--no-cache"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        got = json.loads(done.stdout.strip().splitlines()[-1])
        assert got["links"] == 3  # the graph was written
        assert got["valid"] is False, (command, got)
        assert got["sources"] == 0, (command, got)


# A refused operator setting is one line before the server's or the ingester's imports (a
# second of a core each time: tests/hostile/test_operator_config.py runs dozens of them).
HEAVY = {"brain.api.http.server", "strawberry", "uvicorn", "brain.ingest.ingester", "numpy"}


@pytest.mark.parametrize("words", [["serve", "{ws}", "--port", "0"], ["config", "show", "{ws}"]])
def test_a_refused_setting_imports_neither_the_server_nor_the_ingester(
    tmp_path: Path, words: list[str]
) -> None:
    (tmp_path / "memory").mkdir()
    argv = [w.replace("{ws}", str(tmp_path)) for w in words]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "brain", *argv, "--set", "log.format=xml"],
        capture_output=True, text=True,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert '--set log.format=xml: [log] format must be "text" or "json"' in done.stderr
    loaded = set(re.findall(r"^import time:.*\|\s*(\S+)$", done.stderr, re.M))
    assert "brain.config.operator" in loaded  # the settings were read
    assert not loaded & HEAVY, loaded & HEAVY
