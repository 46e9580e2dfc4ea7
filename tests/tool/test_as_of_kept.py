"""Small moments kept by what they are built from (brain/tool/asof/kept.py): asked again, the
note at the moment is the graph built the first time, and still the whole moment's answer,
for every note at every moment of test_as_of_series's timeline, on both stores; a write
after it (records and the graph now change) is a new key, and what is kept stays bounded.

Planted bugs, each seen to fail: the key without the note (the second note asked at a moment
got the first's graph); without the kind of answer (around's graph served for note's).
"""

from __future__ import annotations

from pathlib import Path

from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.asof import kept
from brain.tool.asof.around import around_moment
from brain.tool.asof.note import note_moment
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from tests.tool.test_as_of_around import PATHS, _view
from tests.tool.test_as_of_series import _timeline


def test_a_small_moment_asked_again_is_the_one_built_and_the_whole_moments_answer(
    tmp_path: Path, store: GraphStore,
) -> None:
    t = _timeline(tmp_path / "ws", store)
    moments = moments_of(t.service)
    parsed = t.service.parsed
    admin = Actor.admin()
    for at in t.moments[-4:]:
        whole = graph_at(t.service, _iso(at))
        for rel in PATHS:
            expected = _view(whole, rel, admin)
            first = around_moment(moments, parsed, at, rel)
            note = note_moment(moments, at, rel)
            assert _view(first, rel, admin) == expected, f"{rel} as of {_iso(at)}"
            again = around_moment(moments, parsed, at, rel)
            assert again is first  # kept: the same graph, not built again
            assert _view(again, rel, admin) == expected, f"{rel} as of {_iso(at)}, asked again"
            # the note's own answer (no backlinks asked): its own graph, not around's
            assert note_moment(moments, at, rel) is note
            assert note is not first or expected is None
    at = t.moments[-1]
    rel = "memory/shared/house-style.md"
    before = around_moment(moments, parsed, at, rel)
    t.write("writer", {"command": "create", "path": "/memories/extra.md", "file_text": "[[house-style]]\n"})
    assert around_moment(moments, parsed, at, rel) is not before  # the history and the graph moved on
    assert len(kept._KEPT(moments).graphs) <= kept.KEPT
