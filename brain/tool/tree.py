"""An agent's nested memory tree (`<agent>/memory/**`: layouts space and mindlink), confined.

The same safety as brain.tool.files, for folders within folders: every step from the
workspace root is opened `O_NOFOLLOW` relative to its parent's descriptor, so a symbolic link
anywhere on the way is refused, never followed, and a folder swapped for a link halfway
through cannot redirect a write. Writes are atomic (`files.write_atomic_at`: temp dot-file,
fsync, rename, fsync the folder); writers hold an exclusive `flock` on the agent's `memory/`
folder, which serialises them across threads and processes. A recursive delete works on
descriptors and removes a link as a link, never what it points at.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from brain.tool.files import UnsafeEntry, open_dir, read_opened, write_atomic_at

MEMORY = "memory"
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
#: Entries a folder's size adds up before it gives up (a listing has a cost budget too).
SIZE_BUDGET = 20_000


class NotAFolder(Exception):
    """A path goes through something that is a file, not a folder."""

    def __init__(self, rel: str) -> None:
        super().__init__(f"{rel} is a file, not a folder")
        self.rel = rel


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One line of a listing: a file (size in bytes) or a folder (total bytes of its files;
    None when it holds more than SIZE_BUDGET entries)."""

    name: str
    kind: str  # "file" | "folder"
    size: int | None
    mtime_ns: int
    files: int | None = None  # a folder's file count (None past the budget)


@dataclass(frozen=True, slots=True)
class TreeFile:
    data: bytes
    size: int
    mtime_ns: int
    mode: int


@dataclass(frozen=True, slots=True)
class Removed:
    """A file a delete removed: its path under `memory/`, hash and (small enough) bytes."""

    path: str
    digest: str
    data: bytes | None


class AgentTree:
    """`<root>/<agent>/memory`, opened safely for one operation at a time."""

    def __init__(self, root: Path, agent: str) -> None:
        self.root = Path(root).resolve()
        self.agent = agent
        self.rel = f"{agent}/{MEMORY}"

    def agent_exists(self) -> bool:
        """Whether `<root>/<agent>/` is a real folder (not a link)."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fd = open_dir(self.agent, root_fd, self.agent)
        except UnsafeEntry:
            return False
        finally:
            os.close(root_fd)
        if fd is None:
            return False
        os.close(fd)
        return True

    @contextmanager
    def open(self, *, create: bool = False, lock: bool = False) -> Iterator[OpenTree | None]:
        """The memory folder (None when missing and not `create`); UnsafeEntry on a link."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            agent_fd = open_dir(self.agent, root_fd, self.agent)
            if agent_fd is None and create:
                with suppress(FileExistsError):
                    os.mkdir(self.agent, dir_fd=root_fd)
                agent_fd = open_dir(self.agent, root_fd, self.agent)
        finally:
            os.close(root_fd)
        if agent_fd is None:
            yield None
            return
        try:
            fd = open_dir(MEMORY, agent_fd, self.rel)
            if fd is None and create:
                with suppress(FileExistsError):
                    os.mkdir(MEMORY, dir_fd=agent_fd)
                fd = open_dir(MEMORY, agent_fd, self.rel)
        finally:
            os.close(agent_fd)
        if fd is None:
            yield None
            return
        try:
            if lock:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield OpenTree(fd, self.rel)
        finally:
            os.close(fd)  # also releases the flock


