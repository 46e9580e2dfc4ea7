"""The operator's settings (brain/config/operator.py): file, environment and flags, in that order, each
value remembering where it came from; every mistake one line naming the key, where, and the fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from brain.config.operator import (
    ConsolidateConfig,
    HistoryConfig,
    MaintainConfig,
    OperatorSettings,
    SettingsError,
    load_settings,
)


def test_nothing_set_means_defaults() -> None:
    settings = load_settings({})
    assert settings == OperatorSettings()
    assert settings.maintain.enabled is False  # scheduled maintenance is off by default
    assert settings.consolidate.url == ""  # no endpoint: consolidation is not configured
    assert settings.source("consolidate", "url") == "default"


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    path = tmp_path / "operator.toml"
    path.write_text(
        "# the operator's\n"
        "[maintain]\nenabled = true\ndaily_local_hour = 0\nmax_changes_per_run = 5\n\n"
        '[consolidate]\nurl = "http://localhost:11434/v1"\nmodel = "qwen"\napi_key_env = "MY_KEY"\n'
        "timeout_seconds = 30\n[history]\nkeep_days = 7\n"
    )
    env = {"BRAIN_CONFIG": str(path), "BRAIN_CONSOLIDATE_MODEL": "llama", "BRAIN_MAINTAIN_ENABLED": "off"}
    flags = {"maintain.max_changes_per_run": (3, "--max-changes 3")}
    settings = load_settings(env, flags=flags)
    assert settings.maintain == MaintainConfig(enabled=False, daily_local_hour=0, max_changes_per_run=3)
    assert settings.consolidate == ConsolidateConfig(
        url="http://localhost:11434/v1", model="llama", api_key_env="MY_KEY", timeout_seconds=30.0
    )
    assert settings.history == HistoryConfig(keep_days=7)
    assert settings.path == path
    assert settings.source("consolidate", "url") == f"{path} line 8"
    assert settings.source("consolidate", "model") == "BRAIN_CONSOLIDATE_MODEL"
    assert settings.source("maintain", "enabled") == "BRAIN_MAINTAIN_ENABLED"
    assert settings.source("maintain", "max_changes_per_run") == "--max-changes 3"
    assert settings.source("history", "keep_versions") == "default"
    # --config wins over BRAIN_CONFIG
    other = tmp_path / "other.toml"
    other.write_text("[history]\nkeep_days = 1\n")
    assert load_settings({"BRAIN_CONFIG": str(path)}, config=other).history.keep_days == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[maintain]\nenabeld = true\n",
            "line 2: unknown key `enabeld` in [maintain] (did you mean `enabled`?)",
        ),
        ("[maintian]\nx = 1\n", "line 1: unknown section `maintian` (did you mean `maintain`?)"),
        ("[maintain]\nenabled = 'yes'\n",
         "line 2: [maintain] enabled must be true or false, not 'yes'; write e.g. enabled = false"),
        (
            "[maintain]\ndaily_local_hour = 24\n",
            "line 2: [maintain] daily_local_hour must be an hour from 0 to 23",
        ),
        (
            "[consolidate]\nurl = 'localhost:8080'\n",
            "line 2: [consolidate] url must be an http:// or https:// URL",
        ),
        (
            "[consolidate]\napi_key_env = 'sk-abc123'\n",
            "api_key_env must be the NAME of an environment variable",
        ),
        (
            "[consolidate]\napi_key_env = 'BRAIN_TOKEN'\n",
            "api_key_env names brain's own variable BRAIN_TOKEN",
        ),
        ("[consolidate]\nmax_turns = 50\n", "line 2: [consolidate] max_turns must be from 1 to 30"),
        ('layout = "lab"\n', "line 1: `layout` describes a workspace: set it in that workspace's brain.toml"),
        ("[mindlink]\ndaily_note_retain_days = 3\n", "`mindlink` describes a workspace"),
        ("[maintain\n", "is not valid TOML"),
    ],
)
def test_file_mistakes_name_the_file_line_and_fix(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "operator.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as caught:
        load_settings({}, config=path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"BRAIN_MAINTAIN_ENABLED": "sure"},
            "BRAIN_MAINTAIN_ENABLED='sure': [maintain] enabled must be true or false",
        ),
        ({"BRAIN_MAINTAIN_DAILY_LOCAL_HOUR": "x"}, "[maintain] daily_local_hour must be a whole number"),
        (
            {"BRAIN_MAINTAIN_DAILY_LOCAL_HOUR": "99"},
            "BRAIN_MAINTAIN_DAILY_LOCAL_HOUR: [maintain] daily_local_hour",
        ),
        ({"BRAIN_CONSOLIDATE_URL": "file:///etc/passwd"}, "BRAIN_CONSOLIDATE_URL: [consolidate] url must be"),
        ({"BRAIN_CONSOLIDATE_API_KEY_ENV": "NEO4J_PASSWORD"}, "names brain's own variable NEO4J_PASSWORD"),
        (
            {"BRAIN_CONFIG": "/nonexistent/brain-operator.toml"},
            "BRAIN_CONFIG=/nonexistent/brain-operator.toml: cannot be read",
        ),
    ],
)
def test_environment_mistakes_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(env)
    assert message in str(caught.value)


def test_a_flag_mistake_names_the_flag() -> None:
    with pytest.raises(SettingsError, match=r"^--max-changes 0: \[maintain\] max_changes_per_run must be"):
        load_settings({}, flags={"maintain.max_changes_per_run": (0, "--max-changes 0")})


def test_an_empty_variable_is_unset() -> None:
    assert load_settings({"BRAIN_CONSOLIDATE_URL": ""}).consolidate.url == ""


@pytest.mark.parametrize("where", ["brain.toml", "memory/shared/ops.toml", "."])
def test_a_file_inside_the_workspace_is_refused(tmp_path: Path, where: str) -> None:
    """Anyone who can write the workspace could write it: the operator's file lives outside."""
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    path = root / where
    if where != ".":
        path.write_text("[history]\nkeep_days = 1\n")
    via_link = tmp_path / "link.toml"  # a symbolic link out of the workspace does not launder it
    for named in ([path] if where == "." else [path, via_link]):
        if named is via_link:
            via_link.symlink_to(path)
        with pytest.raises(SettingsError, match=r"lies inside the workspace .* keep it outside"):
            load_settings({}, config=named, workspace=root)
        with pytest.raises(SettingsError, match=r"^BRAIN_CONFIG="):
            load_settings({"BRAIN_CONFIG": str(named)}, workspace=root)
    outside = tmp_path / "operator.toml"
    outside.write_text("[history]\nkeep_days = 1\n")
    assert load_settings({}, config=outside, workspace=root).history.keep_days == 1


