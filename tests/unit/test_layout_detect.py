"""Which layout a folder is read as: brain.toml first, then the folders (brain.layouts.detect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.config.messages import ConfigError
from brain.layouts import LayoutError, choose_layout, choose_layout_leniently, detect_layout


def build(root: Path, entries: list[str]) -> None:
    """`x/` is a folder, anything else a file."""
    for entry in entries:
        path = root / entry
        if entry.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")


DETECTION = [
    # (folders and files, layout, reason)
    ([], "latchai", "an empty workspace: the default layout"),
    ([".git/", ".hidden.md", "brain.toml"], None, None),  # brain.toml without `layout`: see below
    (["memory/"], "latchai", "a memory/ folder at the root"),
    (["memory/shared/a.md", "agents/bot.md"], "latchai", "a memory/ folder at the root"),
    (["agents/bot.md"], "latchai", "agent definitions in agents/"),
    (["workflows/w.yaml"], "latchai", "a workflows/ folder at the root"),
    (["chats/"], "latchai", "a chats/ folder at the root"),
    (["work-items/"], "latchai", "a work-items/ folder at the root"),
    (["MEMORY.md"], "lab", "MEMORY.md at the root"),
    (["MEMORY.md", "memory/2026-01-05.md"], "lab", "MEMORY.md at the root"),
    (["agents/coder/MEMORY.md"], "lab", "agents/coder/MEMORY.md"),
    (["skills/deploy/SKILL.md", "memory/"], "lab", "skills/deploy/SKILL.md"),
    (["tools/grep/TOOL.md"], "lab", "tools/grep/TOOL.md"),
    (["alice/memory/entries/"], "mindlink", "alice/memory/entries/"),
    (["alice/memory/2026-01-05.md"], "mindlink", "daily notes in alice/memory/"),
    (["alice/memory/notes.md", "bob/memory/entries/x.md"], "mindlink", "bob/memory/entries/"),
    (["alice/memory/notes.md"], "space", "alice/memory/"),
    (["alice/memory/", "bob/memory/deep/x.png"], "space", "alice/memory/"),
    (["alice/memory/2026-1-5.md"], "space", "alice/memory/"),  # not a real daily-note name
    (["notes.txt"], "none", None),
    (["alice/notes/"], "none", None),
]


@pytest.mark.parametrize(("entries", "layout", "reason"), DETECTION)
def test_detection(tmp_path: Path, entries: list[str], layout: str | None, reason: str | None) -> None:
    build(tmp_path, entries)
    if layout is None:
        return  # covered by the brain.toml tests
    found = detect_layout(tmp_path)
    if layout == "none":
        assert found is None
        with pytest.raises(LayoutError) as caught:
            choose_layout(tmp_path)
        message = str(caught.value)
        for name in ("latchai", "space", "mindlink", "lab", "brain.toml", 'layout = "'):
            assert name in message
        assert choose_layout_leniently(tmp_path).name == "latchai"
        return
    assert found is not None
    assert (found.name, found.reason, found.detected) == (layout, reason, True)
    assert choose_layout(tmp_path) == found


@pytest.mark.parametrize("layout", ["latchai", "space", "mindlink", "lab"])
def test_brain_toml_wins_over_the_folders(tmp_path: Path, layout: str) -> None:
    build(tmp_path, ["memory/shared/a.md", "MEMORY.md", "alice/memory/entries/"])
    (tmp_path / "brain.toml").write_text(f'layout = "{layout}"\n')
    choice = choose_layout(tmp_path)
    assert (choice.name, choice.detected) == (layout, False)
    assert choice.describe() == f'layout {layout} (set: layout = "{layout}" in brain.toml)'


def test_brain_toml_without_layout_detects(tmp_path: Path) -> None:
    build(tmp_path, ["alice/memory/a.md"])
    (tmp_path / "brain.toml").write_text("[mindlink]\ndaily_note_retain_days = 7\n")
    assert choose_layout(tmp_path).name == "space"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('layout = "spcae"\n', 'brain.toml line 1: `layout` must be one of "latchai", "space", '
         '"mindlink", "lab", not \'spcae\' (did you mean `space`?)'),
        ("layout = 1\n", "`layout` must be a string, not 1"),
        ("[mindlink]\ndaily_note_retain_days = 0\n",
         "line 2: [mindlink] daily_note_retain_days must be a number of days"),
        ("[mindlink]\nretain_days = 3\n", "unknown key `retain_days` in [mindlink]"),
        ("[layout]\nname = 'x'\n", "`layout` must be a string"),
    ],
)
def test_a_bad_brain_toml_is_an_error_naming_the_line(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "brain.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        choose_layout(tmp_path)
    assert words in str(caught.value)
