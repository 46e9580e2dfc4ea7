"""Operator settings precedence, as a table: flags > environment > the --config file > defaults,
for a [serve] key, a budget, a Neo4j setting and the log format, each value's source as
`brain config show` reports it (the real command line, parsed and run in process)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from brain import budgets
from brain.cli.main import main


class Key(NamedTuple):
    dotted: str
    default: object
    file: tuple[str, object]  # (the TOML of its section, the value it sets)
    env: tuple[str, str, object]  # (variable, its text, the value it sets)
    flag: tuple[tuple[str, ...], object]  # (the flag's words, the value it sets)


KEYS = [
    Key("serve.port", 8765, ("[serve]\nport = 9001\n", 9001), ("BRAIN_PORT", "9002", 9002),
        (("--port", "9003"), 9003)),
    Key("budgets.note_bytes", 1024 * 1024, ("[budgets]\nnote_bytes = 2000000\n", 2000000),
        ("BRAIN_MAX_NOTE_BYTES", "3_000_000", 3000000),
        (("--set", "budgets.note_bytes=4000000"), 4000000)),
    Key("store.neo4j_uri", "", ('[store]\nneo4j_uri = "bolt://file:7687"\n', "bolt://file:7687"),
        ("NEO4J_URI", "bolt://env:7687", "bolt://env:7687"),
        (("--neo4j-uri", "bolt://flag:7687"), "bolt://flag:7687")),
    Key("log.format", "text", ('[log]\nformat = "json"\n', "json"), ("BRAIN_LOG_FORMAT", "text", "text"),
        (("--log-format", "json"), "json")),
    Key("history.keep_days", 90, ("[history]\nkeep_days = 7\n", 7), ("BRAIN_HISTORY_KEEP_DAYS", "8", 8),
        (("--set", "history.keep_days=9"), 9)),
    # Settings read where they are used (brain/config/sections.py PROCESS_KEYS), by their
    # long-standing variables.
    Key("ingest.workers", 0, ("[ingest]\nworkers = 3\n", 3), ("BRAIN_INGEST_WORKERS", "4", 4),
        (("--set", "ingest.workers=5"), 5)),
    Key("search.semantic", True, ("[search]\nsemantic = false\n", False), ("BRAIN_SEMANTIC", "off", False),
        (("--set", "search.semantic=on"), True)),
    Key("cache.dir", "", ('[cache]\ndir = "/srv/file-cache"\n', "/srv/file-cache"),
        ("BRAIN_CACHE_DIR", "/srv/env-cache", "/srv/env-cache"),
        (("--set", "cache.dir=/srv/flag-cache"), "/srv/flag-cache")),
]
LAYERS = ("file", "env", "flag")
COMBINATIONS = [c for n in range(4) for c in itertools.combinations(LAYERS, n)]


@pytest.mark.parametrize("layers", COMBINATIONS, ids=lambda c: "+".join(c) or "default")
@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.dotted)
def test_the_highest_layer_set_wins_and_is_named(
    key: Key, layers: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for other in KEYS:  # nothing of the machine's own environment leaks into the table, and
        # what the command exports for its parse helpers is undone after (an empty one is unset)
        monkeypatch.setenv(other.env[0], "")
    monkeypatch.delenv("BRAIN_CONFIG", raising=False)
    words = ["config", "show", "--format", "json"]
    expected, source = key.default, "default"
    if "file" in layers:
        ops = tmp_path / "ops.toml"
        ops.write_text("# the operator's settings\n" + key.file[0])
        words += ["--config", str(ops)]
        expected, source = key.file[1], f"{ops} line 3"
    if "env" in layers:
        monkeypatch.setenv(key.env[0], key.env[1])
        expected, source = key.env[2], key.env[0]
    if "flag" in layers:
        words += list(key.flag[0])
        expected, source = key.flag[1], " ".join(key.flag[0])
    try:
        assert main(words) == 0
    finally:
        budgets.refresh()  # the command installed its budgets for this process
    shown = json.loads(capsys.readouterr().out)
    row = next(r for r in shown["settings"] if r["key"] == key.dotted)
    assert row["value"] == json.dumps(expected), row
    assert row["source"] == source, row


def test_a_setting_read_where_it_is_used_reaches_it_from_the_file(tmp_path: Path) -> None:
    """[cache] dir in the operator's file moves the startup snapshot (read by brain/snapshot
    through BRAIN_CACHE_DIR, which the command sets from its effective settings)."""
    workspace = tmp_path / "ws"
    (workspace / "memory" / "shared").mkdir(parents=True)
    (workspace / "memory" / "shared" / "a.md").write_text("---\ndescription: A\n---\nText.\n")
    cache, home = tmp_path / "operator-cache", tmp_path / "home"
    ops = tmp_path / "ops.toml"
    ops.write_text(f'[cache]\ndir = "{cache}"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("BRAIN_CACHE_DIR", "BRAIN_SNAPSHOT_DIR")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    done = subprocess.run([sys.executable, "-m", "brain", "ingest", str(workspace), "--config", str(ops)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list((cache / "snapshots").glob("*.snapshot")), done.stderr
    assert not (home / ".cache" / "brain").exists()


@pytest.mark.parametrize("setting", ['[cache]\ndir = "cache"', '[history]\nfile = "h.jsonl"',
                                     '[serve]\nweb_dist = "web/dist"'])
def test_a_relative_path_is_refused_naming_the_line(
    setting: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("BRAIN_CACHE_DIR", "BRAIN_MEMORY_HISTORY", "BRAIN_WEB_DIST"):  # they beat the file
        monkeypatch.setenv(name, "")
    ops = tmp_path / "ops.toml"
    ops.write_text("# ops\n" + setting + "\n")
    assert main(["config", "show", "--config", str(ops)]) == 2
    err = capsys.readouterr().err.strip()
    key = setting.split("\n")[1].split(" ")[0]
    assert err.count("\n") == 0, err
    assert f"{ops} line 3: [" in err, err
    assert f"] {key} must be an absolute path" in err, err
