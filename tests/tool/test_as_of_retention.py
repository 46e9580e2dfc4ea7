"""The edges of "as of": moments the history cannot show exactly are refused, naming the
oldest moment it can; real files, the real blob store and retention, `brain check --as-of`
and `brain show --as-of` as subprocesses."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from brain.config.sections import HistoryConfig
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.history.log import History
from brain.tool.history.retention import Retention
from tests.tool.conftest import make_workspace
from tests.tool.test_as_of import iso


def brain_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def write(root: Path, text: str) -> float:
    done = brain_cli("memory", "-w", str(root), "writer", "create", "/memories/a.md", "--text", text)
    assert done.returncode == 0, done.stderr
    moment = time.time()
    time.sleep(0.01)
    return moment


def times(root: Path) -> list[str]:
    return [r.at for r in History(root / ".brain" / "history.jsonl").all()]


def test_before_the_history_in_the_future_and_past_retention_are_refused(tmp_path: Path) -> None:
    """Planted bugs, each seen to fail this test: the blob check skipped (the moment past
    retention is answered, with the note missing, instead of refused); the first-record
    bound removed (a moment before the history is answered as the oldest one)."""
    root = make_workspace(tmp_path / "ws")
    before = time.time() - 60
    t1 = write(root, "---\ndescription: One.\n---\n\nsee [[house-style]]\n")
    t2 = write(root, "---\ndescription: Two.\n---\n\nsee [[nowhere]]\n")
    write(root, "---\ndescription: Three.\n---\n\nsee [[house-style]]\n")
    first, second, _ = times(root)

    early = brain_cli("check", str(root), "--as-of", iso(before))
    assert early.returncode == 2
    assert early.stdout == ""
    assert early.stderr.strip() == (
        f"brain check: --as-of: the history begins at {first}: brain keeps nothing from before it, "
        f"so it cannot show the memory at {iso(before)[:19]}Z; ask for a moment at or after {first}"
    )
    future = brain_cli("check", str(root), "--as-of", "2999-01-01T00:00:00Z")
    assert future.returncode == 2
    assert "2999-01-01T00:00:00Z is in the future" in future.stderr
    bad = brain_cli("show", str(root), "memory/writer/a.md", "--as-of", "last tuesday")
    assert bad.returncode == 2
    assert "is not a time: give ISO 8601" in bad.stderr
    huge = brain_cli("check", str(root), "--as-of", "99999999999999d")  # once a traceback
    assert huge.returncode == 2
    assert huge.stderr.count("\n") == 1, huge.stderr
    assert "'99999999999999d' is out of range" in huge.stderr

    shown = brain_cli("show", str(root), "memory/writer/a.md", "--as-of", iso(t2), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert "see [[nowhere]]" in shown.stdout

    # Retention keeps one version of each note: the first version's content goes.
    service = memory_service(Brain(root))
    retention = Retention(service.blobs, HistoryConfig(keep_versions=1, keep_days=0), grace=0.0)
    retention.prune(service.history.all())
    past = brain_cli("check", str(root), "--as-of", iso(t1))
    assert past.returncode == 2
    assert "is no longer kept (history retention or its cap)" in past.stderr
    assert past.stderr.rstrip().endswith(f"The oldest moment brain can show is {second}")
    kept = brain_cli("check", str(root), "--as-of", second, "--format", "json")
    assert kept.returncode == 1, kept.stderr  # the broken [[nowhere]] of the second version
    assert "`[[nowhere]]` points to nothing" in kept.stdout


def test_an_outside_edit_of_a_note_brain_never_kept_bounds_the_moments_before_it(tmp_path: Path) -> None:
    """A note that was on disk before the history began and is then edited outside brain: its
    content before the edit was never kept, so the moments before the edit are refused, naming
    the edit's time; from the edit on, the memory is shown."""
    root = make_workspace(tmp_path / "ws")
    t1 = write(root, "---\ndescription: One.\n---\n\nsee [[house-style]]\n")
    brain = Brain(root)
    memory_service(brain)  # records the changes made outside brain while its brain syncs
    brain.sync()
    (root / "memory/writer/house-style.md").write_text("---\ndescription: Edited.\n---\n\nnew\n")
    brain.sync(["memory/writer/house-style.md"])
    edited = times(root)[-1]
    assert History(root / ".brain" / "history.jsonl").all()[-1].origin == "external"
    refused = brain_cli("check", str(root), "--as-of", iso(t1))
    assert refused.returncode == 2
    assert refused.stderr.rstrip().endswith(f"The oldest moment brain can show is {edited}")
    shown = brain_cli("show", str(root), "memory/writer/house-style.md", "--as-of", edited)
    assert shown.returncode == 0, shown.stderr
    assert "description: Edited." in shown.stdout
