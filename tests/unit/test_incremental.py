"""Incremental syncs end with the same graph as a full ingest of the same files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from brain import workspace
from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def full_export(root: Path) -> object:
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain.store.export()


def test_new_note_resolves_waiting_links_and_delete_breaks_them(tmp_path: Path) -> None:
    write(tmp_path, "memory/bot/a.md", "---\ndescription: A\ntype: user\n---\nsee [[b#Top]]\n")
    brain = Brain(tmp_path)
    brain.sync()
    (link,) = brain.store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert link.status is LinkStatus.BROKEN
    assert link.target_id == "unresolved:b"

    write(tmp_path, "memory/bot/b.md", "# Top\n")
    result = brain.sync(["memory/bot/b.md"])
    assert result.parsed == 1
    (link,) = brain.store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert (link.status, link.target_id) == (LinkStatus.RESOLVED, "memory:bot/b")
    assert brain.store.get_nodes(["unresolved:b"]) == {}
    assert brain.store.export() == full_export(tmp_path)

    (tmp_path / "memory/bot/b.md").unlink()
    brain.sync()
    (link,) = brain.store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert link.status is LinkStatus.BROKEN
    assert brain.store.export() == full_export(tmp_path)


def test_rescan_without_changes_reads_nothing(tmp_path: Path) -> None:
    write(tmp_path, "memory/shared/a.md", "hello [[a]]\n")
    brain = Brain(tmp_path)
    assert brain.sync().parsed == 1
    again = brain.sync()
    assert (again.read, again.parsed, bool(again.batch)) == (0, 0, False)


def test_unreadable_file_is_reported_and_its_node_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "memory/bot/a.md", "first version\n")
    brain = Brain(tmp_path)
    brain.sync()
    write(tmp_path, "memory/bot/a.md", "second version, unreadable for now\n")

    # brain.workspace.read_bytes opens the file: as root, a mode of 000 would not stop it.
    real_open = os.open

    def deny(path: str | Path, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == "a.md":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(workspace.os, "open", deny)
    brain.sync()
    (problem,) = [p for p in brain.problems() if p.code == "unreadable-file"]
    assert (problem.path, problem.severity.value) == ("memory/bot/a.md", "error")
    assert "Permission denied" in problem.message
    memory = brain.store.memory_by_path("memory/bot/a.md")
    assert memory is not None
    assert memory.description == "first version"

    monkeypatch.setattr(workspace.os, "open", real_open)
    brain.sync()
    assert not [p for p in brain.problems() if p.code == "unreadable-file"]
    memory = brain.store.memory_by_path("memory/bot/a.md")
    assert memory is not None
    assert memory.description == "second version, unreadable for now"


def test_a_link_replaced_by_a_folder_leaves_no_stale_problem(tmp_path: Path) -> None:
    # Found by the random-operations state machine: the symlink warning outlived the link.
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory/bob").symlink_to(tmp_path)
    brain = Brain(tmp_path)
    brain.sync()
    brain.sync(["memory/bob"])
    assert [p.code for p in brain.problems()] == ["symlink"]
    (tmp_path / "memory/bob").unlink()
    write(tmp_path, "memory/bob/alpha.md", "")
    brain.sync(["memory/bob", "memory/bob/alpha.md"])
    fresh = Brain(tmp_path)
    fresh.sync()
    assert brain.problems() == fresh.problems()
    assert [p.code for p in brain.problems()] == ["memory-off"]


def test_ambiguity_between_case_variants_asks_for_a_rename(tmp_path: Path) -> None:
    write(tmp_path, "memory/shared/Deploy.md", "# A\n")
    write(tmp_path, "memory/shared/deploy.md", "# B\n")
    write(tmp_path, "memory/shared/index.md", "see [[deploy]]\n")
    brain = Brain(tmp_path)
    brain.sync()
    (problem,) = [p for p in brain.problems() if p.code == "ambiguous-link"]
    assert problem.candidates == ("memory:shared/Deploy", "memory:shared/deploy")
    assert problem.fix is not None
    assert problem.fix.startswith("rename one of memory:shared/Deploy, memory:shared/deploy")


def test_ambiguity_across_kinds_suggests_an_explicit_link(tmp_path: Path) -> None:
    write(tmp_path, "memory/bot/index.md", "see [[deploy]]\n")
    write(tmp_path, "workflows/deploy.yaml", "title: Deploy\n")
    write(tmp_path, "chats/deploy.json", '{"title": "Deploy chat"}\n')
    brain = Brain(tmp_path)
    brain.sync()
    (problem,) = [p for p in brain.problems() if p.code == "ambiguous-link"]
    assert problem.fix == "name one explicitly, e.g. `[[chat:deploy]]`"
