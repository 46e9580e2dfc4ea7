"""The operator's settings (brain/settings.py): file, environment and flags, in that order, each
value remembering where it came from; every mistake one line naming the key, where, and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.settings import (
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
        ("[maintain]\nenabled = 'yes'\n", "line 2: `enabled` must be true or false, not 'yes'"),
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
