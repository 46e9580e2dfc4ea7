"""One note as of t, without the whole graph of t: the note's version then, and the names it
links to as they were then (issue 44: a note `asOf` under 50 ms, first asks included).

The graph of a moment (graph.py) copies the graph now and re-reads every note changed since:
seconds for the first ask of a moment a day or a week back. A single note does not need it:
its links resolve by the entries of their name keys alone (brain.resolve), and their anchors
by the headings of the notes they name. So this builds a small graph of that moment by the
same code (small.py: a first sync through the ingester's overlays): the note as it was,
every file that held one of its link targets' names then (each at its version then: notes
since deleted come back, notes since created are not there), the agents' definitions
(the agents a link may name), and for a name a link asks for, one note then of the agent of
that name (an agent is also the owner of its notes: with no definition and its folder gone
now, it existed at t if one of its notes did). Each path's version at t is found by a bisect of the records
that touched it (the history's `Timeline`), so the cost is the note's links, not the moment's
distance or the workspace's size.

What it answers is the note's own: its text, description, type, links with their statuses
and its problems. Backlinks and the rest of the graph need the whole moment (graph.py); the
GraphQL fields under `memory(asOf:)` still ask for it. tests/tool/test_as_of_note.py checks
this answer against the whole moment's for every note at every moment of a timeline.
"""

from __future__ import annotations

from brain.tool.asof.delta import MomentNotKept
from brain.tool.asof.graph import MomentBrain, Moments
from brain.tool.asof.kept import kept_or_built, small_key
from brain.tool.asof.small import Versions, link_keys, name_index


def note_moment(moments: Moments, at: float, rel: str) -> MomentBrain:
    """A graph of moment `at` that answers for note `rel` as the whole moment's graph does
    (MomentNotKept as graph.py's, when a version needed is not kept); the same ask again finds
    it kept (kept.py)."""
    then = Versions(moments, at)
    key = small_key("note", moments, rel, at, then.records)
    return kept_or_built(moments, key, lambda: _build(moments, then, rel))


def _build(moments: Moments, then: Versions, rel: str) -> MomentBrain:
    own = then.content(rel)
    if own is None and then.missing:
        raise MomentNotKept(f"the content {rel} had at that moment is no longer kept (history retention "
                            "or its cap): ask for the moment as a whole to see the oldest one shown", None)
    if own is None:  # it did not exist then: an empty moment says so
        return then.build({})
    keys = link_keys(then, rel, own)
    index = name_index(moments)
    held = {rel: own}
    then.hold(held, index.paths(moments, then.records, keys))
    then.hold_agents(held, index, keys)
    if then.missing:
        raise MomentNotKept(f"the content some notes {rel} links to had then is no longer kept "
                            "(history retention or its cap): ask for the moment as a whole to see the "
                            "oldest one shown", None)
    return then.build(held, rel)


__all__ = ["note_moment"]
