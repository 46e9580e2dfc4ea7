"""A note deleted in a window breaks every link to it, and a note created fixes every broken
link to its name, in notes the window did not change too (issue 44, item 4): the diff lists
them in `links.broken` and `links.fixed`, on both stores, from the served graph and from the
command line (no graph: the files' walk), as far as the caller may see.

Planted bugs, seen to fail: changes_between without the unchanged notes' links (the call to
`unchanged_links` taken out) lists neither; `unchanged_links` reading an unchanged note's
text now instead of its version at `until` loses the link an edit after the window removed;
without the caller's `visible` an agent sees another agent's private note in the list.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.changes import _iso
from brain.tool.history.query import memory_changes
from brain.tool.service import MemoryService
from tests.maintain.conftest import workspace_with
from tests.tool.conftest import NOW

NOTES = "# Notes\n\nSee [[house-style]].\nLater: [[later-note]].\n"
PRIVATE = "# Mine\n\n[[house-style]]\n"


def _timeline(
    tmp_path: Path, store: GraphStore | None,
) -> tuple[Path, MemoryService, MemoryTool, list[float]]:
    root = workspace_with(tmp_path / "ws", {})
    brain = Brain(root, store=store) if store is not None else Brain(root)
    brain.sync()
    clock = [NOW]
    service = MemoryService(root, brain, clock=lambda: clock[0])
    attach_memory_service(brain, service)
    tool = MemoryTool(service)

    def write(agent: str, payload: dict[str, str]) -> None:
        result = tool.run(agent, payload, actor=Actor.admin())
        assert result.ok, result.text

    write("writer", {"command": "create", "path": "/memories/shared/house-style.md",
                     "file_text": "# Style\n"})
    write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    write("reviewer", {"command": "create", "path": "/memories/mine.md", "file_text": PRIVATE})
    clock[0] = NOW + 60
    write("writer", {"command": "delete", "path": "/memories/shared/house-style.md"})
    write("writer", {"command": "create", "path": "/memories/shared/later-note.md", "file_text": "# Later\n"})
    return root, service, tool, clock


BROKEN = [
    {"source": "memory/reviewer/mine.md", "target": "house-style", "line": 3},
    {"source": "memory/writer/notes.md", "target": "house-style", "line": 3},
]
FIXED = [{"source": "memory/writer/notes.md", "target": "later-note", "line": 4}]


def test_a_delete_breaks_and_a_create_fixes_links_in_unchanged_notes_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    _, service, tool, clock = _timeline(tmp_path, store)
    found = memory_changes(service, Actor.admin(), _iso(NOW + 50), _iso(NOW + 70))
    assert [n["path"] for n in found["notes"]["removed"]] == ["memory/shared/house-style.md"]
    assert found["links"] == {"broken": BROKEN, "fixed": FIXED}
    # An agent sees the links in its own notes and the shared ones, never another agent's.
    mine = memory_changes(service, Actor.of_agent("writer"), _iso(NOW + 50), _iso(NOW + 70))
    assert mine["links"] == {"broken": BROKEN[1:], "fixed": FIXED}
    # The window of the writes that made the links lists them as the edits' own, once.
    first = memory_changes(service, Actor.admin(), _iso(NOW - 10), _iso(NOW + 10))
    assert first["links"]["broken"] == [
        {"source": "memory/writer/notes.md", "target": "later-note", "line": 4},
    ]
    # An edit after the window that drops the link does not change what the window broke.
    clock[0] = NOW + 120
    result = tool.run("writer", {"command": "str_replace", "path": "/memories/notes.md",
                                 "old_str": "See [[house-style]].", "new_str": "See nothing."},
                      actor=Actor.admin())
    assert result.ok, result.text
    again = memory_changes(service, Actor.admin(), _iso(NOW + 50), _iso(NOW + 70))
    assert again["links"] == {"broken": BROKEN, "fixed": FIXED}
    # --agent: only the names that agent's own changes touched.
    assert memory_changes(service, Actor.admin(), _iso(NOW + 50), _iso(NOW + 70), agent="reviewer")[
        "links"] == {"broken": [], "fixed": []}


def test_the_command_line_diff_walks_the_files_for_the_same_links(tmp_path: Path) -> None:
    root, service, _, _ = _timeline(tmp_path, None)
    assert service.brain is not None
    service.brain.close()
    out = subprocess.run(
        [sys.executable, "-m", "brain", "diff", str(root), "--since", _iso(NOW + 50),
         "--until", _iso(NOW + 70), "--format", "json"],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["links"] == {"broken": BROKEN, "fixed": FIXED}
    # And the service without a served graph (what the CLI calls) says the same.
    bare = MemoryService(root, clock=lambda: NOW + 60)
    assert memory_changes(bare, Actor.admin(), _iso(NOW + 50), _iso(NOW + 70))["links"] == {
        "broken": BROKEN, "fixed": FIXED}