def _brain(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BRAIN_", "NEO4J_"))}
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], capture_output=True, text=True, timeout=60, check=False,
        env={**clean, **(env or {})},
    )


def test_config_show_says_where_each_value_came_from_and_hides_secrets(tmp_path: Path) -> None:
    ops = tmp_path / "ops.toml"
    ops.write_text(
        '[consolidate]\nurl = "http://user:hunter2@localhost:11434/v1?key=sk-query"\nmodel = "q"\n'
        'api_key_env = "OPENAI_API_KEY"\n[serve]\nport = 9000\n'
    )
    env = {"BRAIN_CONFIG": str(ops), "BRAIN_PORT": "9100", "BRAIN_TOKEN": "admin-secret",
           "OPENAI_API_KEY": "sk-secret", "BRAIN_MAINTAIN_ENABLED": "1"}
    done = _brain("config", "show", env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for secret in ("hunter2", "sk-query", "admin-secret", "sk-secret"):
        assert secret not in out
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["consolidate.url"].endswith(f"# {ops} line 2")
    assert '"http://***@localhost:11434/v1?***"' in lines["consolidate.url"]
    assert lines["serve.port"].startswith("serve.port = 9100")
    assert lines["serve.port"].endswith("# BRAIN_PORT")
    assert lines["maintain.enabled"].endswith("# BRAIN_MAINTAIN_ENABLED")
    assert lines["history.keep_days"].endswith("# default")
    assert "BRAIN_TOKEN = (set, not shown)" in lines["BRAIN_TOKEN"]
    assert "OPENAI_API_KEY = (set, not shown)" in lines["OPENAI_API_KEY"]
    as_json = json.loads(_brain("config", "show", "--format", "json", env=env).stdout)
    assert as_json["file"] == str(ops)
    assert {"key": "serve.port", "value": "9100", "source": "BRAIN_PORT"} in as_json["settings"]


def test_config_show_refuses_what_serve_would_refuse(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "brain.toml").write_text("[history]\nkeep_days = 1\n")
    done = _brain("config", "show", str(root))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "brain.toml line 2: [history] keep_days is an operator setting" in done.stderr
    (root / "brain.toml").unlink()
    (root / "ops.toml").write_text("")
    done = _brain("config", "show", str(root), "--config", str(root / "ops.toml"))
    assert done.returncode == 2
    assert "the operator config lies inside the workspace" in done.stderr


def test_serve_takes_its_address_from_the_operator_config(tmp_path: Path) -> None:
    """[serve] of the operator file, under the environment, under flags; and a [serve] in
    brain.toml is refused like every operator section."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    ops = tmp_path / "ops.toml"
    ops.write_text(f'[serve]\nhost = "127.0.0.1"\nport = {port}\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(root), "--config", str(ops)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("BRAIN_") or k == "BRAIN_SNAPSHOT_DIR"},
    )
    try:
        assert process.stdout is not None
        assert f"ready on http://127.0.0.1:{port}/graphql" in process.stdout.readline()
    finally:
        process.terminate()
        process.wait(15)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    (root / "brain.toml").write_text("[serve]\nport = 80\n")
    done = _brain("serve", str(root), "--port", "0")
    assert done.returncode == 2
    assert "brain.toml line 2: [serve] port is an operator setting" in done.stderr
    assert "or BRAIN_PORT" in done.stderr
