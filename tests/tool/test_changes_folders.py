"""Notes that come and go with their folder are outside changes too (issue 44, item 1).

A watcher names a folder that was made, moved or deleted, not each note in it. The brain
told its file listeners only about the paths it was named, so the notes of a new agent
folder, of a folder moved and of a folder deleted applied to the graph but never reached
the history: `brain diff`, `changes` and `asOf` did not know them. A named folder now stands
for the files under it, before and after the sync.

Planted bug, seen to fail: `Brain._hashes` without the folders (each test here).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from brain.tool.history.log import History
from tests.mcp.conftest import TOKENS, build_workspace
from tests.tool.serving import serving
from tests.tool.test_changes_git import serving_brain


def _recorded(history: History) -> list[tuple[str, str]]:
    return [(r.command, r.path) for r in history.all() if r.origin == "external"]


def test_the_notes_of_a_folder_made_moved_and_deleted_are_recorded(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    brain, service = serving_brain(root, None)
    folder = root / "memory" / "newbie"
    folder.mkdir()
    (folder / "first.md").write_text("# First\n", encoding="utf-8")
    (folder / "second.md").write_text("# Second\n", encoding="utf-8")
    brain.sync(["memory/newbie"])  # as the watcher names a folder made with its notes
    assert _recorded(service.history) == [
        ("create", "memory/newbie/first.md"), ("create", "memory/newbie/second.md"),
    ]
    folder.rename(root / "memory" / "renamed")
    brain.sync(["memory/newbie", "memory/renamed"])
    assert _recorded(service.history)[2:] == [
        ("delete", "memory/newbie/first.md"), ("delete", "memory/newbie/second.md"),
        ("create", "memory/renamed/first.md"), ("create", "memory/renamed/second.md"),
    ]
    shutil.rmtree(root / "memory" / "renamed")
    brain.sync(["memory/renamed"])
    assert _recorded(service.history)[6:] == [
        ("delete", "memory/renamed/first.md"), ("delete", "memory/renamed/second.md"),
    ]
    # A file named as itself is still one file: no other note of its folder is recorded.
    (root / "memory" / "writer" / "sources.md").write_text("# Sources, edited\n", encoding="utf-8")
    brain.sync(["memory/writer/sources.md"])
    assert _recorded(service.history)[8:] == [("put", "memory/writer/sources.md")]
    brain.close()


def test_a_new_agent_folder_made_while_brain_serve_watches_is_in_the_history(tmp_path: Path) -> None:
    """The case a timeline test found: a real `brain serve`, its watcher, a new agent's folder."""
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    history = History(root / ".brain" / "history.jsonl")
    with serving(root, tokens):
        (root / "memory" / "newbie").mkdir()
        (root / "memory" / "newbie" / "hello.md").write_text("# Hello\n", encoding="utf-8")
        deadline = time.monotonic() + 120
        while ("create", "memory/newbie/hello.md") not in _recorded(history):
            assert time.monotonic() < deadline, f"never recorded: {_recorded(history)}"
            time.sleep(0.2)
        shutil.rmtree(root / "memory" / "newbie")
        while ("delete", "memory/newbie/hello.md") not in _recorded(history):
            assert time.monotonic() < deadline, f"the delete never recorded: {_recorded(history)}"
            time.sleep(0.2)
