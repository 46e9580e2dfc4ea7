"""The attack matrix: hostile paths against every command, and nothing escapes.

Every hostile path is tried in every argument position of every command (view, create,
str_replace, insert, delete, and both sides of rename), as the agent `writer`. Around the
whole matrix the tree is hashed without following links: the workspace (memory folders
included) and a folder outside it. Every attempt must be refused, nothing may change, and
no answer may carry the outside secret or another agent's private note.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool, ToolResult
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW, make_workspace, write

OUTSIDE_SECRET = "TOP SECRET outside the workspace"
PRIVATE = "secret plan"  # memory/reviewer/private-notes.md: never visible to writer

HOSTILE = [
    # traversal and absolute paths
    "/memories/../agents/writer.md", "/memories/../../outside/secret.md", "/memories/shared/../../x.md",
    "/memories/shared/../reviewer/private-notes.md", "/memories/..", "/memories/../memories/x.md",
    "../memories/x.md", "/etc/passwd", "/", "", ".", "..", "/memories/.", "/memories/./x.md",
    "{outside}/secret.md", "{root}/memory/writer/x.md", "//memories/x.md", "~/memories/x.md",
    "file:///memories/x.md", "C:\\memories\\x.md",
    # other agents' scopes, sibling prefixes, case variants
    "/memories/reviewer/private-notes.md", "/memories/../reviewer/private-notes.md",
    "/memoriesX/x.md", "/memories-x/x.md", "/memories_/x.md", "/Memories/x.md", "/MEMORIES/x.md",
    "/memories/Shared/prefers-short-answers.md", "/memories/SHARED/x.md",
    # encodings
    "/memories/%2e%2e/agents/writer.md", "/memories/%2E%2E%2Fx.md", "/memories/x%00.md",
    "/memories/..%2f..%2foutside%2fsecret.md", "/memories/%252e%252e/x.md",
    "\\memories\\x.md", "/memories\\..\\..\\outside\\secret.md", "/memories/shared\\..\\x.md",
    "/memories/x.md\x00.txt", "/memories/\x00", "/memories/x\n.md", "/memories/x\r.md",
    # Unicode look-alikes, full-width and decomposed forms, invisible characters
    "/memories/．．/agents/writer.md", "／memories／x.md", "/memories/ｘ.md", "/memories/x․md",
    "/memories/cafe\u0301.md", "/memories/x\u200b.md", "/memories/\u202edm.x", "/memories/x\ufeff.md",
    "/memories/x\u2024\u2024/x.md", "/memorie\u0455/x.md",
    # not a .md file, hidden files, temp-file names, nested folders
    "/memories/x.txt", "/memories/x", "/memories/x.MD", "/memories/.x.md", "/memories/.md",
    "/memories/.house-style.md.0123456789ab.tmp", "/memories/sub/x.md", "/memories/shared/sub/x.md",
    "/memories/a/b/c/d.md", "/memories/x.md/", "/memories//x.md",
    # links and special files placed inside the memory folders
    "/memories/link-out.md", "/memories/link-private.md", "/memories/shared/link-out.md",
    "/memories/fifo.md", "/memories/dir.md",
    # awkward names
    "/memories/CON.md", "/memories/nul.md", "/memories/" + "x" * 300 + ".md", "/memories/-x.md",
    "/memories/x?.md", "/memories/x*.md", "/memories/[[x]].md", "/memories/x#y.md",
]
SLOTS = [
    ("view", "path"), ("create", "path"), ("str_replace", "path"), ("insert", "path"),
    ("delete", "path"), ("rename", "old_path"), ("rename", "new_path"),
]


def payload(command: str, slot: str, path: str) -> dict[str, object]:
    args: dict[str, object] = {
        "view": {"path": path},
        "create": {"path": path, "file_text": "pwned\n"},
        "str_replace": {"path": path, "old_str": "a", "new_str": "pwned"},
        "insert": {"path": path, "insert_line": 0, "insert_text": "pwned"},
        "delete": {"path": path},
        "rename": {"old_path": "/memories/house-style.md", "new_path": "/memories/moved.md"},
    }[command]
    if command == "rename":
        args = {**args, slot: path}
    return {"command": command, **args}


def snapshot(top: Path) -> dict[str, str]:
    """Every entry under `top`, links as their target text, files by content hash."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = str(path.relative_to(top))
            st = path.lstat()
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() + f":{st.st_mode:o}"
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = f"special:{st.st_mode:o}"
    return out


@pytest.fixture
def hostile_world(tmp_path: Path) -> tuple[Path, Path, MemoryTool]:
    root = make_workspace(tmp_path / "ws")
    outside = tmp_path / "outside"
    write(outside, "secret.md", OUTSIDE_SECRET + "\n")
    (root / "memory/writer/link-out.md").symlink_to(outside / "secret.md")
    (root / "memory/writer/link-private.md").symlink_to("../reviewer/private-notes.md")
    (root / "memory/shared/link-out.md").symlink_to(outside / "secret.md")
    os.mkfifo(root / "memory/writer/fifo.md")
    (root / "memory/writer/dir.md").mkdir()
    # An agent whose whole scope folder is a link to a folder outside the workspace.
    write(root, "agents/linked.md", "---\nmemory: true\n---\n")
    (root / "memory/linked").symlink_to(outside, target_is_directory=True)
    service = MemoryService(root, history=History(tmp_path / "history.jsonl"), clock=lambda: NOW)
    return root, outside, MemoryTool(service)


