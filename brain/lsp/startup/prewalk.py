"""The walk for early names, begun on the other core before the server has imported pygls.

An editor sends `initialize` the moment it spawns the server, and that message names the
workspace folders. Importing pygls and lsprotocol takes most of a second, and the walk
(brain/lsp/startup/early.py) a quarter of one at 10,000 notes: done one after the other in one
process (one core's worth of Python at a time), the first `[[` waits for both. So the
server reads that first message from stdin before its imports, forks a child that walks
the workspaces it names and hands the names back through a pipe, and then imports while the
child walks. The message itself is replayed to the protocol reader (`Replay`) untouched:
the limits of brain/lsp/stdio.py still apply to it, and the server answers it as ever.

A child that fails, or a workspace it did not walk, only costs the speed: the session walks
in its own thread, as it does without a fork (other platforms, TCP, a single core).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pickle
import re
import sys
import threading
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from brain.snapshot.cachepaths import snapshot_path

if TYPE_CHECKING:
    from brain.lsp.startup.packed import PackedNames

log = logging.getLogger("brain.lsp")

BIG_SNAPSHOT = 64 << 20  # bytes: a snapshot of about 25,000 notes, whose load beats a walk
FIRST_MESSAGE_MAX = 1 << 20  # an initialize bigger than this is not looked into (only replayed)
HEADER_LINES = 16
_LENGTH = re.compile(rb"^Content-Length:\s*(\d{1,15})\s*$", re.IGNORECASE)


class Replay:
    """`stdin` with the bytes already read from it put back in front (readline/read as used by
    brain/lsp/stdio.py; reads come from one thread at a time)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readline(self, limit: int = -1) -> bytes:
        if not self._head:
            return self._rest.readline(limit)
        end = self._head.find(b"\n") + 1 or len(self._head)
        if limit >= 0:
            end = min(end, limit)
        line, self._head = self._head[:end], self._head[end:]
        if line.endswith(b"\n") or (limit >= 0 and len(line) >= limit) or self._head:
            return line
        return line + self._rest.readline(limit - len(line) if limit >= 0 else -1)

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size < 0:
            part, self._head = self._head, b""
            return part + self._rest.read()
        part, self._head = self._head[:size], self._head[size:]
        return part  # a short read: the caller reads on


def read_first(stdin: BinaryIO) -> tuple[bytes, dict[str, Any] | None]:
    """The bytes of the client's first message (to replay) and that message, if it is a JSON
    object of at most FIRST_MESSAGE_MAX bytes; otherwise what was read, and None."""
    raw = b""
    length: int | None = None
    for _ in range(HEADER_LINES):
        line = stdin.readline(8192)
        raw += line
        if not line.endswith(b"\n"):
            return raw, None  # end of input, or a header line too long: the reader decides
        match = _LENGTH.match(line.strip())
        if match:
            length = int(match.group(1))
        elif not line.strip() and length is not None:
            break
    else:
        return raw, None
    if length is None or length > FIRST_MESSAGE_MAX:
        return raw, None
    body = b""
    while len(body) < length:
        chunk = stdin.read(length - len(body))
        if not chunk:
            return raw + body, None
        body += chunk
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # junk, or nesting deeper than the parser goes
        message = None
    return raw + body, message if isinstance(message, dict) else None


def folders_of(message: dict[str, Any] | None) -> list[str]:
    """The workspace folder URIs an `initialize` request names (as the handler reads them)."""
    if message is None or message.get("method") != "initialize":
        return []
    params = message.get("params")
    if not isinstance(params, dict):
        return []
    folders = params.get("workspaceFolders") or []
    uris = [f["uri"] for f in folders if isinstance(f, dict) and isinstance(f.get("uri"), str)]
    if not uris and isinstance(params.get("rootUri"), str):
        uris = [params["rootUri"]]
    elif not uris and isinstance(params.get("rootPath"), str):
        uris = [Path(params["rootPath"]).as_uri()]
    return uris[:8]  # an editor opens a few folders; more are walked by their sessions