class OpenTree:
    """The open memory folder of one agent; paths are lists of checked segments."""

    def __init__(self, fd: int, rel: str) -> None:
        self.fd = fd
        self.rel = rel

    def rel_of(self, parts: Sequence[str]) -> str:
        return "/".join([self.rel, *parts])

    @contextmanager
    def folder(self, parts: Sequence[str], *, create: bool = False) -> Iterator[int | None]:
        """The descriptor of the folder `parts` (None when missing); NotAFolder, UnsafeEntry."""
        fd = os.dup(self.fd)
        try:
            for i, name in enumerate(parts):
                rel = self.rel_of(parts[: i + 1])
                try:
                    child = open_dir(name, fd, rel)
                except UnsafeEntry as exc:
                    if exc.what == "not a folder":
                        raise NotAFolder(rel) from None
                    raise
                if child is None and create:
                    with suppress(FileExistsError):
                        os.mkdir(name, dir_fd=fd)
                    child = open_dir(name, fd, rel)
                os.close(fd)
                if child is None:
                    fd = -1
                    yield None
                    return
                fd = child
            yield fd
        finally:
            if fd >= 0:
                os.close(fd)

    def kind(self, parts: Sequence[str]) -> str | None:
        """"file", "folder" or None (missing); UnsafeEntry for links and devices."""
        if not parts:
            return "folder"
        with self.folder(parts[:-1]) as parent:
            if parent is None:
                return None
            try:
                st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeEntry(self.rel_of(parts), "a symbolic link")
        if stat.S_ISDIR(st.st_mode):
            return "folder"
        if stat.S_ISREG(st.st_mode):
            return "file"
        raise UnsafeEntry(self.rel_of(parts), "not a regular file")

    def read(self, parts: Sequence[str], limit: int | None = None) -> TreeFile | None:
        """A file's bytes (FileTooLarge past `limit`, with its size); None when missing."""
        with self.folder(parts[:-1]) as parent:
            if parent is None:
                return None
            try:
                fd = os.open(parts[-1], _READ_FLAGS, dir_fd=parent)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK):
                    raise UnsafeEntry(self.rel_of(parts), "a symbolic link") from None
                raise
        data, st = read_opened(fd, self.rel_of(parts), limit)
        return TreeFile(data, len(data), st.st_mtime_ns, stat.S_IMODE(st.st_mode))

    def head(self, parts: Sequence[str], size: int) -> bytes:
        """The first `size` bytes of a file (to tell text from binary without reading it all)."""
        with self.folder(parts[:-1]) as parent:
            assert parent is not None
            fd = os.open(parts[-1], _READ_FLAGS, dir_fd=parent)
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)

    def listing(self, parts: Sequence[str]) -> list[TreeEntry]:
        """The folder's entries by name (dot-files are brain's own and not listed)."""
        out: list[TreeEntry] = []
        with self.folder(parts) as fd:
            if fd is None:
                return out
            with os.scandir(fd) as it:
                found = sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
            for entry in found:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    out.append(TreeEntry(entry.name, "file", st.st_size, st.st_mtime_ns))
                elif stat.S_ISDIR(st.st_mode):
                    size, files = _folder_size(fd, entry.name)
                    out.append(TreeEntry(entry.name, "folder", size, st.st_mtime_ns, files))
        return out

    def write(self, parts: Sequence[str], data: bytes, mode: int | None = None) -> None:
        """Replace (or create) the file, its parent folders made as needed."""
        with self.folder(parts[:-1], create=True) as parent:
            assert parent is not None
            write_atomic_at(parent, parts[-1], data, mode)

    def remove(self, parts: Sequence[str], keep: int) -> list[Removed]:
        """Delete a file, or a folder and all it holds; what was removed, files only.

        Bytes of files up to `keep` bytes come back (for the history's diffs); every file's
        sha256 does."""
        with self.folder(parts[:-1]) as parent:
            if parent is None:
                return []
            removed: list[Removed] = []
            _remove(parent, parts[-1], "/".join(parts), keep, removed)
            os.fsync(parent)
            return removed


def _remove(parent: int, name: str, path: str, keep: int, out: list[Removed]) -> None:
    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(st.st_mode):
        if stat.S_ISREG(st.st_mode):
            digest, data = _hash_file(parent, name, keep)
            out.append(Removed(path, digest, data))
        os.unlink(name, dir_fd=parent)
        return
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        for child in sorted(os.listdir(fd)):
            _remove(fd, child, f"{path}/{child}", keep, out)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def _hash_file(parent: int, name: str, keep: int) -> tuple[str, bytes | None]:
    fd = os.open(name, _READ_FLAGS, dir_fd=parent)
    digest = hashlib.sha256()
    kept: list[bytes] = []
    size = 0
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if size <= keep:
                kept.append(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest(), b"".join(kept) if size <= keep else None


def _folder_size(parent: int, name: str) -> tuple[int | None, int | None]:
    """(total bytes, file count) of a folder's regular files, links not followed; (None, None)
    past SIZE_BUDGET entries."""
    total = files = seen = 0
    stack = [os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)]
    try:
        while stack:
            fd = stack.pop()
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        seen += 1
                        if seen > SIZE_BUDGET:
                            return None, None
                        st = entry.stat(follow_symlinks=False)
                        if stat.S_ISREG(st.st_mode):
                            total += st.st_size
                            files += 1
                        elif stat.S_ISDIR(st.st_mode):
                            stack.append(os.open(
                                entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                                dir_fd=fd,
                            ))
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)
    return total, files
