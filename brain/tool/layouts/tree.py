"""An agent's nested memory tree (`<agent>/memory/**`: layouts space and mindlink), confined.

The same safety as brain.tool.files.confined, for folders within folders: every step from the
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

from brain.safefs import MAX_DEPTH, escaped
from brain.tool.files.confined import UnsafeEntry, open_dir, read_opened, write_atomic_at

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
                name = escaped(entry.name)  # a name that is not UTF-8 is shown, never sent raw
                if stat.S_ISREG(st.st_mode):
                    out.append(TreeEntry(name, "file", st.st_size, st.st_mtime_ns))
                elif stat.S_ISDIR(st.st_mode):
                    size, files = _folder_size(fd, entry.name, len(parts) + 1)
                    out.append(TreeEntry(name, "folder", size, st.st_mtime_ns, files))
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
    """Delete `name` in `parent`, a folder with all it holds, without recursion and with two
    descriptors open at most, however deep the tree (a recursive delete raised
    RecursionError on a tree ~1,000 deep, and held a descriptor a level). It goes back up
    by `..`, checking that each folder is still the one it came down from: a folder moved
    away meanwhile stops the delete there (an OSError), never deletes elsewhere."""
    start = len(out)
    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(st.st_mode):
        _remove_file(parent, name, st, path, keep, out)
        return
    fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    # One frame a level: (name in its parent, its path, its identity, subfolders left).
    frames = [(name, path, _identity(fd), _clear(fd, path, keep, out))]
    try:
        while frames:
            _, at, _, subfolders = frames[-1]
            if subfolders:
                child = subfolders.pop()
                inner = os.open(child, _FOLDER_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
                child_path = f"{at}/{escaped(child)}"
                frames.append((child, child_path, _identity(fd), _clear(fd, child_path, keep, out)))
                continue
            done = frames.pop()[0]
            if not frames:
                break
            up = os.open("..", _FOLDER_FLAGS, dir_fd=fd)
            if _identity(up) != frames[-1][2]:
                os.close(up)
                raise OSError(errno.ESTALE, f"{frames[-1][1]} was moved while it was being deleted")
            os.close(fd)
            fd = up
            os.rmdir(done, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)
    out[start:] = sorted(out[start:], key=lambda r: r.path.split("/"))  # the order of a recursive walk


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _clear(fd: int, path: str, keep: int, out: list[Removed]) -> list[str]:
    """Remove every file (and link, FIFO...) in the folder; its subfolders, last first."""
    subfolders: list[str] = []
    for child in sorted(os.listdir(fd)):
        st = os.stat(child, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            subfolders.append(child)
        else:
            _remove_file(fd, child, st, f"{path}/{escaped(child)}", keep, out)
    subfolders.reverse()
    return subfolders


def _remove_file(
    parent: int, name: str, st: os.stat_result, path: str, keep: int, out: list[Removed],
) -> None:
    if stat.S_ISREG(st.st_mode):
        digest, data = _hash_file(parent, name, keep)
        out.append(Removed(path, digest, data))
    os.unlink(name, dir_fd=parent)


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


def _folder_size(parent: int, name: str, depth: int) -> tuple[int | None, int | None]:
    """(total bytes, file count) of a folder's regular files, links not followed; (None, None)
    past SIZE_BUDGET entries or past the walk's depth budget (brain.safefs.MAX_DEPTH, counted
    from the memory folder: `depth` is the folder's). One descriptor a level: a stack of
    every folder waiting its turn held one each, 20,000 for a wide tree."""
    total = files = seen = 0
    fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    frames: list[tuple[int, list[str]]] = []
    try:
        while True:
            subfolders: list[str] = []
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
                        subfolders.append(entry.name)
            frames.append((fd, subfolders))
            fd = -1  # held by its frame now
            while frames and not frames[-1][1]:
                os.close(frames.pop()[0])
            if not frames:
                return total, files
            if depth + len(frames) > MAX_DEPTH:
                return None, None
            fd = os.open(frames[-1][1].pop(), _FOLDER_FLAGS, dir_fd=frames[-1][0])
    finally:
        if fd >= 0:
            os.close(fd)
        for held, _ in frames:
            os.close(held)
