"""Operator settings precedence, as a table: flags > environment > the --config file > defaults,
for a [serve] key, a budget, a Neo4j setting and the log format, each value's source as
`brain config show` reports it (the real command line, parsed and run in process)."""

from __future__ import annotations

import itertools
import json
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
]
LAYERS = ("file", "env", "flag")
COMBINATIONS = [c for n in range(4) for c in itertools.combinations(LAYERS, n)]


@pytest.mark.parametrize("layers", COMBINATIONS, ids=lambda c: "+".join(c) or "default")
@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.dotted)
def test_the_highest_layer_set_wins_and_is_named(
    key: Key, layers: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for other in KEYS:  # nothing of the machine's own environment leaks into the table
        monkeypatch.delenv(other.env[0], raising=False)
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
