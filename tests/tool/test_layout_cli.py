"""`brain space` and `brain mindlink` as people and scripts run them: real processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.test_layout_verbs import build_mindlink
from tests.tool.test_mindlink_verbs import FEEDBACK
from tests.tool.test_space_verbs import PLAN
from tests.tool.test_space_verbs import build as build_space


def brain(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HOME": str(root.parent)}  # `~` expanded by a shell is handled too
    return subprocess.run(
        [sys.executable, "-m", "brain", *args, "-w", str(root)], input=stdin, capture_output=True,
        env=env, timeout=120, check=False,
    )


@pytest.fixture
def space(tmp_path: Path) -> Path:
    return build_space(tmp_path / "ws")


def test_space_read_write_delete(space: Path) -> None:
    listing = brain(space, "space", "alice", "read", "~/memory/")
    assert listing.returncode == 0
    assert listing.stdout.decode().splitlines()[1:] == [
        f"  drafts/  {len(PLAN)} bytes", "  latin1.txt  4 bytes", "  photo.png  16 bytes",
    ]
    assert brain(space, "space", "alice", "read", "drafts/plan.md").stdout.decode() == PLAN + "\n"
    shell_expanded = str(space.parent / "memory" / "new" / "todo.md")  # what `~/memory/...` becomes
    wrote = brain(space, "space", "alice", "write", shell_expanded, stdin=b"- ship\n")
    assert wrote.stdout.decode() == "Wrote ~/memory/new/todo.md (7 bytes, created)\n"
    assert (space / "alice/memory/new/todo.md").read_text() == "- ship\n"
    raw = bytes(range(256))
    (space.parent / "blob.bin").write_bytes(raw)
    source = str(space.parent / "blob.bin")
    from_file = brain(space, "space", "alice", "write", "data/blob.bin", "--file", source)
    assert from_file.returncode == 0
    assert (space / "alice/memory/data/blob.bin").read_bytes() == raw
    as_json = json.loads(brain(space, "space", "alice", "read", "data/blob.bin", "--json").stdout)
    assert (as_json["binary"], as_json["size"]) == (True, 256)
    gone = brain(space, "space", "alice", "delete", "new")
    assert gone.stdout.decode() == "Deleted ~/memory/new/ (folder, 1 file)\n"
    history = [json.loads(line) for line in (space / ".brain/history.jsonl").read_text().splitlines()]
    assert [(r["command"], r["via"]) for r in history] == [
        ("write", "cli"), ("write", "cli"), ("delete", "cli"),
    ]


def test_space_refusals_exit_1_with_the_call_that_works(space: Path) -> None:
    deep = "/".join(["d"] * 17) + "/x.md"
    refused = brain(space, "space", "alice", "write", deep, "--text", "x")
    assert refused.returncode == 1
    err = refused.stderr.decode()
    assert err.startswith("Refused: the path `~/memory/d/d/")
    assert '"command": "write"' in err
    secret = brain(space, "space", "alice", "write", "keys.md", "--text", "AKIAABCDEFGHIJKLMNOP", "--json")
    assert secret.returncode == 1
    assert json.loads(secret.stderr)["error"]["code"] == "secret"
    assert not (space / "alice/memory/keys.md").exists()


def test_the_wrong_layout_exits_2(space: Path, tmp_path: Path) -> None:
    wrong = brain(space, "mindlink", "alice", "memory_get", "entries")
    assert wrong.returncode == 2
    assert "has layout `space`" in wrong.stderr.decode()
    assert "use `brain space`" in wrong.stderr.decode()


def test_mindlink_write_get_search(tmp_path: Path) -> None:
    root = build_mindlink(tmp_path / "ws")
    wrote = brain(root, "mindlink", "alice", "memory_write", "entries/no-emoji.md", stdin=FEEDBACK.encode())
    assert wrote.returncode == 0
    got = brain(root, "mindlink", "alice", "memory_get", "entries/no-emoji.md")
    assert got.stdout.decode() == FEEDBACK + "\n"
    searched = brain(root, "mindlink", "alice", "memory_search", "emoji in release notes", "--json")
    found = json.loads(searched.stdout)
    assert found["hits"][0]["path"] == "entries/no-emoji.md"
    bad = brain(root, "mindlink", "alice", "memory_write", "notes/x.md", "--text", "x")
    assert bad.returncode == 1
    assert "not a memory" in bad.stderr.decode()
