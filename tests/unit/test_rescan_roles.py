"""A rescan passes over an unchanged file without working out its role (a third of a warm
start at 100,000 notes), and still ends with the graph and problems a full ingest gives:
a new file that takes over an unchanged file's id, and one that stops doing so, are seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.layouts.latchai import LatchaiLayout
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from brain.workspace import FileRole


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def fresh(root: Path) -> tuple[object, list[tuple[str, str]]]:
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain.store.export(), [(p.code, p.path) for p in brain.problems()]


def now(brain: Brain) -> tuple[object, list[tuple[str, str]]]:
    return brain.store.export(), [(p.code, p.path) for p in brain.problems()]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose role the layout is asked for."""
    paths: list[str] = []
    original = LatchaiLayout.classify

    def counting(self: LatchaiLayout, rel: str) -> FileRole:
        paths.append(rel)
        return original(self, rel)

    monkeypatch.setattr(LatchaiLayout, "classify", counting)
    return paths


def test_a_rescan_works_out_no_role_of_an_unchanged_file(tmp_path: Path, asked: list[str]) -> None:
    for i in range(20):
        write(tmp_path, f"memory/bot/n{i}.md", f"[[n{i + 1}]]\n")
    write(tmp_path, "memory/top.md", "misplaced\n")  # a problem file: looked at every time
    write(tmp_path, "agents/bot.md", "---\nmemory: true\n---\n")
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    asked.clear()
    told: list[tuple[int, int]] = []
    again = brain.sync(progress=lambda done, total: told.append((done, total)))
    assert (again.read, bool(again.batch)) == (0, False)
    assert told[-1] == (again.files, again.files)  # every file counted, skipped or not
    assert [d for d, _ in told] == sorted(d for d, _ in told)
    assert set(asked) == {"memory/top.md"}
    write(tmp_path, "memory/bot/n3.md", "[[n1]] changed\n")
    asked.clear()
    brain.sync()
    assert sorted(set(asked)) == ["memory/bot/n3.md", "memory/top.md"]
    assert now(brain) == fresh(tmp_path)


def test_a_full_rescan_sees_a_new_duplicate_take_over_an_unchanged_winner(tmp_path: Path) -> None:
    write(tmp_path, "memory/bot/a.md", "[[x]]\n")
    write(tmp_path, "workflows/x.yaml", "title: From YAML\n")
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    write(tmp_path, "workflows/x.json", '{"title": "From JSON"}')  # sorts first: it wins
    brain.sync()
    assert [p for p in now(brain)[1] if p[0] == "duplicate-file"] == [("duplicate-file", "workflows/x.yaml")]
    assert now(brain) == fresh(tmp_path)
    (tmp_path / "workflows/x.json").unlink()
    brain.sync()
    assert brain.store.get_nodes(["workflow:x"])["workflow:x"].title == "From YAML"  # type: ignore[union-attr]
    assert now(brain) == fresh(tmp_path)
