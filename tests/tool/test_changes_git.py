"""An outside change whose content is a git commit's version of the file names that commit.

A real repository (the git binary), a workspace inside it, changes made outside brain and
found by its sync: a committed version names its commit (the newest with that version, also
an older one after a checkout), an uncommitted one names none, and a workspace that is not a
repository, or a machine without git, records the change with no commit and no error.

Planted bugs, each seen to fail: `_record` not asking the matcher (no commit anywhere), the
match taking the first commit of the log whatever its blob (the uncommitted edit named HEAD).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.tool import attach_memory_service
from brain.tool.history.gitmatch import blob_id
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.maintain.conftest import workspace_with

REL = "memory/writer/plan.md"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def serving_brain(root: Path, history: Path | None) -> tuple[Brain, MemoryService]:
    brain = Brain(root)
    brain.sync()
    service = MemoryService(root, brain, history=None if history is None else History(history))
    attach_memory_service(brain, service)
    return brain, service


def edit(brain: Brain, root: Path, text: str) -> None:
    (root / REL).write_text(text, encoding="utf-8")
    brain.sync([REL])


def test_an_outside_change_names_the_commit_its_content_is(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    root = workspace_with(repo / "ws", {REL: "# Plan\n\nv1\n"})  # the workspace inside a repository
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v1")
    first = git(repo, "rev-parse", "HEAD")
    brain, service = serving_brain(root, None)

    (root / REL).write_text("# Plan\n\nv2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "v2")  # as a pull brings it
    second = git(repo, "rev-parse", "HEAD")
    brain.sync([REL])
    edit(brain, root, "# Plan\n\nv3, not committed\n")
    edit(brain, root, "# Plan\n\nv1\n")  # a checkout of the first version
    edit(brain, root, "# Plan\n\nv2\n")  # and back
    records = service.history.all()
    assert [(r.origin, r.commit) for r in records] == [
        ("external", second), ("external", None), ("external", first), ("external", second),
    ]
    assert blob_id(b"# Plan\n\nv2\n") == git(repo, "hash-object", str(root / REL))
    # Shown in the diff: JSON and text (the CLI, in another process, reads the same history).
    diff = subprocess.run([sys.executable, "-m", "brain", "diff", str(root), "--since", "1h", "--format",
                           "json"], capture_output=True, text=True, timeout=120, check=False)
    assert diff.returncode == 0, diff.stderr
    [changed] = json.loads(diff.stdout)["notes"]["changed"]
    assert (changed["path"], changed["origin"], changed["commit"]) == (REL, "external", second)
    text = subprocess.run([sys.executable, "-m", "brain", "diff", str(root), "--since", "1h"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert f"~ {REL}  (external, external, commit {second[:12]})" in text.stdout


@pytest.mark.parametrize("how", ["not a repository", "no git binary"])
def test_without_a_repository_or_git_the_change_is_recorded_without_a_commit(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = workspace_with(tmp_path / "ws", {REL: "# Plan\n"})
    if how == "no git binary":
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "one")
        monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    brain, service = serving_brain(root, tmp_path / "h.jsonl")
    edit(brain, root, "# Plan\n")  # unchanged: nothing
    edit(brain, root, "# Plan, changed\n")
    [record] = service.history.all()
    assert (record.origin, record.commit) == ("external", None)
    assert "commit" not in json.dumps(record.to_json())
