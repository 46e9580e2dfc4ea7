"""Links broken and fixed in the diff are the graph's own: judged by brain.resolve's rules
against the names of each moment, on both stores.

Each window's broken links are compared with what a fresh sync of that moment's files puts
in the store (the links whose status is not `resolved`), and both stores answer the same.

Planted bug, seen to fail: NamesAt.status judging a link by its last segment's name alone
(what the diff did before): `[[agent:writer]]` came out broken and `[[writer/review]]`
(a name only another scope has) resolved.
"""

from __future__ import annotations

from pathlib import Path

from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.access import Actor
from brain.tool.diff.changes import _iso
from brain.tool.diff.query import memory_changes
from brain.tool.history.log import History
from tests.maintain.conftest import workspace_with
from tests.tool.conftest import NOW, ClockedTool

NOTES = ("# Notes\n\n[[house-style]] [[writer/review]] [[agent:writer]]\n"
         "[[reviewer/review]] [[nothing-here]] [[workflow:deploy]]\n")
NOTES_RS = "memory/writer/notes.md"


def _graph_unresolved(brain: Brain, rel: str) -> set[str]:
    node = brain.memory_at(rel)
    assert node is not None
    links = brain.store.links_from([node.id]).get(node.id, [])
    return {link.target for link in links if link.status is not LinkStatus.RESOLVED}


def test_broken_and_fixed_links_are_the_graphs_own_on_both_stores(tmp_path: Path, store: GraphStore) -> None:
    root = workspace_with(tmp_path / "ws", {})
    brain = Brain(root, store=store)
    brain.sync()
    timeline = ClockedTool(root, brain, History(tmp_path / "h.jsonl"))
    service, write = timeline.service, timeline.write
    write("writer", {"command": "create", "path": "/memories/shared/house-style.md",
                     "file_text": "# Style\n"})
    write("reviewer", {"command": "create", "path": "/memories/review.md", "file_text": "# Review\n"})
    write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    first = memory_changes(service, Actor.admin(), _iso(NOW - 10), _iso(NOW + 10))
    broken = {(b["source"], b["target"]) for b in first["links"]["broken"]}
    assert broken == {(NOTES_RS, t) for t in ("writer/review", "nothing-here", "workflow:deploy")}
    assert {t for _, t in broken} == _graph_unresolved(brain, NOTES_RS)

    timeline.at = NOW + 60
    write("writer", {"command": "delete", "path": "/memories/shared/house-style.md"})
    write("writer", {"command": "create", "path": "/memories/review.md", "file_text": "# Mine\n"})
    write("writer", {"command": "str_replace", "path": "/memories/notes.md", "old_str": "# Notes",
                     "new_str": "# Notes, again"})
    second = memory_changes(service, Actor.admin(), _iso(NOW + 50), _iso(NOW + 70))
    assert second["links"] == {
        "broken": [{"source": "memory/writer/notes.md", "target": "house-style", "line": 3}],
        "fixed": [{"source": "memory/writer/notes.md", "target": "writer/review", "line": 3}],
    }
    assert _graph_unresolved(brain, NOTES_RS) == {"house-style", "nothing-here", "workflow:deploy"}
    # The first window still answers as of its own moment, whatever came after.
    assert memory_changes(service, Actor.admin(), _iso(NOW - 10), _iso(NOW + 10))["links"] == first["links"]
    # A removed note's broken links go with it: it is listed as removed, its links not as fixed.
    timeline.at = NOW + 120
    write("writer", {"command": "delete", "path": "/memories/notes.md"})
    third = memory_changes(service, Actor.admin(), _iso(NOW + 110), _iso(NOW + 130))
    assert [n["path"] for n in third["notes"]["removed"]] == [NOTES_RS]
    assert third["links"] == {"broken": [], "fixed": []}