class Prewalk:
    """The names a forked child walked: read (and the child reaped) by a thread of their own as
    soon as the child is done, whether or not a session asks for them; unpickled only when a
    session takes them."""

    def __init__(self, pid: int, fd: int, roots: Collection[str] = ()) -> None:
        self._pid = pid
        self._fd = fd
        self.roots = frozenset(roots)  # the workspaces the child walks
        self._lock = threading.Lock()
        self._raw = b""
        self._names: dict[str, PackedNames] | None = None
        self._reader = threading.Thread(target=self._read, name="brain-prewalk", daemon=True)
        if fd >= 0:
            self._reader.start()

    def take(self, root: Path, unless: threading.Event | None = None) -> PackedNames | None:
        """The walk of `root` (None: the child did not walk it, or failed); waits for the child,
        the pipe read releasing the GIL meanwhile. Each root's names are taken once. None, and
        nothing unpickled, if `unless` is set by then: a big workspace's snapshot answered first
        (at 100,000 notes the names are 26 MB, unpickled while that load needs the core)."""
        if self._reader.ident is not None:
            self._reader.join()
        with self._lock:
            if unless is not None and unless.is_set():
                return None
            if self._names is None:
                self._names, self._raw = self._unpickle(self._raw), b""
            return self._names.pop(str(root), None)

    def _read(self) -> None:
        raw = self._collect()
        with self._lock:
            self._raw = raw

    def _collect(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while chunk := os.read(self._fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(self._fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
        return b"".join(chunks)

    @staticmethod
    def _unpickle(raw: bytes) -> dict[str, PackedNames]:
        try:
            names = pickle.loads(raw) if raw else {}
        except Exception:  # a child killed mid-write: the sessions walk themselves
            log.exception("the early walk's names could not be read")
            return {}
        return names if isinstance(names, dict) else {}


def start(folders: list[str], snapshots: bool = True) -> Prewalk | None:
    """Fork the child that walks the workspaces of `folders` (call before any thread exists);
    None if it can't, or has none to walk. `snapshots`: the sessions load their snapshots."""
    if not folders or not hasattr(os, "fork") or sys.platform == "darwin" or (os.cpu_count() or 1) < 2:
        return None
    # What the walk needs is imported here, before the fork: the server imports it anyway, so
    # the child only walks (on a busy machine a child importing it again would cost a core).

    roots = walked_roots(folders, snapshots)
    if not roots:
        return None

    try:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
    except OSError:
        log.info("could not fork the early walk; each session walks in a thread")
        return None
    if pid == 0:  # the child: never returns, never touches the protocol's stdin or stdout
        status = 1
        try:
            os.close(read_fd)
            # Off the protocol's pipes: the client sees the server's stdout end with the server.
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)
            _walk_into(write_fd, roots)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    return Prewalk(pid, read_fd, roots)


def walked_roots(folders: list[str], snapshots: bool = True) -> list[str]:
    """The workspace roots of `folders` worth a walk: not one whose snapshot is big. Its load
    answers sooner than a walk can (100,000 notes: 0.9 s against 3 s), and a child walking
    meanwhile only takes a core from it: first completion 1.6 s with the walk, 1.2 without.
    A small one's walk answers while the server still imports (10,000 notes: 0.4 s, 0.5)."""
    from brain.lsp.roots import folder_root, path_of

    roots: list[str] = []
    for uri in folders:
        path = path_of(uri)
        root = folder_root(path) if path is not None else None
        if root is None or str(root) in roots:
            continue
        try:
            big = snapshots and snapshot_path(root).stat().st_size >= BIG_SNAPSHOT
        except OSError:
            big = False
        if not big:
            roots.append(str(root))
    return roots


def _walk_into(fd: int, roots: list[str]) -> None:
    import gc

    # A short-lived child of acyclic data: the collector rescanning 100,000 new nodes again
    # and again was a third of its walk.
    gc.disable()
    from brain.layouts import choose_layout_leniently, get_layout
    from brain.lsp.startup.early import walk_parts
    from brain.lsp.startup.packed import pack

    walked: dict[str, PackedNames] = {}
    for name in roots:
        root = Path(name)
        layout = get_layout(choose_layout_leniently(root.resolve()).name)
        walked[name] = pack(walk_parts(root, layout))
    data = memoryview(pickle.dumps(walked, protocol=pickle.HIGHEST_PROTOCOL))
    while data:
        data = data[os.write(fd, data):]
    os.close(fd)
