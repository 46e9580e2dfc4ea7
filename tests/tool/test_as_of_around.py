"""A note as of a moment with its backlinks, from the note and the notes that may link to it
(brain/tool/asof/around.py), answers what the whole moment's graph answers (GraphQL
`memory(asOf:)`): its links, backlinks and problems, for every note at every moment of the
timeline of test_as_of_series.py (an ambiguous name, a heading taken away, a rename, deletes,
outside edits), as the admin and as an agent, on both stores.

Planted bugs, each seen to fail: the history's linkers left out (only the graph now's), and
the notes defining the note's own name left out (writer's [[dup]] counted a backlink of the
shared dup, where writer's own dup is nearer); a small moment's other notes cut of every link
(small.py `links_cut` keeping none of those to the note asked), or of those to the note's
name but one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.asof.around import around_moment
from brain.tool.asof.delta import MomentNotKept
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from tests.tool.test_as_of_series import _timeline

PATHS = ["memory/shared/house-style.md", "memory/writer/plan.md", "memory/writer/plans.md",
         "memory/writer/notes.md", "memory/reviewer/review.md", "memory/shared/later.md",
         "memory/shared/glossary.md", "memory/shared/dup.md", "memory/writer/extra.md",
         "memory/writer/dup.md"]


def _view(brain: Brain, rel: str, actor: Actor) -> Any:
    reach = actor.reach
    node = brain.store.memory_by_path(rel)
    if node is None or not reach.sees(node.id):
        return None
    out = [reach.link(lk) for lk in brain.store.links_from([node.id]).get(node.id, [])]
    into = [reach.link(lk) for lk in brain.store.links_to([node.id]).get(node.id, [])
            if reach.sees(lk.source)]
    return {
        "description": node.description, "type": node.type,
        "links": sorted((lk.raw, lk.line, lk.column, lk.status.value, lk.target_id) for lk in out),
        "backlinks": sorted((lk.source, lk.raw, lk.line, lk.column, lk.status.value) for lk in into),
        "problems": sorted((p.code, p.line, p.message) for p in brain.problems([node.path], reach)),
    }


# Both callers on the one timeline: the timeline, the whole moments and the neighbourhoods do
# not depend on who asks (one timeline per caller built them twice).
ACTORS = {"admin": Actor.admin(), "writer": Actor.of_agent("writer")}


def test_a_note_with_its_backlinks_as_of_each_moment_is_the_whole_moments_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    t = _timeline(tmp_path / "ws", store)
    # writer's own dup: [[dup]] in writer's notes means it, not the shared one, from now on
    t.write("writer", {"command": "create", "path": "/memories/dup.md", "file_text": "# Mine\n"})
    t.write("writer", {"command": "create", "path": "/memories/extra.md",
                       "file_text": "[[glossary]] [[later]] [[quiet]] [[dup]]\n"})
    t.write("writer", {"command": "delete", "path": "/memories/shared/later.md"})
    moments = moments_of(t.service)
    backlinked = dict.fromkeys(ACTORS, 0)
    for at in t.moments:
        whole = graph_at(t.service, _iso(at))
        for rel in PATHS:
            try:
                small = around_moment(moments, t.service.parsed, at, rel)
            except MomentNotKept:
                pytest.fail(f"{rel} as of {_iso(at)} refused")
            for name, actor in ACTORS.items():
                expected = _view(whole, rel, actor)
                assert _view(small, rel, actor) == expected, f"{rel} as of {_iso(at)} ({name})"
                backlinked[name] += bool(expected and expected["backlinks"])
    for name, count in backlinked.items():
        assert count >= 10, name  # the comparison covered notes that had backlinks
    assert moments.reused_notes.hits > 0  # and notes parsed by an earlier ask, reused


# The web UI's note-as-of page asks this (web/src/ops.ts NOTE_AS_OF), and backlinks.
QUERY = """{ memory(path: "%s", asOf: "%s") { path scope name description type hash body %s
  linkCount links(first: 100) {
    text line column status targetId target { __typename ... on Memory { path } } }
  backlinkCount backlinks { text line status source { id path } }
  problemCount problems(first: 100) { code severity path message line column length fix target } } }"""


def test_graphql_memory_as_of_answers_from_the_notes_neighbourhood_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    """GraphQL `memory(path:, asOf:)` asking only what the neighbourhood answers is answered
    without building the moment, and equals the whole moment's answer (asked with a field
    only the whole moment answers) at every moment, for every note."""
    import httpx

    from brain.tool import memory_service
    from tests.api.live import live_server

    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.brain.close()
    with live_server(t.root, store) as live, httpx.Client(base_url=live.base, timeout=120) as http:
        moments = moments_of(memory_service(live.brain))

        def ask(rel: str, when: str, extra: str = "") -> Any:
            answer = http.post("/graphql", json={"query": QUERY % (rel, when, extra)}).json()
            assert "errors" not in answer, answer
            memory = answer["data"]["memory"]
            if memory is not None:
                memory.pop("headingCount", None)
            return memory

        for at in t.moments:
            when = _iso(at)
            light = {rel: ask(rel, when) for rel in PATHS}
            assert not moments._cache, "a whole moment was built for a neighbourhood's question"
            assert light == {rel: ask(rel, when, "headingCount") for rel in PATHS}, when
            assert moments._cache  # (the reference: the whole moment, built for headingCount)
            moments._cache.clear()
