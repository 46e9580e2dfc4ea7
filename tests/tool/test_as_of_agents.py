"""Agent folders through time (issue 44's property: asOf(t) equals `brain check` of the files
as they were at t): an agent whose folder was made after t does not exist at t, in every answer
of "as of" (brain/tool/asof/scopes.py), on both stores, as the admin and as an agent.

The timeline copies the workspace's files after each step; at every moment the whole moment
(graph.py), one note (note.py), one note with its backlinks (around.py) and the kept counts
(series.py) are checked against a fresh check of that copy. Its agents: `newbie`, whose folder
is made (outside brain) after the note that links to it, and then removed with its last note;
`later`, defined after t and then written to through the memory tool; `emptied`, whose only
note is deleted and whose empty folder stays (an empty folder is an agent, in the copy as on
the disk).

Planted bug, seen to fail: the moment's agent folders read from the disk of now (the
`scopes_then` of graph.py's MomentIngester left unset): `[[agent:newbie]]` resolved at the
moments before newbie's folder was made, in the whole moment, the one note and the counts.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.asof.around import around_moment
from brain.tool.asof.service import graph_at, moments_of, note_as_of
from brain.tool.diff.changes import _iso
from tests.maintain.conftest import workspace_with
from tests.tool.test_as_of_around import _view
from tests.tool.test_as_of_series import Timeline

NOTES = "# Notes\n\n[[agent:newbie]] [[newbie]] [[agent:later]] [[agent:emptied]] [[emptied]] [[plan]]\n"
NOTE = "memory/writer/notes.md"


class Copied(Timeline):
    """The timeline of test_as_of_series.py, with a copy of the files after each step."""

    def __init__(self, root: Path, store: GraphStore, copies: Path) -> None:
        super().__init__(root, store)
        self.copies = copies
        self.taken: list[Path] = []

    def _take(self) -> None:
        copy = self.copies / f"{len(self.taken):02d}"
        shutil.copytree(self.root, copy, ignore=shutil.ignore_patterns(".brain"))
        self.taken.append(copy)

    def write(self, agent: str, payload: dict[str, str]) -> None:
        super().write(agent, payload)
        self._take()

    def outside(self, rel: str, text: str | None, *, with_folder: bool = False) -> None:
        if with_folder:  # the note and its folder go before the watcher's sync (no empty folder)
            (self.root / rel).unlink()
            (self.root / rel).parent.rmdir()
            self.clock[0] += 10
            self.brain.sync()
            self.moments.append(self.clock[0] + 1)
        else:
            super().outside(rel, text)
        self._take()


def _agents(brain: Brain) -> list[str]:
    return sorted(agent.id for agent in brain.store.list_agents())


def _links(brain: Brain, actor: Actor) -> Any:
    node = brain.store.memory_by_path(NOTE)
    if node is None:
        return None
    reach = actor.reach
    return sorted((lk.raw, lk.status.value, lk.target_id)
                  for lk in (reach.link(lk) for lk in brain.store.links_from([node.id]).get(node.id, [])))


@pytest.mark.parametrize("actor", [Actor.admin(), Actor.of_agent("writer")], ids=["admin", "writer"])
def test_an_agent_folder_made_after_t_does_not_exist_at_t_on_both_stores(
    tmp_path: Path, store: GraphStore, actor: Actor,
) -> None:
    root = workspace_with(tmp_path / "ws", {})
    t = Copied(root, store, tmp_path / "copies")
    t.write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    t.outside("memory/emptied/only.md", "# Only\n")
    t.write("writer", {"command": "create", "path": "/memories/plan.md", "file_text": "# Plan\n"})
    t.outside("memory/emptied/only.md", None)  # the folder stays, empty: still an agent
    t.outside("memory/newbie/first.md", "# First\n")
    t.outside("agents/later.md", "---\ndescription: Later.\nmemory: true\n---\n")  # defined after t
    t.write("later", {"command": "create", "path": "/memories/hello.md", "file_text": "# Hello\n"})
    t.write("writer", {"command": "str_replace", "path": "/memories/plan.md", "old_str": "Plan",
                       "new_str": "Plans"})
    t.outside("memory/newbie/first.md", None, with_folder=True)  # no agent newbie any more
    t.write("writer", {"command": "create", "path": "/memories/last.md", "file_text": "# Last\n"})
    t.series().ensure(wait=True)
    moments = moments_of(t.service)
    statuses: set[tuple[str, str]] = set()
    for at, copy in zip(t.moments, t.taken, strict=True):
        when = _iso(at)
        fresh = Brain(copy)
        fresh.sync()
        whole = graph_at(t.service, when)
        assert _agents(whole) == _agents(fresh), f"the agents as of {when}"
        expected = _links(fresh, actor)
        assert _links(whole, actor) == expected, f"the whole moment as of {when}"
        light = note_as_of(t.service, actor, NOTE, when)
        assert sorted((lk["text"], lk["status"], lk["targetId"]) for lk in light["links"]) == expected, when
        small = around_moment(moments, t.service.parsed, at, NOTE)
        assert _view(small, NOTE, actor) == _view(fresh, NOTE, actor), f"around {NOTE} as of {when}"
        assert t.kept(at) == fresh.stats(), f"the kept counts as of {when}"
        statuses.update((raw, status) for raw, status, _ in expected or [])
        fresh.close()
    # The timeline met each agent both absent and present.
    for raw in ("[[agent:newbie]]", "[[agent:later]]", "[[agent:emptied]]"):
        assert {(raw, "broken"), (raw, "resolved")} <= statuses, raw