def test_attack_matrix(hostile_world: tuple[Path, Path, MemoryTool], tmp_path: Path) -> None:
    root, outside, tool = hostile_world
    paths = [p.format(outside=outside, root=root) for p in HOSTILE]
    before = snapshot(tmp_path)
    attempts = 0
    results: list[tuple[str, str, ToolResult]] = []
    for path in paths:
        for command, slot in SLOTS:
            result = tool.run("writer", payload(command, slot, path))
            attempts += 1
            results.append((command, path, result))
    # The agent whose scope folder is a link: even its plainest calls are refused.
    for command, slot in SLOTS:
        result = tool.run("linked", payload(command, slot, "/memories/secret.md"))
        attempts += 1
        results.append((command, "linked:/memories/secret.md", result))
    accepted = [(c, p, r.text) for c, p, r in results if r.ok]
    assert accepted == []
    for _, _, result in results:
        assert OUTSIDE_SECRET not in result.text
        assert PRIVATE not in result.text
    assert snapshot(tmp_path) == before
    assert tool.service.history.records() == []
    assert attempts == len(HOSTILE) * len(SLOTS) + len(SLOTS) >= 500
    print(f"attack matrix: {attempts} attempts, all refused")


def test_symlinks_are_refused_by_name(hostile_world: tuple[Path, Path, MemoryTool]) -> None:
    _, _, tool = hostile_world
    result = tool.view("writer", "/memories/link-out.md")
    assert result.text == (
        "Refused: memory/writer/link-out.md is a symbolic link: brain never follows links out "
        "of the memory folders. A person can replace the link with the real file or folder"
    )
    folder = tool.view("linked", "/memories")
    assert folder.refusal is not None  # refused, not followed, and not listed as empty either
    assert folder.refusal.code.value == "symlink"
    assert "memory/linked is a symbolic link" in folder.text
    assert "secret" not in folder.text
    write_result = tool.create("linked", "/memories/x.md", "x")
    assert write_result.refusal is not None
    assert write_result.refusal.code.value == "symlink"
    assert "memory/linked is a symbolic link" in write_result.text


def test_a_fifo_does_not_hang_a_read(hostile_world: tuple[Path, Path, MemoryTool]) -> None:
    _, _, tool = hostile_world
    result = tool.view("writer", "/memories/fifo.md")
    assert result.refusal is not None
    assert result.refusal.code.value == "unsafe-folder"
    assert "memory/writer/fifo.md is not a regular file" in result.text


def test_a_symlinked_memory_folder_is_refused(tmp_path: Path) -> None:
    real = make_workspace(tmp_path / "real")
    root = tmp_path / "ws"
    write(root, "agents/writer.md", "---\nmemory: true\n---\n")
    (root / "memory").symlink_to(real / "memory", target_is_directory=True)
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    result = tool.create("writer", "/memories/x.md", "x")
    assert result.refusal is not None
    assert result.refusal.code.value == "symlink"
    assert not (real / "memory/writer/x.md").exists()


def test_a_hard_link_out_is_replaced_not_written_through(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    outside = write(tmp_path / "outside", "target.md", "outside\n")
    os.link(outside, root / "memory/writer/hard.md")
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl")))
    assert tool.create("writer", "/memories/hard.md", "inside\n").ok
    assert tool.str_replace("writer", "/memories/hard.md", "inside", "changed").ok
    assert outside.read_text() == "outside\n"
    assert (root / "memory/writer/hard.md").read_text() == "changed\n"


def test_other_agents_scopes_are_invisible_to_an_agent_principal(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    service = MemoryService(root, history=History(tmp_path / "h.jsonl"))
    tool = MemoryTool(service)
    as_writer = Actor.of_agent("writer", "graphql")
    forbidden = tool.view("reviewer", "/memories", actor=as_writer)
    assert forbidden.refusal is not None
    assert forbidden.refusal.code.value == "forbidden"
    assert PRIVATE not in forbidden.text
    assert forbidden.refusal.suggestion is not None
    assert forbidden.refusal.suggestion.args["agent"] == "writer"
    assert [s.scope for s in service.scopes(as_writer)] == ["shared", "writer"]
    assert [s.scope for s in service.scopes(Actor.admin())] == [
        "shared", "old-bot", "reviewer", "writer",
    ]


def test_any_created_path_lands_in_its_own_scope_folder_or_nowhere(tmp_path: Path) -> None:
    """Through the whole tool and a real file system: a create either is refused or writes
    exactly the canonical file in the writer's or the shared folder, and nothing else."""
    from hypothesis import HealthCheck, given, settings

    from tests.tool.test_paths import path_texts

    root = make_workspace(tmp_path / "ws")
    tool = MemoryTool(MemoryService(root, history=History(tmp_path / "h.jsonl"), clock=lambda: NOW))
    allowed = {root / "memory/writer", root / "memory/shared"}

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(path_texts)
    def attempt(raw: str) -> None:
        before = snapshot(tmp_path)
        result = tool.create("writer", raw, "note\n")
        after = snapshot(tmp_path)
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        changed.discard("h.jsonl")
        changed -= {k for k in changed if k == "h" or k.startswith("h/")}  # the history's blobs
        if not result.ok:
            assert changed == set()
            return
        assert result.path == raw
        shared = raw.startswith("/memories/shared/")
        written = root / "memory" / ("shared" if shared else "writer") / raw.rsplit("/", 1)[1]
        assert written.parent in allowed
        assert written.read_text() == "note\n"
        assert changed <= {str(written.relative_to(tmp_path))}
        written.unlink()

    attempt()
