"""The watcher follows mindlink and lab workspaces: new daily notes, skills, project notes and
misplaced files show up live, with their rules, and the graph ends as a fresh ingest's."""

from __future__ import annotations

from pathlib import Path

import anyio

from brain.service.brain import Brain
from brain.service.watch import Watcher
from brain.store.memory.store import MemoryStore
from tests.unit.test_watch_layouts import until


def codes(brain: Brain) -> set[tuple[str, str]]:
    return {(p.code, p.path) for p in brain.problems()}


async def test_the_watcher_follows_a_mindlink_workspace(tmp_path: Path) -> None:
    entries = tmp_path / "bot" / "memory" / "entries"
    entries.mkdir(parents=True)
    (entries / "plan.md").write_text("---\ntype: project\n---\nsee [[2026-03-01]]\n")
    brain = Brain(tmp_path, MemoryStore())
    assert brain.layout_choice.name == "mindlink"
    watcher = Watcher(brain, debounce_ms=50, step_ms=10, rescan_seconds=600)
    stop = anyio.Event()

    def link_status() -> str:
        return brain.store.links_from(["memory:bot/plan"])["memory:bot/plan"][0].status.value

    async with anyio.create_task_group() as tg:
        tg.start_soon(watcher.run, stop)
        await until(lambda: brain.ready, "the first sync")
        assert link_status() == "broken"
        (tmp_path / "bot" / "memory" / "2026-03-01.md").write_text("the day\n")
        await until(lambda: link_status() == "resolved", "the daily note to answer the link")
        (entries / "copy.md").write_text("---\ntype: user\n---\nsee [[2026-03-01]]\n")
        (tmp_path / "bot" / "memory" / "todo.txt").write_text("x\n")
        await until(
            lambda: {"duplicate-entry", "not-a-memory"} <= {code for code, _ in codes(brain)},
            "duplicate-entry and not-a-memory",
        )
        (entries / "copy.md").unlink()
        await until(lambda: "duplicate-entry" not in {c for c, _ in codes(brain)}, "the copy's delete")
        stop.set()

    fresh = Brain(tmp_path, MemoryStore())
    fresh.sync()
    assert brain.store.export() == fresh.store.export()
    assert brain.problems() == fresh.problems()


async def test_the_watcher_follows_a_lab_workspace(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Lab\n## 2026-01-01 Deploys\nvia [[deploy]] see [[notes]]\n")
    brain = Brain(tmp_path, MemoryStore())
    assert brain.layout_choice.name == "lab"
    watcher = Watcher(brain, debounce_ms=50, step_ms=10, rescan_seconds=600)
    stop = anyio.Event()

    def targets() -> list[str]:
        links = brain.store.links_from(["memory:main/MEMORY"])["memory:main/MEMORY"]
        return [link.target_id for link in links]

    async with anyio.create_task_group() as tg:
        tg.start_soon(watcher.run, stop)
        await until(lambda: brain.ready, "the first sync")
        assert targets() == ["unresolved:deploy", "unresolved:notes"]
        skill = tmp_path / "skills" / "deploy"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: deploy\n---\n")  # no description, no triggers
        project = tmp_path / "projects" / "atlas"
        project.mkdir(parents=True)
        (project / "notes.md").write_text("atlas notes\n")
        (tmp_path / "memory").mkdir()
        (tmp_path / "memory" / "scratch.md").write_text("x\n")
        await until(
            lambda: targets() == ["skill:skills/deploy", "memory:project:atlas/notes"], "the links to resolve"
        )
        await until(
            lambda: {("incomplete-skill", "skills/deploy/SKILL.md"), ("daily-log-name", "memory/scratch.md")}
            <= codes(brain),
            "incomplete-skill and daily-log-name",
        )
        stop.set()

    fresh = Brain(tmp_path, MemoryStore())
    fresh.sync()
    assert brain.store.export() == fresh.store.export()
    assert brain.problems() == fresh.problems()
