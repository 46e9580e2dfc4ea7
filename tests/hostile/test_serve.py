"""`brain serve` with hostile files at start and arriving live: ready, serving, stoppable.

Before the fixes a workspace with an alias bomb never became ready (and ignored SIGTERM
meanwhile), and a deep JSON file arriving live took /graphql to 503 until it was deleted.
The whole conversation runs in a child with a hard time and memory limit.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.budget import MIB, python_case
from tests.hostile.corpus import checked_in, deep_json_object

REPO = Path(__file__).resolve().parents[2]


def test_serve_stays_up_and_reports_each_hostile_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    (root / "workflows").mkdir()
    (root / "chats").mkdir()
    (root / "memory" / "shared" / "fine.md").write_text("---\ndescription: fine\n---\nhello\n")
    (root / "memory" / "shared" / "lol.md").write_bytes(checked_in("billion-laughs.md"))
    (root / "chats" / "deep.json").write_bytes(deep_json_object())
    code = (
        f"import sys\nsys.argv = ['serve_case', {str(root)!r}]\n"
        "from tests.hostile.serve_case import main\nmain()\n"
    )
    outcome = python_case(code, seconds=90, memory=2048 * MIB, cwd=REPO)
    print(outcome.summary(), outcome.stdout)
    assert not outcome.timed_out, outcome.summary()
    seen = json.loads(outcome.stdout)
    assert seen["ready_seconds"] is not None
    assert seen["healthz"] == 200
    assert seen["at_start"] == [200, [["chats/deep.json", "invalid-content"],
                                      ["memory/shared/lol.md", "invalid-frontmatter"]]]
    status, live = seen["live"]
    assert status == 200
    assert ["workflows/deep-live.json", "invalid-content"] in live
    assert ["memory/shared/lol-live.md", "invalid-frontmatter"] in live
    assert seen["healthz_after"] == 200
    assert seen["sigterm_seconds"] is not None
