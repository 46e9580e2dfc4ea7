"""brain.toml: the workspace's own settings, and a clear error naming file, line and key for every
mistake, including an operator setting the workspace may not make (design.md §12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.config.messages import ConfigError
from brain.config.workspace import BrainConfig, MindlinkConfig, load_config


def test_no_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == BrainConfig()
    assert config.layout is None  # detected from the folders


def test_values(tmp_path: Path) -> None:
    (tmp_path / "brain.toml").write_text(
        '# brain settings\nlayout = "mindlink"\n[mindlink]\ndaily_note_retain_days = 7\n'
    )
    config = load_config(tmp_path)
    assert config.layout == "mindlink"
    assert config.mindlink == MindlinkConfig(daily_note_retain_days=7)
    assert config.path == tmp_path / "brain.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # What reaches the network, reads a secret, or changes a schedule or a budget is the
        # operator's: each names the key, the line, and where it belongs.
        (
            '[consolidate]\nurl = "http://169.254.169.254/latest"\nmodel = "m"\n',
            "line 2: [consolidate] url is an operator setting, which the workspace may not set",
        ),
        (
            '# key\n[consolidate]\napi_key_env = "BRAIN_TOKEN"\n',
            "line 3: [consolidate] api_key_env is an operator setting",
        ),
        ("[maintain]\nenabled = true\n", "line 2: [maintain] enabled is an operator setting"),
        (
            "[maintain]\nmax_changes_per_run = 10000\n",
            "[maintain] max_changes_per_run is an operator setting",
        ),
        ("[history]\nkeep_days = 1\n", "line 2: [history] keep_days is an operator setting"),
        ("[consolidate]\n", "line 1: [consolidate] is an operator setting"),
        ('consolidate = { url = "http://x" }\n', "line 1: [consolidate] url is an operator setting"),
        ('consolidate.url = "http://x"\n', "[consolidate] url is an operator setting"),
        ("[maintain]\nenabeld = true\n", "[maintain] enabeld is an operator setting"),
        (
            "[mindlink]\ndaily_note_retain_days = 7\n[mindlnk]\nx = 1\n",
            "line 3: unknown section `mindlnk` (did you mean `mindlink`?)",
        ),
        ("colour = 'blue'\n", "line 1: unknown key `colour`; brain.toml knows layout, [mindlink]"),
        (
            "[mindlink]\ndaily_note_retain_days = 'x'\n",
            "line 2: `daily_note_retain_days` must be a whole number",
        ),
        (
            "[mindlink]\ndaily_note_retain_days = 0\n",
            "line 2: [mindlink] daily_note_retain_days must be a number of days from 1 to 36500",
        ),
        ("mindlink = 3\n", "line 1: `mindlink` must be a section: [mindlink]"),
        ("[mindlink\nx = 1\n", "is not valid TOML"),
    ],
)
def test_mistakes_name_the_file_line_and_fix(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "brain.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "brain.toml"))
    assert message in str(caught.value)
    if "operator setting" in message:  # ...and says where it belongs instead
        assert "the operator config (--config FILE or BRAIN_CONFIG), or BRAIN_" in str(caught.value)


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "brain.toml").write_bytes(b'layout = "lab" # \xff\n')
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_config(tmp_path)
