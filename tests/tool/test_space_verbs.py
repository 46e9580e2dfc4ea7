"""The Space's verbs (seeds/001) on real files: tables per verb, refusals, history, atomicity."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from brain.tool.access import Actor
from brain.tool.agent_memory import AgentMemory
from brain.tool.calls.refusal import Refusal
from brain.tool.history.log import History
from brain.tool.layouts.space import Space
from brain.tool.layouts.space_paths import MAX_DEPTH, MAX_PATH_BYTES, parse_space_path
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
PLAN = "# Plan\n\nShip the release on Friday.\n"
OPEN = Actor.open("python")
ALICE = Actor.of_agent("alice", "rest")


def build(root: Path) -> Path:
    (root / "alice/memory/drafts").mkdir(parents=True)
    (root / "alice/memory/drafts/plan.md").write_text(PLAN)
    (root / "alice/memory/photo.png").write_bytes(PNG)
    (root / "alice/memory/latin1.txt").write_bytes("café".encode("latin-1"))
    (root / "bob/memory").mkdir(parents=True)
    (root / "bob/memory/secret-plans.md").write_text("bob's own\n")
    (root / "brain.toml").write_text('layout = "space"\n')
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return build(tmp_path / "ws")


@pytest.fixture
def space(root: Path, tmp_path: Path) -> Space:
    service = MemoryService(root, history=History(tmp_path / "history.jsonl"), clock=lambda: NOW)
    return Space(AgentMemory(service))


def refused(space: Space, actor: Actor, agent: str, verb: str, **args: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        space.call(actor, agent, verb, args)
    return caught.value


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*")) if p.is_file() and ".brain" not in p.parts
    }


# ---------------------------------------------------------------------- read


def test_read_the_memory_folder_lists_entries_with_sizes(space: Space) -> None:
    answer = space.call(OPEN, "alice", "read", {"path": "~/memory/"})
    assert answer["kind"] == "folder"
    assert [(e["name"], e["kind"], e["size"]) for e in answer["entries"]] == [
        ("drafts", "folder", len(PLAN)), ("latin1.txt", "file", 4), ("photo.png", "file", len(PNG)),
    ]
    assert answer["entries"][0]["files"] == 1
    assert answer["size"] == len(PLAN) + 4 + len(PNG)
    assert space.call(OPEN, "alice", "read", {})["path"] == "~/memory/"


@pytest.mark.parametrize(("path", "expected"), [
    ("~/memory/drafts/plan.md", {"kind": "file", "binary": False, "mediaType": "text/markdown",
                                 "content": PLAN, "size": len(PLAN)}),
    ("drafts/plan.md", {"path": "~/memory/drafts/plan.md", "content": PLAN}),
    ("/drafts/plan.md", {"path": "~/memory/drafts/plan.md"}),
    ("~/memory/photo.png", {"binary": True, "mediaType": "image/png", "size": len(PNG)}),
    ("~/memory/latin1.txt", {"binary": True, "mediaType": "text/plain", "size": 4}),
    ("~/memory/drafts", {"kind": "folder", "path": "~/memory/drafts/", "size": len(PLAN)}),
])
def test_read(space: Space, path: str, expected: dict[str, Any]) -> None:
    answer = space.call(OPEN, "alice", "read", {"path": path})
    assert {k: answer[k] for k in expected} == expected
    if answer.get("binary"):
        assert "content" not in answer  # metadata, never mangled characters
        assert answer["hash"] == hashlib.sha256(
            (space.memory.root / "alice/memory" / path.removeprefix("~/memory/")).read_bytes()
        ).hexdigest()


@pytest.mark.parametrize(("actor", "agent", "path", "code", "says"), [
    (OPEN, "alice", "~/memory/nowhere.md", "not-found", "read ~/memory/ lists what there is"),
    (ALICE, "bob", "~/memory/", "not-found", "there is no agent `bob`"),
    (ALICE, "bob", "~/memory/secret-plans.md", "not-found", "there is no agent `bob`"),
    (OPEN, "carol", "~/memory/", "not-found", "there is no agent `carol`"),
    (OPEN, "alice", "~/memory/../bob/memory/secret-plans.md", "invalid-path", "never up"),
    (OPEN, "alice", "~/elsewhere/x", "invalid-path", "outside the memory folder"),
    (OPEN, "alice", "~/memory/drafts/plan.md/inside", "not-a-folder", "is a file"),
    (OPEN, "alice", "~/memory/.brain", "invalid-path", "hidden"),
    (OPEN, "alice", 7, "invalid-path", "must be a string"),
])
def test_read_refusals(
    space: Space, actor: Actor, agent: str, path: object, code: str, says: str
) -> None:
    refusal = refused(space, actor, agent, "read", path=path)
    assert refusal.code.value == code
    assert says in refusal.message


def test_a_symbolic_link_is_never_followed(space: Space, root: Path) -> None:
    (root / "alice/memory/bobs").symlink_to(root / "bob/memory")
    for verb, args in (("read", {}), ("write", {"content": "x"}), ("delete", {})):
        refusal = refused(space, OPEN, "alice", verb, path="~/memory/bobs/secret-plans.md", **args)
        assert refusal.code.value == "symlink"
    assert (root / "bob/memory/secret-plans.md").read_text() == "bob's own\n"


# ---------------------------------------------------------------------- write


def test_write_creates_parents_replaces_whole_and_records_history(space: Space, root: Path) -> None:
    first = space.call(ALICE, "alice", "write", {"path": "~/memory/a/b/c/notes.md", "content": "one\n"})
    assert (first["created"], first["changed"], first["previousHash"]) == (True, True, None)
    assert (root / "alice/memory/a/b/c/notes.md").read_text() == "one\n"
    second = space.call(ALICE, "alice", "write", {"path": "~/memory/a/b/c/notes.md", "content": "two\n"})
    assert (second["created"], second["previousHash"]) == (False, first["hash"])
    assert (root / "alice/memory/a/b/c/notes.md").read_text() == "two\n"  # no append
    same = space.call(ALICE, "alice", "write", {"path": "~/memory/a/b/c/notes.md", "content": "two\n"})
    assert same["changed"] is False
    records = space.memory.memory.history.records()
    assert [(r.command, r.path, r.actor, r.via, r.before, r.after) for r in records] == [
        ("write", "alice/memory/a/b/c/notes.md", "agent:alice", "rest", first["hash"], second["hash"]),
        ("write", "alice/memory/a/b/c/notes.md", "agent:alice", "rest", None, first["hash"]),
    ]
    assert space.memory.memory.blobs.text(first["hash"]) == "one\n"  # the history can show diffs


def test_write_binary_bytes_exactly(space: Space, root: Path) -> None:
    import base64

    data = bytes(range(256))
    answer = space.call(OPEN, "alice", "write", {
        "path": "~/memory/data/blob.bin", "contentBase64": base64.b64encode(data).decode(),
    })
    assert (root / "alice/memory/data/blob.bin").read_bytes() == data
    assert answer["hash"] == hashlib.sha256(data).hexdigest()
    read = space.call(OPEN, "alice", "read", {"path": "~/memory/data/blob.bin"})
    assert (read["binary"], read["mediaType"], read["size"]) == (True, "application/octet-stream", 256)


def test_an_agent_makes_its_own_folder_with_its_first_write(space: Space, root: Path) -> None:
    space.call(Actor.of_agent("dora"), "dora", "write", {"path": "~/memory/hello.md", "content": "hi\n"})
    assert (root / "dora/memory/hello.md").read_text() == "hi\n"
    refusal = refused(space, OPEN, "typo", "write", path="~/memory/x.md", content="x")
    assert refusal.code.value == "unknown-agent"
    assert not (root / "typo").exists()


DEEP = "/".join(["d"] * MAX_DEPTH) + "/x.md"
LONG = "~/memory/" + "/".join(["n" * 200, "m" * 200, "o" * 150 + ".md"])


@pytest.mark.parametrize(("actor", "agent", "args", "code", "says"), [
    (OPEN, "alice", {"path": DEEP, "content": "x"}, "path-too-deep", "17 levels deep"),
    (OPEN, "alice", {"path": LONG, "content": "x"}, "path-too-long", "at most 512 bytes"),
    (OPEN, "alice", {"path": "~/memory/k.md", "content": "aws: AKIAABCDEFGHIJKLMNOP\n"}, "secret",
     "looks like an AWS access key"),
    (OPEN, "alice", {"path": "~/memory/k.txt", "content": "token = ghp_" + "a1" * 20 + "\n"}, "secret",
     "GitHub token"),
    (OPEN, "alice", {"path": "~/memory/drafts", "content": "x"}, "is-directory", "is a folder"),
    (OPEN, "alice", {"path": "~/memory/", "content": "x"}, "is-directory", "memory folder itself"),
    (OPEN, "alice", {"path": "~/memory/photo.png/x.md", "content": "x"}, "not-a-folder", "is a file"),
    (OPEN, "alice", {"path": "~/memory/a//b.md", "content": "x"}, "invalid-path", "empty segment"),
    (OPEN, "alice", {"path": "~/memory/.hidden.md", "content": "x"}, "invalid-path", "hidden"),
    (OPEN, "alice", {"path": "~/memory/a\u200b.md", "content": "x"}, "invalid-path", "invisible"),
    (OPEN, "alice", {"path": "~/memory/x.md"}, "invalid-argument", "exactly one"),
    (OPEN, "alice", {"path": "~/memory/x.md", "contentBase64": "%%%"}, "invalid-argument", "base64"),
    (OPEN, "alice", {"path": "~/memory/drafts/plan.md", "content": "x", "expectedHash": "0" * 64},
     "conflict", "changed since you read it"),
    (ALICE, "bob", {"path": "~/memory/secret-plans.md", "content": "mine now"}, "not-found",
     "there is no agent `bob`"),
])
def test_write_refusals_leave_every_file_as_it_was(
    space: Space, root: Path, actor: Actor, agent: str, args: dict[str, Any], code: str, says: str
) -> None:
    before = tree(root)
    refusal = refused(space, actor, agent, "write", **args)
    assert (refusal.code.value, says in refusal.message) == (code, True), refusal.message
    assert tree(root) == before
    assert space.memory.memory.history.records() == []
    if refusal.code.value == "secret":
        assert "AKIAABCDEFGHIJKLMNOP" not in refusal.text()
        assert "a1a1a1a1" not in refusal.text()


@pytest.mark.parametrize("path", [DEEP, LONG, "~/memory/" + "/".join(["é" * 110] * 5) + "/x.md"])
def test_a_bounds_refusal_suggests_a_path_that_fits(space: Space, root: Path, path: str) -> None:
    refusal = refused(space, OPEN, "alice", "write", path=path, content="x\n")
    assert refusal.suggestion is not None
    fixed = refusal.suggestion.args["path"]
    parsed = parse_space_path(fixed, writing=True)
    assert len(parsed.rel.encode()) <= MAX_PATH_BYTES
    assert len(parsed.parts) <= MAX_DEPTH
    space.call(OPEN, "alice", "write", dict(refusal.suggestion.args, content="x\n"))
    assert (root / "alice/memory" / parsed.rel).read_text() == "x\n"


def test_a_path_exactly_at_the_bounds_is_written(space: Space, root: Path) -> None:
    parts = ["d"] * (MAX_DEPTH - 1) + ["x.md"]
    assert space.call(OPEN, "alice", "write", {"path": "/".join(parts), "content": "x"})["created"]
    name = "f" * (MAX_PATH_BYTES - 2 * 200 - 2)
    at_bound = "/".join(["a" * 200, "b" * 200, name])
    assert len(at_bound.encode()) == MAX_PATH_BYTES
    assert space.call(OPEN, "alice", "write", {"path": at_bound, "content": "x"})["created"]


def test_writes_are_atomic_and_serialised(space: Space, root: Path) -> None:
    """Writers racing on one file: every write lands whole, one history record each, no temp
    file left behind."""
    texts = [f"writer {i}\n" * 2000 for i in range(4)]

    def hammer(text: str) -> None:
        for _ in range(10):
            space.call(OPEN, "alice", "write", {"path": "~/memory/race/log.md", "content": text})

    threads = [threading.Thread(target=hammer, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (root / "alice/memory/race/log.md").read_text() in texts
    assert os.listdir(root / "alice/memory/race") == ["log.md"]
    records = space.memory.memory.history.records(limit=100)
    chain = [(r.before, r.after) for r in reversed(records)]
    assert all(a == b for (_, a), (b, _) in itertools.pairwise(chain))  # each saw the last


# ---------------------------------------------------------------------- delete


def test_delete_a_file_and_a_folder_recursively(space: Space, root: Path) -> None:
    space.call(OPEN, "alice", "write", {"path": "~/memory/drafts/old/v1.md", "content": "v1\n"})
    one = space.call(OPEN, "alice", "delete", {"path": "~/memory/photo.png"})
    assert one == {"path": "~/memory/photo.png", "deleted": "file", "files": ["~/memory/photo.png"]}
    folder = space.call(OPEN, "alice", "write", {"path": "~/memory/drafts", "delete": True})
    assert folder["deleted"] == "folder"
    assert sorted(folder["files"]) == ["~/memory/drafts/old/v1.md", "~/memory/drafts/plan.md"]
    assert sorted(os.listdir(root / "alice/memory")) == ["latin1.txt"]
    deleted = [r for r in space.memory.memory.history.records() if r.command == "delete"]
    assert {(r.path, r.after) for r in deleted} == {
        ("alice/memory/photo.png", None), ("alice/memory/drafts/plan.md", None),
        ("alice/memory/drafts/old/v1.md", None),
    }
    plan = next(r for r in deleted if r.path.endswith("plan.md"))
    assert space.memory.memory.blobs.text(plan.before) == PLAN  # what was deleted can be shown


def test_delete_removes_a_link_not_what_it_points_at(space: Space, root: Path) -> None:
    (root / "alice/memory/drafts/to-bob").symlink_to(root / "bob/memory")
    space.call(OPEN, "alice", "delete", {"path": "~/memory/drafts"})
    assert (root / "bob/memory/secret-plans.md").read_text() == "bob's own\n"
    assert not (root / "alice/memory/drafts").exists()


@pytest.mark.parametrize(("actor", "agent", "path", "code"), [
    (OPEN, "alice", "~/memory/nowhere", "not-found"),
    (OPEN, "alice", "~/memory/", "invalid-argument"),
    (ALICE, "bob", "~/memory/secret-plans.md", "not-found"),
    (OPEN, "alice", "~/memory/../../bob", "invalid-path"),
])
def test_delete_refusals(space: Space, root: Path, actor: Actor, agent: str, path: str, code: str) -> None:
    before = tree(root)
    assert refused(space, actor, agent, "delete", path=path).code.value == code
    assert tree(root) == before


def test_refusals_are_json_with_a_call_that_works(space: Space) -> None:
    refusal = refused(space, OPEN, "alice", "read", path="~/memory/drafts/../plan.md")
    body = json.loads(json.dumps(refusal.to_json()))
    assert body["suggestion"]["arguments"] == {"path": "~/memory/drafts/plan.md"}
    assert space.call(OPEN, "alice", "read", body["suggestion"]["arguments"])["content"] == PLAN
