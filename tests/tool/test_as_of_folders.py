"""Agent folders as of a moment where the history says less than the disk did (issue 44).

The history records files, never folders. So an agent folder that existed EMPTY at t and got
its first file after t cannot be told from one made after t: brain answers, as documented
(docs/memory-tool.md, "Agent folders at t"), that the agent did not exist at t, where a
`brain check` of t's files (which had the empty folder) resolved `[[agent:newbie]]`. The
same for lab's `main` made by an empty `memory/` folder. These tests pin that documented
answer in the whole moment, the one-note answer and the kept counts, so a change to it is
a decision, not an accident.

Lab's `main` made by its MEMORY.md at the top (no folder at all) is knowable: the history
names MEMORY.md, so the moments before it was created have no `main` (a fresh check of each
moment's files agrees). Planted bug, seen to fail: scopes.py's `scope_of` giving no agent
for a top-level path (what it did): `main` existed at t, taken from the disk of now.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.asof.service import graph_at, note_as_of
from brain.tool.diff.changes import _iso
from tests.maintain.conftest import workspace_with
from tests.tool.test_as_of_series import Timeline


def _agents(brain: Brain) -> list[str]:
    return sorted(agent.id for agent in brain.store.list_agents())


def _status(brain: Brain, note: str) -> list[tuple[str, str]]:
    node = brain.store.memory_by_path(note)
    assert node is not None
    return sorted((lk.raw, lk.status.value) for lk in brain.store.links_from([node.id]).get(node.id, []))


def _copy(t: Timeline, copies: list[Path]) -> None:
    copy = t.root.parent / f"copy{len(copies)}"
    shutil.copytree(t.root, copy, ignore=shutil.ignore_patterns(".brain"))
    copies.append(copy)


def _lab(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "brain.toml").write_text('layout = "lab"\n')
    (root / "agents" / "bot").mkdir(parents=True)
    (root / "agents/bot/MEMORY.md").write_text("# Bot\n")
    return root


Links = list[tuple[str, str]]


def _answers(t: Timeline, at: float, note: str) -> tuple[list[str], Links, Links, int]:
    """The agents and the note's links of the whole moment, the note's links of the one-note
    answer, and the kept count of broken links, as of `at`."""
    when = _iso(at)
    whole = graph_at(t.service, when)
    light = note_as_of(t.service, Actor.admin(), note, when)
    kept = t.kept(at)
    assert kept is not None
    return (_agents(whole), _status(whole, note), sorted((lk["text"], lk["status"]) for lk in light["links"]),
            kept.broken)


def test_an_agent_folder_empty_at_t_is_answered_as_not_there_then(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", {})
    (root / "memory" / "newbie").mkdir()  # empty: the history will never hear of it
    t = Timeline(root, Brain(root).store)
    copies: list[Path] = []
    note = "memory/writer/notes.md"
    t.write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": "[[agent:newbie]]\n"})
    _copy(t, copies)
    t.outside("memory/newbie/first.md", "# First\n")
    t.series().ensure(wait=True)
    before, after = t.moments
    fresh = Brain(copies[0])
    fresh.sync()
    assert "agent:newbie" in _agents(fresh)  # the files then had the empty folder ...
    agents, links, light, broken = _answers(t, before, note)
    assert "agent:newbie" not in agents  # ... which brain cannot know: documented
    assert links == light == [("[[agent:newbie]]", "broken")]
    assert broken == 1
    agents, links, light, broken = _answers(t, after, note)
    assert "agent:newbie" in agents
    assert links == light == [("[[agent:newbie]]", "resolved")]
    assert broken == 0


def test_labs_main_made_by_an_empty_memory_folder_is_answered_as_not_there_then(tmp_path: Path) -> None:
    root = _lab(tmp_path / "ws")
    (root / "memory").mkdir()  # lab's main: made by memory/ (empty) or a MEMORY.md at the top
    t = Timeline(root, Brain(root).store)
    note = "agents/bot/MEMORY.md"
    t.outside(note, "# Bot\n\n[[agent:main]]\n")
    t.outside("memory/2026-11-01.md", "# Log\n")
    t.series().ensure(wait=True)
    agents, links, light, broken = _answers(t, t.moments[0], note)
    assert agents == ["agent:bot"]
    assert links == light == [("[[agent:main]]", "broken")]
    assert broken == 1
    resolved = [("[[agent:main]]", "resolved")]
    assert _answers(t, t.moments[1], note)[:3] == (["agent:bot", "agent:main"], resolved, resolved)


def test_labs_main_made_by_its_memory_file_is_known_at_each_moment_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    root = _lab(tmp_path / "ws")
    t = Timeline(root, store)
    copies: list[Path] = []
    note = "agents/bot/MEMORY.md"
    t.outside(note, "# Bot\n\n[[agent:main]]\n")
    _copy(t, copies)
    t.outside("MEMORY.md", "# Main\n")  # main, with no folder, made after t
    _copy(t, copies)
    t.outside("MEMORY.md", None)
    _copy(t, copies)
    t.outside(note, "# Bot\n\n[[agent:main]] again\n")
    _copy(t, copies)
    t.series().ensure(wait=True)
    seen = set()
    for at, copy in zip(t.moments, copies, strict=True):
        fresh = Brain(copy)
        fresh.sync()
        agents, links, light, broken = _answers(t, at, note)
        assert agents == _agents(fresh), _iso(at)
        assert links == light == _status(fresh, note), _iso(at)
        assert broken == fresh.stats().broken
        seen.add(links[0][1])
        fresh.close()
    assert seen == {"broken", "resolved"}
