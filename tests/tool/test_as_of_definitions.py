"""An agent's definition through time: each moment has the agents its own definitions made
(issue 44's property: asOf(t) equals `brain check` of the files as they were at t).

A note's first `memory(asOf:)` builds a small graph of the moment (brain/tool/asof/small.py)
that holds the agents' definitions as they were then; anything that shares what is parsed or
built between asks (of one moment, of two, of the same note) must not hand one moment's
agents to another. The timeline changes `bob`'s definition outside brain (its description,
then memory off, then on again with another description) around a note of bob's and a note
of writer's that links it; every moment is asked in an order that goes back and forth (a
later moment first, then an earlier one, then the later one again), for the small graph of
each note (around.py), the one-note answer (note.py) and the whole moment (graph.py), and
each is compared with a fresh check of that moment's files, on both stores, as the admin and
as an agent.

Planted bug, seen to fail: the agents' definitions held as they are on disk now (small.py's
`Versions.content` reading `agents/` from the disk): bob's description and memory as of the
earlier moments were the last ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.model import AgentNode
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.asof.around import around_moment
from brain.tool.asof.service import graph_at, moments_of, note_as_of
from brain.tool.diff.changes import _iso
from tests.maintain.conftest import workspace_with
from tests.tool.test_as_of_agents import Copied
from tests.tool.test_as_of_around import _view

BOB = "agents/bob.md"
BOB_NOTE = "memory/bob/habits.md"
WRITER_NOTE = "memory/writer/team.md"


def _definition(description: str, memory: bool) -> str:
    return f"---\ndescription: {description}\nmemory: {'true' if memory else 'false'}\n---\n\nBob.\n"


def _bob(brain: Brain) -> Any:
    found = brain.store.get_nodes(["agent:bob"]).get("agent:bob")
    if not isinstance(found, AgentNode):
        return None
    return (found.description, found.memory_enabled, found.memory_off, found.path)


@pytest.mark.parametrize("actor", [Actor.admin(), Actor.of_agent("writer")], ids=["admin", "writer"])
def test_each_moment_has_the_agents_its_definitions_made_on_both_stores(
    tmp_path: Path, store: GraphStore, actor: Actor,
) -> None:
    root = workspace_with(tmp_path / "ws", {BOB: _definition("First.", True)})
    t = Copied(root, store, tmp_path / "copies")
    t.outside(BOB_NOTE, "# Habits\n\nSee [[team]].\n")
    t.write("writer", {"command": "create", "path": "/memories/team.md",
                       "file_text": "# Team\n\n[[agent:bob]] [[bob]] [[habits]]\n"})
    t.outside(BOB, _definition("Second.", True))
    t.outside(BOB, _definition("Off.", False))
    t.outside(BOB, _definition("Third.", True))
    moments = moments_of(t.service)
    expected: dict[int, Any] = {}
    for i, copy in enumerate(t.taken):
        fresh = Brain(copy)
        fresh.sync()
        expected[i] = (_bob(fresh), _view(fresh, BOB_NOTE, actor), _view(fresh, WRITER_NOTE, actor))
        fresh.close()
    assert len({bob for bob, _, _ in expected.values()}) == 4  # each definition had its moment
    # back and forth: each moment after another's answers (a later one asked first)
    order = [len(t.moments) - 1, *range(len(t.moments)), *reversed(range(len(t.moments)))]
    for i in order:
        at, when = t.moments[i], _iso(t.moments[i])
        bob, bob_view, writer_view = expected[i]
        for rel, view in ((BOB_NOTE, bob_view), (WRITER_NOTE, writer_view)):
            small = around_moment(moments, t.service.parsed, at, rel)
            if small.store.memory_by_path(rel) is not None:  # (a note not there then: no graph)
                assert _bob(small) == bob, f"bob in {rel}'s graph as of {when}"
            assert _view(small, rel, actor) == view, f"{rel} as of {when}"
        whole = graph_at(t.service, when)
        assert _bob(whole) == bob, f"bob in the whole moment as of {when}"
        if writer_view is not None:  # (the one-note answer of the note that links bob)
            light = note_as_of(t.service, actor, WRITER_NOTE, when)
            assert sorted((lk["text"], lk["status"]) for lk in light["links"]) == sorted(
                (raw, status) for raw, _, _, status, _ in writer_view["links"]), when
