"""File-system shapes no editor makes, and `brain serve` meeting them; run budgeted.

The shapes: a folder nested ~1,200 levels deep (made by descriptor: its path is longer than
PATH_MAX), a file and a folder whose names are not UTF-8, and a FIFO among brain's own files.
`python -c "from tests.hostile.fs_shapes import main; main()" WORKSPACE [SERVE-ARGS...]`
starts the server on a workspace that holds them, asks /healthz and GraphQL, adds the same
shapes (and one ordinary note) while it runs, asks again, and prints one JSON object.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from brain.safefs import MAX_DEPTH
from tests.hostile.budget import brain_argv
from tests.hostile.serve_case import wait_ready

DEPTH = 1_200
QUERY = "{ memories(first: 100) { nodes { path } } problems(first: 100) { nodes { path code } } }"
FINE = "---\ndescription: a fine note\n---\nSee [[other]].\n"


def deep_tree(folder: Path, depth: int = DEPTH, name: str = "a", leaf: bytes = b"deep\n") -> str:
    """`depth` folders `name` inside each other under `folder`, a note at the bottom; returns
    the path (relative to `folder`) of the first folder."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, leaf)
        os.close(note)
    finally:
        os.close(fd)
    return name


def remove_tree(path: Path) -> None:
    """Delete `path` and all it holds without recursion (shutil.rmtree of Python 3.11 recurses
    once a level, so pytest could not even clean up after these tests)."""
    if not path.exists():
        return
    stack: list[tuple[int, list[str]]] = []
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    while True:
        folders = []
        for name in os.listdir(fd):
            if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                folders.append(name)
            else:
                os.unlink(name, dir_fd=fd)
        stack.append((fd, folders))
        while stack and not stack[-1][1]:
            done, _ = stack.pop()
            os.close(done)
            if stack:
                os.rmdir(stack[-1][1].pop(), dir_fd=stack[-1][0])
        if not stack:
            break
        fd = os.open(stack[-1][1][-1], os.O_RDONLY | os.O_DIRECTORY, dir_fd=stack[-1][0])
    os.rmdir(path)


def bad_names(folder: Path, tag: bytes = b"") -> list[bytes]:
    """A note and a folder (holding a note) whose names are not UTF-8; their raw names."""
    note, sub = b"bad" + tag + b"\xff.md", b"dir" + tag + b"\xfe"
    base = os.fsencode(folder)
    with open(base + b"/" + note, "wb") as out:
        out.write(b"---\ndescription: unnamed\n---\nhello\n")
    os.mkdir(base + b"/" + sub)
    with open(base + b"/" + sub + b"/inside.md", "wb") as out:
        out.write(b"inside\n")
    return [note, sub]


def workspace(root: Path) -> Path:
    """A latchai workspace with every shape, a fine note, and the note it links to."""
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True)
    (shared / "fine.md").write_text(FINE)
    (shared / "other.md").write_text("---\ndescription: the other note\n---\nhi\n")
    deep_tree(shared)
    bad_names(shared)
    return root


def too_deep_path(scope: str, name: str) -> str:
    """The folder the walk refuses: the one whose path has MAX_DEPTH + 1 parts."""
    return "/".join(["memory", scope, *[name] * (MAX_DEPTH - 1)])


def expected(root: Path, live: bool = False) -> list[list[str]]:
    """The problems the shapes must get, escaped paths, sorted."""
    found = [
        [too_deep_path("shared", "a"), "too-deep"],
        ["memory/shared/bad\\xff.md", "bad-name"],
        ["memory/shared/dir\\xfe", "bad-name"],
    ]
    if live:
        found += [
            [too_deep_path("live", "b"), "too-deep"],
            ["memory/live/bad-live\\xff.md", "bad-name"],
            ["memory/live/dir-live\\xfe", "bad-name"],
        ]
    return sorted(found)


def ask(http: httpx.Client) -> dict[str, Any]:
    response = http.post("/graphql", json={"query": QUERY})
    out: dict[str, Any] = {"status": response.status_code}
    try:
        body = json.loads(response.content.decode("utf-8"))  # strict: the answer must be UTF-8
    except (UnicodeDecodeError, ValueError) as exc:
        out["invalid"] = str(exc)
        return out
    out["errors"] = body.get("errors")
    data = body.get("data") or {}
    out["memories"] = sorted(n["path"] for n in (data.get("memories") or {}).get("nodes", []))
    out["problems"] = sorted([n["path"], n["code"]] for n in (data.get("problems") or {}).get("nodes", []))
    return out


def main() -> None:
    root = Path(sys.argv[1])
    out: dict[str, Any] = {}
    log = root.parent / "serve.log"
    # A name that is not UTF-8 ends watchfiles' watch ("Unable to decode path"); the watcher
    # watches again, so file events apply the live shapes (the full rescan every 30 s is the
    # fallback; tests/unit/test_watch_folders.py checks the events alone).
    proc = subprocess.Popen(
        brain_argv(["serve", str(root), "--port", "0", *sys.argv[2:]]),
        stdout=subprocess.PIPE, stderr=log.open("wb"), text=True,
    )
    base = wait_ready(proc, 60)
    out["ready"] = base is not None
    if base is not None:
        with httpx.Client(base_url=base, timeout=15) as http:
            out["healthz"] = http.get("/healthz").json()["status"]
            out["at_start"] = ask(http)
            live = root / "memory" / "live"
            live.mkdir()
            deep_tree(live, name="b")
            bad_names(live, b"-live")
            (live / "arrived.md").write_text("---\ndescription: arrived\n---\nhi\n")
            deadline = time.monotonic() + 90  # a new folder: bad names, a deep tree; a busy CI
            while time.monotonic() < deadline:
                seen = ask(http)
                out["live"] = seen
                problems, memories = seen.get("problems", []), seen.get("memories", [])
                if "memory/live/arrived.md" in memories and all(
                    p in problems for p in expected(root, live=True)
                ):
                    break
                time.sleep(0.3)
            out["healthz_after"] = http.get("/healthz").json()["status"]
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=15)
        out["stopped"] = True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        out["stopped"] = False
    out["traceback"] = "Traceback" in log.read_text(errors="replace")
    print(json.dumps(out))
