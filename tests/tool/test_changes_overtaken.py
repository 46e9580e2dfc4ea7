"""An outside change that a memory-tool write overtook is not recorded after it.

The watcher's sync reads a file a person just made; before its recorder takes the history's
lock, a memory-tool write (`brain memory` in another process, or the server's own tool)
writes over exactly that content and records it as its `before`. The recorder then appended
the person's version as the newest record, so the history said the file held what it no
longer did (CI caught the server's own case once: tests/tool/test_history_blobs.py). The
content is in the history already, as the tool write's `before`: it is not recorded again.

Planted bug, seen to fail: `ExternalRecorder._overtaken` always False.
"""

from __future__ import annotations

from pathlib import Path

from brain.ingest.memory_files import content_hash
from brain.service.brain import FileChanges
from brain.tool.history.log import iso_time
from tests.mcp.conftest import build_workspace
from tests.tool.test_changes_git import serving_brain

REL = "memory/writer/by-hand.md"
MADE, REWRITTEN = b"made by hand\n", b"rewritten\n"


def test_a_change_a_tool_write_overtook_is_not_recorded_after_it(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    brain, service = serving_brain(root, None)
    (root / REL).write_bytes(MADE)

    def another_process_writes(news: FileChanges) -> None:
        if brain.file_listeners[0] is another_process_writes:
            brain.file_listeners.pop(0)  # once
        (root / REL).write_bytes(REWRITTEN)
        service.history.append(
            at=iso_time(service.clock()), actor="agent:writer", agent="writer", via="cli",
            command="create", scope="writer", path=REL, before=content_hash(MADE),
            after=content_hash(REWRITTEN),
        )

    brain.file_listeners.insert(0, another_process_writes)
    brain.sync([REL])  # read MADE; the write lands between the read and the recorder
    records = [(r.origin, r.after) for r in service.history.all() if r.path == REL]
    assert records == [(None, content_hash(REWRITTEN))]
    brain.sync([REL])  # the watcher's sync of the tool's write: recorded by its maker already
    # Written back by hand since: the disk holds it, so it is a change, and recorded.
    (root / REL).write_bytes(MADE)
    brain.sync([REL])
    records = [(r.origin, r.after) for r in service.history.all() if r.path == REL]
    assert records == [(None, content_hash(REWRITTEN)), ("external", content_hash(MADE))]
    brain.close()
