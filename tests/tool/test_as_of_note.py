"""One note as of a moment, from the note and the names it links to alone (brain/tool/asof/
note.py), answers exactly what the whole moment's graph answers for it (issue 44, item 1):
every note, at every moment of a timeline, on both stores.

The timeline: notes linking by bare name, by scope, to an agent, to a heading that a later
edit takes away, to another agent's note (out of reach for an agent), a rename, a delete, a
note created that fixes a broken link, and an edit made outside brain (its record's version
is what the note held then). Then the ways a link's match moves through time:
- an ambiguous name: `[[triage]]` names a workflow, then also a chat (two at the deciding
  level: ambiguous), then a shared note and an own note capture it in turn, then the own
  note goes again;
- a note renamed onto a linked name: `[[guide]]` resolves to the shared guide until a draft
  of the writer's is renamed `guide` (its own scope wins), and `[[guide#Old]]` names a
  heading only the shared one has (resolved, then missing-anchor);
- aliases: `aliases: [style]` in a note's frontmatter does not make `[[style]]` resolve
  (names come from paths), at any moment, in either answer;
- another agent's private note of the same name: reviewer's `notes` beside writer's, named
  from a shared note by a bare `[[notes]]` (broken, its candidates cut to the caller's reach)
  and asked for by path by each caller;
- an agent known only as the owner of notes: `ghost` has no definition, its notes are made
  and then removed outside brain with their folder, so `[[agent:ghost]]` resolved only while
  one of its notes was there.
Each caller: the admin, writer and reviewer, each on the same timeline.

Planted bugs, each seen to fail: the version at t taken from the first record after t's
`after` instead of its `before` (a note one version late); the notes named by a link's key
left out (every link broken); a path the history never named read as absent instead of from
the disk (`[[roster]]` broken); no note of an agent's held for a link to its name
(`[[agent:ghost]]` broken while ghost's note was there); and in the whole moment, an agent
known only by its notes dropped when a few files are synced into a copy (graph.py's
MomentIngester: `[[agent:ghost]]` broken from the next record on, as no fresh check of those
files said). The same timeline holds for a note with its backlinks (around.py, GraphQL's
`memory(asOf:)`): before both shared brain/tool/asof/small.py, around.py held no note of an
agent a link names, so `[[agent:ghost]]` was broken there while ghost's note existed.
"""

from __future__ import annotations

from pathlib import Path

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.asof.around import around_moment
from brain.tool.asof.service import _note, graph_at, moments_of, note_as_of
from brain.tool.calls.refusal import Refusal
from brain.tool.calls.tool import MemoryTool
from brain.tool.diff.changes import _iso
from brain.tool.service import MemoryService
from tests.maintain.conftest import workspace_with
from tests.tool.conftest import NOW
from tests.tool.test_as_of_around import _view

STYLE = "---\naliases: [style]\n---\n# Style\n\n## Headline\n\nFirst.\n"
NOTES = ("# Notes\n\n[[house-style#Headline]] [[agent:writer]] [[agent:quiet]] [[shared/glossary]]\n"
         "[[roster]] "
         "[[plan]] [[later]] [[review]] [[nowhere]]\n"
         "[[triage]] [[guide]] [[guide#Old]] [[style]] [[agent:ghost]] [[ghost]] [[reviewer/notes]]\n")
GUIDE = "# Guide\n\n## Old\n\nThe shared one.\n"
REVIEWER_NOTES = ("# Reviewer's notes\n\n[[review]] [[triage]] [[plan]] [[notes]] [[agent:ghost]] "
                  "[[guide#Old]]\n")


