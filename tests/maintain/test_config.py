"""brain.toml: defaults, values, and a clear error naming file, line and key for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.config import BrainConfig, ConfigError, ConsolidateConfig, MaintainConfig, load_config


def test_no_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == BrainConfig()
    assert config.maintain.enabled is False  # scheduled maintenance is off by default
    assert config.maintain.daily_local_hour == 2
    assert config.consolidate.max_turns == 30


def test_values(tmp_path: Path) -> None:
    (tmp_path / "brain.toml").write_text(
        "# brain settings\n"
        "[maintain]\nenabled = true\ndaily_local_hour = 0\nmax_changes_per_run = 5\n\n"
        '[consolidate]\nurl = "http://localhost:11434/v1"\nmodel = "qwen"\napi_key_env = "MY_KEY"\n'
        "timeout_seconds = 30\n"
    )
    config = load_config(tmp_path)
    assert config.maintain == MaintainConfig(enabled=True, daily_local_hour=0, max_changes_per_run=5)
    assert config.consolidate == ConsolidateConfig(
        url="http://localhost:11434/v1", model="qwen", api_key_env="MY_KEY", timeout_seconds=30.0
    )
    assert config.path == tmp_path / "brain.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[maintain]\nenabeld = true\n",
            "line 2: unknown key `enabeld` in [maintain] (did you mean `enabled`?)",
        ),
        (
            "[maintain]\nenabled = true\n[maintian]\nx = 1\n",
            "line 3: unknown section `maintian` (did you mean",
        ),
        ("colour = 'blue'\n",
         "line 1: unknown key `colour`; brain.toml knows layout, [maintain], [consolidate], [mindlink]"),
        ("[maintain]\nenabled = 'yes'\n", "line 2: `enabled` must be true or false, not 'yes'"),
        ("[maintain]\ndaily_local_hour = true\n", "`daily_local_hour` must be a whole number, not True"),
        (
            "[maintain]\ndaily_local_hour = 24\n",
            "line 2: [maintain] daily_local_hour must be an hour from 0 to 23",
        ),
        ("[maintain]\nmax_changes_per_run = 0\n", "[maintain] max_changes_per_run must be from 1 to 10000"),
        ("[consolidate]\nurl = 'localhost:8080'\n", "[consolidate] url must be an http:// or https:// URL"),
        (
            "[consolidate]\napi_key_env = 'sk-abc123'\n",
            "api_key_env must be the NAME of an environment variable",
        ),
        ("[consolidate]\nmax_turns = 50\n", "max_turns must be from 1 to 30"),
        ("maintain = 3\n", "line 1: `maintain` must be a section: [maintain]"),
        ("[maintain\nenabled = true\n", "is not valid TOML"),
    ],
)
def test_mistakes_name_the_file_line_and_fix(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "brain.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "brain.toml"))
    assert message in str(caught.value)


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "brain.toml").write_bytes(b"[maintain]\nenabled = true # \xff\n")
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_config(tmp_path)
