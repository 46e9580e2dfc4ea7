"""The near-duplicate finder keeps each text's shingles by the text's hash
(brain/maintain/finders/near_duplicates.py): a report asked again shingles nothing, a changed
note is shingled again, and the findings (their scores too) are the same as computed afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.maintain import find
from brain.maintain.finders import near_duplicates
from brain.service.brain import Brain
from tests.maintain.conftest import note, workspace_with

WORDS = " ".join(f"word{i}" for i in range(60))


def reasons(brain: Brain) -> list[tuple[str, str]]:
    return sorted((f.path, f.reason) for f in find(brain, None).findings if f.code == "near-duplicate")


def test_a_report_asked_again_shingles_only_what_changed(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", {
        "memory/writer/a.md": (note("Deploys.", WORDS + " unique-to-a-" + tmp_path.name), 1),
        "memory/writer/b.md": (note("How we deploy.", WORDS.replace("word17", "changed") + " b"), 2),
        "memory/writer/c.md": (note("Other.", "nothing alike " * 20 + tmp_path.name), 3),
    })
    brain = Brain(root)
    brain.sync()
    first = reasons(brain)
    assert len(first) == 1  # a and b
    assert "% of its text" in first[0][1]  # the score, as computed the first time

    before = near_duplicates.computed
    assert reasons(brain) == first
    assert near_duplicates.computed == before  # every text was kept

    (root / "memory/writer/c.md").write_text(note("Other.", WORDS + " now alike " + tmp_path.name))
    brain.sync(["memory/writer/c.md"])
    again = reasons(brain)
    assert near_duplicates.computed == before + 1  # only the changed text
    assert len(again) == 2  # c now nearly says what a and b say


def test_kept_texts_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(near_duplicates, "MAX_KEPT_SHINGLES", 100)
    for n in range(5):
        near_duplicates.shingled(" ".join(f"w{n}x{i}" for i in range(60)) + tmp_path.name)
    assert near_duplicates._kept_size <= 100
    assert near_duplicates._kept  # the newest stays
