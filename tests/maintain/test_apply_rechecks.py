"""`--apply` re-checks, in the step that changes a file, every other file the change relies on.

The pass and the apply are apart in time (a scheduled run, a big workspace): a duplicate is
deleted because its newer copy is kept, a broken link is rewritten to a name that exists. If
the kept copy changed or went in between, deleting the other would leave neither; if the
new target went, the fix would write another broken link. Each case runs the real pass
(`find`), changes the files on disk, then the apply the CLI and the scheduler share
(`apply_safe`, through the memory service and its folder lock).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from brain.api.rest import ADDR
from brain.maintain import find
from brain.maintain.run import MAINTAIN_ACTOR, apply_safe
from brain.tool.calls.refusal import Call
from tests.maintain.conftest import note, open_brain, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
FILES: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-old.md": (STYLE, 5),
    "memory/writer/style-new.md": (STYLE, 1),
    "memory/writer/house-style.md": (note("The real one.", "Headline first, always."), 2),
    "memory/writer/notes.md": note("Notes.", "See [[house-styel]]."),
}


def _pass_then(root: Path, history: Path, change: str) -> tuple[list[tuple[str, bool, str]], Path]:
    brain, service = open_brain(root, history)
    report = find(brain)
    kept = root / "memory/writer/style-new.md"
    if change == "kept-changed":
        kept.write_text(STYLE + "\nA line added after the pass.\n")
    elif change == "kept-deleted":
        kept.unlink()
    elif change == "target-deleted":
        (root / "memory/writer/house-style.md").unlink()
    elif change == "old-copy-linked":
        # written through the memory service, so the graph has the link at once
        service.write(
            MAINTAIN_ACTOR, "writer", "later.md", lambda _old: note("Later.", "See [[style-old]]."),
            command="create", call=Call("create", {}), addr=ADDR, create=True,
        )
    apply_safe(report, service, MAINTAIN_ACTOR, 10)
    return [(a.path, a.ok, a.result) for a in report.applied], root


def test_the_older_copy_stays_when_the_kept_copy_changed(tmp_path: Path, history_path: Path) -> None:
    applied, root = _pass_then(workspace_with(tmp_path / "ws", FILES), history_path, "kept-changed")
    (_path, ok, result), = [a for a in applied if a[0] == "memory/writer/style-old.md"]
    assert not ok
    assert "the kept copy memory/writer/style-new.md changed since it was read" in result
    assert (root / "memory/writer/style-old.md").read_text() == STYLE


def test_the_older_copy_stays_when_the_kept_copy_is_gone(tmp_path: Path, history_path: Path) -> None:
    applied, root = _pass_then(workspace_with(tmp_path / "ws", FILES), history_path, "kept-deleted")
    (_path, ok, result), = [a for a in applied if a[0] == "memory/writer/style-old.md"]
    assert not ok
    assert "the kept copy memory/writer/style-new.md no longer exists" in result
    assert (root / "memory/writer/style-old.md").exists(), "one copy is always left"


def test_a_link_is_not_rewritten_to_a_target_that_went(tmp_path: Path, history_path: Path) -> None:
    applied, root = _pass_then(workspace_with(tmp_path / "ws", FILES), history_path, "target-deleted")
    (_path, ok, result), = [a for a in applied if a[0] == "memory/writer/notes.md"]
    assert not ok
    assert "the link's new target memory/writer/house-style.md no longer exists" in result
    assert "[[house-styel]]" in (root / "memory/writer/notes.md").read_text()


def test_a_copy_linked_since_the_pass_is_not_deleted(tmp_path: Path, history_path: Path) -> None:
    applied, root = _pass_then(workspace_with(tmp_path / "ws", FILES), history_path, "old-copy-linked")
    (_path, ok, result), = [a for a in applied if a[0] == "memory/writer/style-old.md"]
    assert not ok
    assert "is linked from writer/later since the pass found nothing linking to it" in result
    assert (root / "memory/writer/style-old.md").exists()


def test_unchanged_files_are_still_applied(tmp_path: Path, history_path: Path) -> None:
    applied, root = _pass_then(workspace_with(tmp_path / "ws", FILES), history_path, "nothing")
    assert {(p, ok) for p, ok, _ in applied} == {
        ("memory/writer/style-old.md", True), ("memory/writer/notes.md", True),
    }
    assert not (root / "memory/writer/style-old.md").exists()


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mindlink"
ENTRY = "---\nname: {name}\ndescription: Churn.\ntype: project\n---\nThe churn dashboard is rebuilt weekly.\n"


def test_mindlink_verbs_recheck_the_kept_copy_too(tmp_path: Path, history_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    entries = root / "analyst" / "memory" / "entries"
    older, newer = entries / "churn-old.md", entries / "churn-new.md"
    older.write_text(ENTRY.format(name="churn"))
    newer.write_text(ENTRY.format(name="churn"))
    os.utime(older, (1_000_000, 1_000_000))
    brain, service = open_brain(root, history_path)
    report = find(brain)
    deletes = [f for f in report.safe if f.path.endswith("churn-old.md")]
    assert deletes
    assert deletes[0].proposal.command == "memory_delete"
    newer.unlink()
    apply_safe(report, service, MAINTAIN_ACTOR, 10)
    (applied,) = [a for a in report.applied if a.path.endswith("churn-old.md")]
    assert not applied.ok
    assert "no longer exists" in applied.result
    assert older.exists()
