"""A wrong operator setting stops the real `brain` command with exit 2 and one line that names
the setting, where it was set (file and line, variable, or flag) and the fix, before anything
is read or served; `brain config show` masks every secret. Subprocess runs of the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The machine's own settings stay out: each case sets exactly what it tests.
CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith(("BRAIN_", "NEO4J_")) or k in ("BRAIN_CACHE_DIR",)}


def brain(*words: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *words], capture_output=True, text=True,
                          env={**CLEAN, **(env or {})}, timeout=120)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory" / "alice").mkdir(parents=True)
    (root / "memory" / "alice" / "note.md").write_text("---\ndescription: A note.\n---\nhello\n")
    return root


CASES = [
    # (the file's text or None, variables, flags, what the one line says)
    ('[serve]\nport = "http"\n', {}, (),
     "ops.toml line 2: [serve] port must be a whole number, not 'http'; write e.g. port = 8765"),
    ("[budgets]\nnote_byts = 3\n", {}, (),
     "ops.toml line 2: unknown key `note_byts` in [budgets] (did you mean `note_bytes`?)"),
    ("[budget]\nnote_bytes = 3\n", {}, (),
     "ops.toml line 1: unknown section `budget` (did you mean `budgets`?)"),
    ("[budgets]\nhistory_agent_bytes = 0\n", {}, (),
     "ops.toml line 2: [budgets] history_agent_bytes must be a whole number of at least 1024"),
    ('[store]\nneo4j_uri = "http://db:7474"\n', {}, (),
     "ops.toml line 2: [store] neo4j_uri must be a bolt:// or neo4j:// URI"),
    ('[store]\nneo4j_password_env = "hunter2!"\n', {}, (),
     "[store] neo4j_password_env must be the NAME of an environment variable"),
    ('[log]\nformat = "xml"\n', {}, (), 'ops.toml line 2: [log] format must be "text" or "json"'),
    (None, {"BRAIN_NEO4J_LEASE_SECONDS": "0"}, (),
     "BRAIN_NEO4J_LEASE_SECONDS: [store] neo4j_lease_seconds must be a number of seconds from 0.5 to 3600"),
    ('[serve]\nallowed_hosts = "brain.example.org"\n', {}, (),
     "[serve] allowed_hosts must be a list of strings"),
    (None, {"BRAIN_MAX_NOTE_BYTES": "lots"}, (),
     "BRAIN_MAX_NOTE_BYTES='lots': [budgets] note_bytes must be a whole number; "
     "write e.g. note_bytes = 1048576"),
    (None, {"NEO4J_URI": "localhost"}, (), "NEO4J_URI: [store] neo4j_uri must be a bolt:// or neo4j:// URI"),
    (None, {"BRAIN_LOG_LEVEL": "loud"}, (), "BRAIN_LOG_LEVEL: [log] level must be one of debug, info"),
    (None, {}, ("--set", "log.format=xml"), '--set log.format=xml: [log] format must be "text" or "json"'),
    (None, {}, ("--set", "budgets.note_bytes"), "--set budgets.note_bytes: write --set SECTION.KEY=VALUE"),
    (None, {}, ("--set", "serve.prot=1"),
     "--set serve.prot=1: unknown key `prot` in [serve] (did you mean `port`?)"),
]


# `brain ingest` takes no --config or --set: its settings are the environment's.
RUNS = [(command, *case) for case in CASES for command in ("serve", "config", "ingest")
        if command != "ingest" or (case[0] is None and not case[2])]


@pytest.mark.parametrize(("command", "text", "env", "flags", "message"), RUNS)
def test_a_wrong_setting_is_exit_2_and_one_line(
    command: str, text: str | None, env: dict[str, str], flags: tuple[str, ...], message: str,
    workspace: Path, tmp_path: Path,
) -> None:
    words = {"serve": ["serve", str(workspace), "--port", "0"],
             "config": ["config", "show", str(workspace)], "ingest": ["ingest", str(workspace)]}[command]
    if text is not None:
        ops = tmp_path / "ops.toml"
        ops.write_text(text)
        words += ["--config", str(ops)]
    done = brain(*words, *flags, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # one line, never a traceback
    assert message in done.stderr, done.stderr
    assert done.stdout == ""  # nothing was served, ingested or shown


def test_config_show_masks_every_secret_and_names_each_source(tmp_path: Path) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text(
        '[consolidate]\nurl = "https://user:urlpass@llm.example/v1?key=urlkey"\n'
        'api_key_env = "MY_MODEL_KEY"\n'
        '[store]\nkind = "neo4j"\nneo4j_uri = "bolt://neo:uripass@db.example:7687"\n'
        'neo4j_password_env = "MY_NEO4J_SECRET"\n'
    )
    env = {"MY_MODEL_KEY": "sk-modelsecret", "MY_NEO4J_SECRET": "neo4jsecret",
           "BRAIN_TOKEN": "admintoken", "BRAIN_MAX_NOTE_BYTES": "2048"}
    done = brain("config", "show", "--config", str(ops), "--neo4j-password", "flagsecret",
                 "--port", "9100", env=env)
    assert done.returncode == 0, done.stderr
    secrets = ("urlpass", "urlkey", "sk-modelsecret", "uripass", "neo4jsecret", "admintoken", "flagsecret")
    for secret in secrets:
        assert secret not in done.stdout
    lines = {line.split(" = ")[0]: line for line in done.stdout.splitlines() if " = " in line}
    assert f"# {ops} line 2" in lines["consolidate.url"]
    assert "https://***@llm.example/v1?***" in lines["consolidate.url"]
    assert "bolt://***@db.example:7687" in lines["store.neo4j_uri"]
    assert "(set, not shown)" in lines["MY_NEO4J_SECRET"]
    assert "(set, not shown)" in lines["MY_MODEL_KEY"]
    assert "(set, not shown)" in lines["BRAIN_TOKEN"]
    assert "(set, not shown)" in lines["--neo4j-password"]
    assert lines["budgets.note_bytes"].endswith("# BRAIN_MAX_NOTE_BYTES")
    assert lines["serve.port"].endswith("# --port 9100")
    assert lines["log.format"].endswith("# default")
    as_json = brain("config", "show", "--format", "json", "--config", str(ops), env=env)
    shown = json.loads(as_json.stdout)
    assert shown["file"] == str(ops)
    assert "neo4jsecret" not in as_json.stdout
    assert "sk-modelsecret" not in as_json.stdout


def test_a_workspace_brain_toml_still_may_not_set_an_operator_section(workspace: Path) -> None:
    (workspace / "brain.toml").write_text('[store]\nneo4j_uri = "bolt://evil:7687"\n')
    done = brain("serve", str(workspace), "--port", "0")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "brain.toml line 2: [store] neo4j_uri is an operator setting" in done.stderr, done.stderr