def _answer(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except Refusal as exc:
        return ("refused", exc.code)


def _differences(light: object, full: object) -> object:
    """What the two answers disagree on: each differing list's items only one of them has."""
    if not (isinstance(light, dict) and isinstance(full, dict)):
        return (light, full)
    return {key: ([x for x in light[key] if x not in full[key]],
                  [x for x in full[key] if x not in light[key]])
            if isinstance(light.get(key), list) and isinstance(full.get(key), list)
            else (light.get(key), full.get(key))
            for key in light.keys() | full.keys() if light.get(key) != full.get(key)}


# The callers, each compared on the one timeline: the timeline, the whole moments and the
# neighbourhoods do not depend on who asks (one timeline per caller built them three times).
ACTORS = {"admin": Actor.admin(), "writer": Actor.of_agent("writer"), "reviewer": Actor.of_agent("reviewer")}


def test_a_note_as_of_each_moment_is_the_whole_moments_answer_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    root = workspace_with(tmp_path / "ws", {
        # Never changed: no record names it, so every moment has it as the disk does.
        "memory/shared/roster.md": "# Roster\n",
        # An agent defined with no memory folder: only its definition makes `[[agent:quiet]]`.
        "agents/quiet.md": "---\ndescription: Quiet.\n---\n",
        # An entity no record names: `[[triage]]` names it, alone until a chat shares the name.
        "workflows/triage.yaml": "name: triage\n",
    })
    brain = Brain(root, store=store)
    brain.sync()
    clock = [NOW]
    service = MemoryService(root, brain, clock=lambda: clock[0])
    attach_memory_service(brain, service)
    tool = MemoryTool(service)
    moments: list[float] = []

    def write(agent: str, payload: dict[str, str]) -> None:
        clock[0] += 10
        result = tool.run(agent, payload, actor=Actor.admin())
        assert result.ok, result.text
        brain.sync()
        moments.append(clock[0] + 1)

    def outside(rel: str, text: str | None) -> None:
        """An edit made outside brain, found by the watcher's sync and recorded (external)."""
        clock[0] += 10
        if text is None:
            (root / rel).unlink()
            if not any((root / rel).parent.iterdir()):
                (root / rel).parent.rmdir()  # an agent's folder goes with its last note
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        brain.sync()
        moments.append(clock[0] + 1)

    write("writer", {"command": "create", "path": "/memories/shared/glossary.md",
                     "file_text": "# Glossary\n\nSee [[house-style]].\n"})
    write("writer", {"command": "create", "path": "/memories/shared/house-style.md", "file_text": STYLE})
    write("writer", {"command": "create", "path": "/memories/plan.md", "file_text": "# Plan\n"})
    write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    write("reviewer", {"command": "create", "path": "/memories/review.md", "file_text": "# Review\n"})
    write("writer", {"command": "create", "path": "/memories/shared/review.md",
                     "file_text": "# Shared review\n"})
    write("writer", {"command": "str_replace", "path": "/memories/shared/house-style.md",
                     "old_str": "## Headline", "new_str": "## Lead"})
    write("writer", {"command": "rename", "old_path": "/memories/plan.md", "new_path": "/memories/plans.md"})
    write("writer", {"command": "create", "path": "/memories/shared/later.md", "file_text": "# Later\n"})
    write("writer", {"command": "delete", "path": "/memories/shared/review.md"})
    outside("memory/shared/glossary.md", "# Glossary\n\nSee [[later]] and [[plans]], [[notes]].\n")
    write("writer", {"command": "create", "path": "/memories/shared/guide.md", "file_text": GUIDE})
    write("reviewer", {"command": "create", "path": "/memories/notes.md", "file_text": REVIEWER_NOTES})
    outside("chats/triage.md", "# Triage chat\n")  # `[[triage]]`: a workflow and a chat, ambiguous
    outside("memory/ghost/old.md", "# Old\n")  # agent ghost: the owner of a note, no definition
    write("writer", {"command": "create", "path": "/memories/shared/triage.md", "file_text": "# Triage\n"})
    write("writer", {"command": "create", "path": "/memories/draft.md", "file_text": "# Draft\n\n## New\n"})
    write("writer", {"command": "create", "path": "/memories/triage.md", "file_text": "# Mine\n"})
    write("writer", {"command": "rename", "old_path": "/memories/draft.md", "new_path": "/memories/guide.md"})
    outside("memory/ghost/old.md", None)  # and its folder: no agent ghost any more
    write("writer", {"command": "delete", "path": "/memories/triage.md"})
    write("writer", {"command": "str_replace", "path": "/memories/shared/guide.md",
                     "old_str": "## Old", "new_str": "## Older"})
    paths = ["memory/shared/house-style.md", "memory/writer/plan.md", "memory/writer/plans.md",
             "memory/writer/notes.md", "memory/reviewer/review.md", "memory/shared/review.md",
             "memory/shared/later.md", "memory/shared/glossary.md", "memory/reviewer/notes.md",
             "memory/shared/guide.md", "memory/writer/guide.md", "memory/writer/draft.md",
             "memory/shared/triage.md", "memory/writer/triage.md", "memory/ghost/old.md"]
    statuses: dict[str, set[str]] = {name: set() for name in ACTORS}
    seen: dict[str, set[tuple[str, str, str]]] = {name: set() for name in ACTORS}
    for at in moments:
        when = _iso(at)
        for rel in paths:
            around: Brain | None = None  # one neighbourhood a note and moment, viewed by each caller
            for name, actor in ACTORS.items():
                light = _answer(lambda rel=rel, when=when, actor=actor: note_as_of(service, actor, rel, when))
                whole = graph_at(service, when)
                full = _answer(lambda rel=rel, whole=whole, actor=actor: _note(
                    whole, whole.at, actor, rel, whole.ingester.overlays))
                if isinstance(light, dict) and isinstance(full, dict):
                    # The whole moment's graph is shared by the times between the same two records
                    # (it says the first time asked); the note says the time asked.
                    assert light.pop("at") == when
                    full.pop("at")
                assert light == full, f"{rel} as of {when} ({name}): {_differences(light, full)}"
                # GraphQL's memory(asOf:) with backlinks (around.py) holds the same files and more.
                if around is None:
                    around = around_moment(moments_of(service), service.parsed, at, rel)
                assert _view(around, rel, actor) == _view(whole, rel, actor), f"{rel} around {when} ({name})"
                if isinstance(light, dict):
                    statuses[name].update(link["status"] for link in light["links"])
                    seen[name].update((rel, link["text"], link["status"]) for link in light["links"])
    notes = "memory/writer/notes.md"
    anchor = {(notes, "[[guide#Old]]", status) for status in ("resolved", "missing-anchor")}
    for name, actor in ACTORS.items():
        # The timeline reached every status: the comparison covered each way a link resolves.
        assert statuses[name] >= {"resolved", "broken", "missing-anchor", "ambiguous"}, name
        # And each way a match moves through time was met (by the callers who can see the note).
        if actor.reach.sees_path(notes):
            assert {(notes, "[[triage]]", status) for status in ("resolved", "ambiguous")} <= seen[name]
            assert anchor <= seen[name]
            assert {(notes, "[[agent:ghost]]", status) for status in ("resolved", "broken")} <= seen[name]
            assert (notes, "[[style]]", "resolved") not in seen[name]
