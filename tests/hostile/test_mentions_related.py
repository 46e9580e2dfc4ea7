"""Unlinked mentions and related notes over a real workspace, on both stores, and through
`brain related` in a subprocess: neither ever names another agent's private note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brain.service.brain import Brain
from brain.service.mentions import note_mentions, related_to
from brain.store.base import GraphStore
from brain.store.visibility import Reach
from tests.search.workspace import alice_and_bob

NOTES = {
    "memory/alice/tokio-runtime.md": (
        "---\ndescription: how the tokio runtime schedules tasks\n---\n"
        "The tokio runtime runs Rust Async tasks on a work-stealing scheduler.\n"
        "See [[linked-note]] and `rust async` in code.\n"
        "Bob's secret plan is not a name alice may know.\n"
    ),
    "memory/alice/rust-async.md": (
        "---\naliases: [async rust]\n---\nrust async futures tokio scheduler tasks\n"
    ),
    "memory/alice/linked-note.md": "tokio runtime scheduler tasks, linked already\n",
    "memory/shared/scheduler-guide.md": "tokio scheduler tasks runtime work-stealing guide\n",
    "memory/shared/unrelated.md": "gardening and tomatoes\n",
    "memory/shared/weekly-tasks.md": "tasks for the week\n",  # a weak match, still a match
}
# Bob's notes say much of what alice's note says: close matches she must never see.
BOB = {f"memory/bob/secret-plan-{i}.md": "tokio runtime scheduler tasks work-stealing " * 5 for i in range(8)}
BOB["memory/bob/secret plan.md"] = "tokio runtime\n"


def workspace(root: Path) -> Path:
    return alice_and_bob(root, {**NOTES, **BOB})


def test_mentions_and_related_stay_in_reach(store: GraphStore, tmp_path: Path) -> None:
    brain = Brain(workspace(tmp_path / "ws"), store)
    try:
        brain.sync()
        note = brain.memory_at("memory/alice/tokio-runtime.md")
        assert note is not None
        found = note_mentions(brain.store, brain.root, note, reach=Reach.of_agent("alice"))
        # Line 4 of the file (three lines of frontmatter), column 24: `Rust Async`, as written.
        assert [(m.line, m.column, m.text, m.target, m.replacement) for m in found] == [
            (4, 24, "Rust Async", "memory:alice/rust-async", "[[rust-async|Rust Async]]"),
        ]
        related = related_to(brain.search, brain.root, note, reach=Reach.of_agent("alice"), first=3)
        paths = [r.path for r in related]
        # Filtered before the top 3 is taken: a full page of what alice may see, no bob.
        # (the order is each store's BM25: their IDF formulas differ)
        assert sorted(paths) == [
            "memory/alice/rust-async.md", "memory/shared/scheduler-guide.md", "memory/shared/weekly-tasks.md",
        ]
        assert not any("/bob/" in p for p in paths)
        assert "memory/alice/linked-note.md" not in paths  # linked already
        assert "memory/alice/tokio-runtime.md" not in paths  # itself
        terms = {r.path: set(r.terms) for r in related}
        assert "tokio" in terms["memory/alice/rust-async.md"] & terms["memory/shared/scheduler-guide.md"]
        assert terms["memory/shared/weekly-tasks.md"] == {"tasks"}
        # The operator sees bob's notes: without a reach the same call finds them (so it is
        # the reach, not the ranking, that kept them from alice).
        everyone = related_to(brain.search, brain.root, note, first=12)
        assert sum("/bob/" in r.path for r in everyone) == 9
    finally:
        brain.close()


def test_brain_related_cli(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(Path(__file__).parents[2])}
    args = [sys.executable, "-m", "brain", "related", str(root), "memory/alice/tokio-runtime.md",
            "--format", "json", "--agent", "alice", "--first", "2"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["mentions"] == [{
        "path": "memory/alice/tokio-runtime.md", "line": 4, "column": 24, "text": "Rust Async",
        "target": "memory/alice/rust-async.md", "replacement": "[[rust-async|Rust Async]]", "candidates": [],
    }]
    assert {r["path"] for r in answer["related"]} == {
        "memory/shared/scheduler-guide.md", "memory/alice/rust-async.md",
    }
    # Bob's note, asked for as alice: refused with the same words as a note that is not there.
    refused = subprocess.run([*args[:5], "memory/bob/secret plan.md", *args[6:]],
                             capture_output=True, text=True, env=env, timeout=300, check=False)
    assert refused.returncode == 2
    assert "is not a note of" in refused.stderr
    assert refused.stdout == ""


def test_check_mentions_and_maintain_finding(tmp_path: Path) -> None:
    """`brain check --mentions` lists the mention as info and still exits 0; `brain maintain
    --mentions` proposes the one str_replace that links it, and never applies it."""
    root = workspace(tmp_path / "ws")
    env = {**os.environ, "BRAIN_SEMANTIC": "off", "PYTHONPATH": str(Path(__file__).parents[2])}
    brain_cmd = [sys.executable, "-m", "brain"]
    plain = subprocess.run([*brain_cmd, "check", str(root), "--format", "json"],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
    assert "info" not in json.loads(plain.stdout)  # off by default
    done = subprocess.run([*brain_cmd, "check", str(root), "--format", "json", "--mentions"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == plain.returncode, done.stderr
    info = json.loads(done.stdout)["info"]
    # Bob's notes say "tokio runtime" too: alice's note is not in his reach, so not for him.
    assert [(i["path"], i["line"], i["column"], i["replacement"]) for i in info] == [
        ("memory/alice/linked-note.md", 1, 1, "[[tokio-runtime|tokio runtime]]"),
        ("memory/alice/tokio-runtime.md", 4, 24, "[[rust-async|Rust Async]]"),
    ]
    before = (root / "memory/alice/tokio-runtime.md").read_bytes()
    ran = subprocess.run([*brain_cmd, "maintain", str(root), "--mentions", "--apply", "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    [finding, _] = sorted((f for f in report["findings"] if f["code"] == "unlinked-mention"),
                          key=lambda f: f["path"], reverse=True)
    assert finding["safe"] is False
    assert finding["proposal"]["arguments"] == {
        "path": "/memories/tokio-runtime.md", "old_str": "Rust Async", "new_str": "[[rust-async|Rust Async]]",
    }
    assert (root / "memory/alice/tokio-runtime.md").read_bytes() == before  # a proposal, not applied
