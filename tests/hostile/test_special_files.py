"""FIFOs and devices are reported like symlinks, and a symlinked scope folder is refused.

Before the fix a FIFO in memory/ was skipped silently (where a symlink gets a warning), and
`view /memories` on a symlinked scope folder answered "no files of your own yet".
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from brain.service.brain import Brain
from brain.tool.calls.tool import MemoryTool
from brain.tool.service import MemoryService
from tests.tool.conftest import make_workspace


def test_a_fifo_gets_a_warning_on_a_full_sync_and_on_a_watched_change(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    os.mkfifo(root / "memory" / "writer" / "pipe.md")
    brain = Brain(root)
    done = threading.Event()
    threading.Thread(target=lambda: (brain.sync(), done.set()), daemon=True).start()
    assert done.wait(30), "sync blocked on the FIFO"
    found = [(p.path, p.code, p.severity.value) for p in brain.problems() if p.path.endswith("pipe.md")]
    assert found == [("memory/writer/pipe.md", "special-file", "warning")]
    (root / "memory" / "writer" / "pipe.md").unlink()
    brain.sync(["memory/writer/pipe.md"])
    assert not [p for p in brain.problems() if p.path.endswith("pipe.md")]
    os.mkfifo(root / "memory" / "writer" / "pipe.md")
    brain.sync(["memory/writer/pipe.md"])  # what the watcher sends
    (problem,) = [p for p in brain.problems() if p.path.endswith("pipe.md")]
    assert problem.code == "special-file"
    assert "FIFO" in problem.message
    assert problem.fix is not None


def test_view_of_a_symlinked_scope_folder_is_refused(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "stolen.md").write_text("---\ndescription: not yours\n---\n")
    (root / "memory" / "writer").rename(tmp_path / "old-writer")
    (root / "memory" / "writer").symlink_to(elsewhere)
    brain = Brain(root)
    brain.sync()
    tool = MemoryTool(MemoryService(root, brain))
    result = tool.view("writer", "/memories")
    assert result.refusal is not None, result.output
    assert result.refusal.code.value == "symlink"
    assert "memory/writer is a symbolic link" in result.refusal.message
    assert tool.view("reviewer", "/memories").refusal is None  # other agents are unaffected
