"""Confined, atomic file operations inside the workspace's memory folders.

Every operation walks from the workspace root with directory file descriptors opened
`O_NOFOLLOW`, and then works relative to the scope folder's descriptor (`openat` and
friends), so a symlinked `memory/`, scope folder or file is refused rather than followed,
and a folder swapped for a link halfway through cannot redirect a write. Writes go to a
unique dot-file in the same folder (the walker ignores dot-files), are fsynced, replace the
old file in one `rename`, and the folder is fsynced: a crash leaves the old or the new file.

Writers hold an exclusive `flock` on the scope folder, which serialises read-modify-write
across threads and processes (each lock is its own open file description).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from brain.model import SHARED_SCOPE
from brain.tool.files.names import MD, NameProblem, check_agent_name, fold, is_allowed
from brain.workspace import MEMORY_DIR

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_RE = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")
STALE_TEMP_SECONDS = 3600.0


class FileTooLarge(Exception):
    def __init__(self, rel: str, size: int) -> None:
        super().__init__(f"{rel} is {size} bytes")
        self.rel = rel
        self.size = size


class UnsafeEntry(Exception):
    """A folder or file that is not what it must be: a symlink, a device, a FIFO, ..."""

    def __init__(self, rel: str, what: str) -> None:
        super().__init__(f"{rel} is {what}")
        self.rel = rel
        self.what = what


@dataclass(frozen=True, slots=True)
class FileEntry:
    name: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class FileData:
    name: str
    data: bytes
    mtime_ns: int
    mode: int

    @property
    def size(self) -> int:
        return len(self.data)


class ScopeFolder:
    """One open scope folder (`memory/<scope>`); every path is relative to its descriptor."""

    def __init__(self, fd: int, scope: str, case_insensitive: bool) -> None:
        self.fd = fd
        self.scope = scope
        self.rel = f"{MEMORY_DIR}/{scope}"
        self._case_insensitive = case_insensitive

    def rel_of(self, name: str) -> str:
        return f"{self.rel}/{name}"

    def lookup(self, name: str) -> FileEntry | None:
        """The file of exactly this name, None when there is none; UnsafeEntry if not regular."""
        _require_name(name)
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeEntry(self.rel_of(name), "a symbolic link")
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeEntry(self.rel_of(name), "not a regular file")
        if self._case_insensitive and name not in os.listdir(self.fd):
            return None  # the file system matched another spelling; see `same_name`
        return FileEntry(name, st.st_size, st.st_mtime_ns)

    def read(self, name: str, limit: int | None = None) -> FileData | None:
        """The file's bytes (FileTooLarge past `limit` bytes); None when there is none."""
        _require_name(name)
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise UnsafeEntry(self.rel_of(name), "a symbolic link") from None
            raise
        data, st = read_opened(fd, self.rel_of(name), limit)
        return FileData(name, data, st.st_mtime_ns, stat.S_IMODE(st.st_mode))

    def entries(self) -> list[FileEntry]:
        """Every memory file of the folder: regular `.md` files with allowed names, by name."""
        out: list[FileEntry] = []
        with os.scandir(self.fd) as it:
            for entry in it:
                if not entry.name.endswith(MD) or entry.name.startswith("."):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False) or not is_allowed(entry.name):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out.append(FileEntry(entry.name, st.st_size, st.st_mtime_ns))
        out.sort(key=lambda e: (fold(e.name), e.name))
        return out

    def same_name(self, name: str) -> str | None:
        """Another entry whose name differs from `name` only in case or normalisation."""
        key = fold(name)
        for other in sorted(os.listdir(self.fd)):
            if other != name and fold(other) == key:
                return other
        return None

    def write_atomic(self, name: str, data: bytes, mode: int | None = None) -> None:
        """Replace `name` by `data` all at once: a temp dot-file, fsync, rename, fsync the folder."""
        _require_name(name)
        write_atomic_at(self.fd, name, data, mode)

    def move(self, name: str, dest: ScopeFolder, new_name: str) -> None:
        """Move a file without ever replacing another: FileExistsError when `new_name` is taken.

        A hard link then an unlink, so the target is claimed atomically; a crash in between
        leaves both names (nothing lost). File systems without hard links fall back to a
        rename after a check, which the scope locks make safe against other brain writers.
        """
        _require_name(name)
        _require_name(new_name)
        if new_name in os.listdir(dest.fd):
            raise FileExistsError(errno.EEXIST, "exists", new_name)
        if dest is self and fold(name) == fold(new_name):
            os.rename(name, new_name, src_dir_fd=self.fd, dst_dir_fd=dest.fd)  # a change of case
        else:
            try:
                os.link(name, new_name, src_dir_fd=self.fd, dst_dir_fd=dest.fd, follow_symlinks=False)
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK, errno.ENOSYS):
                    raise
                os.rename(name, new_name, src_dir_fd=self.fd, dst_dir_fd=dest.fd)
            else:
                os.unlink(name, dir_fd=self.fd)
        os.fsync(dest.fd)
        if dest is not self:
            os.fsync(self.fd)

    def unlink(self, name: str) -> None:
        _require_name(name)
        os.unlink(name, dir_fd=self.fd)
        os.fsync(self.fd)

    def sweep_temps(self, now: float, older_than: float = STALE_TEMP_SECONDS) -> int:
        """Remove temp files a crashed writer left behind (only our own pattern, only old ones)."""
        removed = 0
        for name in os.listdir(self.fd):
            if not _TEMP_RE.match(name):
                continue
            try:
                st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime > older_than:
                    os.unlink(name, dir_fd=self.fd)
                    removed += 1
            except OSError:
                continue
        return removed


class MemoryFolders:
    """The scope folders under `<root>/memory`, opened safely."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._swept: set[str] = set()
        self._guard = threading.Lock()
        self.case_insensitive = _case_insensitive(self.root / MEMORY_DIR)

    @contextmanager
    def open(self, scope: str, *, create: bool = False, lock: bool = False) -> Iterator[ScopeFolder | None]:
        """The scope folder (None when it does not exist and `create` is false)."""
        fd = self._open_scope(scope, create)
        if fd is None:
            yield None
            return
        try:
            if lock:
                fcntl.flock(fd, fcntl.LOCK_EX)
            folder = ScopeFolder(fd, scope, self.case_insensitive)
            if lock:
                self._sweep_once(folder)
            yield folder
        finally:
            os.close(fd)  # closing the descriptor also releases the flock

    @contextmanager
    def open_many(
        self, scopes: list[str], *, create: Collection[str] = ()
    ) -> Iterator[dict[str, ScopeFolder]]:
        """Several scope folders, locked in name order so two writers never deadlock."""
        with ExitStack() as stack:
            opened: dict[str, ScopeFolder] = {}
            for scope in sorted(set(scopes)):
                folder = stack.enter_context(self.open(scope, create=scope in create, lock=True))
                if folder is not None:
                    opened[scope] = folder
            yield opened

    def _open_scope(self, scope: str, create: bool) -> int | None:
        if scope != SHARED_SCOPE:
            try:
                check_agent_name(scope)
            except NameProblem:
                raise ValueError(f"not a scope name: {scope!r}") from None
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            mem_fd = _open_dir(MEMORY_DIR, root_fd, MEMORY_DIR)
            if mem_fd is None:
                if not create:
                    return None
                os.mkdir(MEMORY_DIR, dir_fd=root_fd)
                mem_fd = _open_dir(MEMORY_DIR, root_fd, MEMORY_DIR)
                assert mem_fd is not None
        finally:
            os.close(root_fd)
        try:
            fd = _open_dir(scope, mem_fd, f"{MEMORY_DIR}/{scope}")
            if fd is None and create:
                # FileExistsError: made by another writer a moment ago, or a link: open decides
                with suppress(FileExistsError):
                    os.mkdir(scope, dir_fd=mem_fd)
                fd = _open_dir(scope, mem_fd, f"{MEMORY_DIR}/{scope}")
            return fd
        finally:
            os.close(mem_fd)

    def _sweep_once(self, folder: ScopeFolder) -> None:
        with self._guard:
            if folder.scope in self._swept:
                return
            self._swept.add(folder.scope)
        folder.sweep_temps(time.time())


def write_atomic_at(dir_fd: int, name: str, data: bytes, mode: int | None = None) -> None:
    """Replace `name` in the folder `dir_fd` by `data` all at once: a temp dot-file, fsync,
    rename, fsync the folder (also used by the nested trees of brain.tool.layouts.tree)."""
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666,
        dir_fd=dir_fd,
    )
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        _unlink_quietly(tmp, dir_fd)
        raise
    os.fsync(dir_fd)


def open_dir(name: str, parent_fd: int, rel: str) -> int | None:
    """A folder's descriptor without following a link (UnsafeEntry); None when missing."""
    return _open_dir(name, parent_fd, rel)


def _open_dir(name: str, parent_fd: int, rel: str) -> int | None:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeEntry(rel, "a symbolic link") from None
        if exc.errno == errno.ENOTDIR:
            try:
                st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            except OSError:
                raise UnsafeEntry(rel, "not a folder") from None
            what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a folder"
            raise UnsafeEntry(rel, what) from None
        raise


def _require_name(name: str) -> None:
    """The last line of defence: the layers above refuse bad names with a message first."""
    if not is_allowed(name):
        raise ValueError(f"not a memory file name: {name!r}")


def _unlink_quietly(name: str, dir_fd: int) -> None:
    with suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def _case_insensitive(folder: Path) -> bool:
    """Whether this file system treats `memory` and `MEMORY` as one name."""
    try:
        a = os.stat(folder)
        b = os.stat(folder.with_name(folder.name.upper()))
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def read_regular(root: Path, folder: str, name: str) -> tuple[bytes, int, int] | None:
    """(bytes, size, mtime_ns) of `<root>/<folder>/<name>` if it is a regular file reached
    without following any symbolic link; None otherwise."""
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            dir_fd = _open_dir(folder, root_fd, folder)
        except UnsafeEntry:
            return None
        if dir_fd is None:
            return None
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except OSError:
            return None
        finally:
            os.close(dir_fd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            data = b""
            while chunk := os.read(fd, 1 << 20):
                data += chunk
            return data, st.st_size, st.st_mtime_ns
        finally:
            os.close(fd)
    finally:
        os.close(root_fd)


def real_subfolders(folder: Path) -> list[str]:
    """Names of the real (not symlinked, not hidden) folders directly inside `folder`."""
    try:
        with os.scandir(folder) as it:
            return sorted(
                e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []


def regular_files(folder: Path, suffix: str) -> list[str]:
    """Names of the regular (not symlinked, not hidden) files in `folder` ending in `suffix`."""
    try:
        with os.scandir(folder) as it:
            return sorted(
                e.name for e in it
                if e.name.endswith(suffix) and not e.name.startswith(".")
                and e.is_file(follow_symlinks=False)
            )
    except OSError:
        return []


def read_opened(fd: int, rel: str, limit: int | None) -> tuple[bytes, os.stat_result]:
    """The whole of an opened file, and its stat; closes `fd`. Refuses what is not a regular
    file (UnsafeEntry) or is longer than `limit` (FileTooLarge), before reading a byte."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeEntry(rel, "not a regular file")
        if limit is not None and st.st_size > limit:
            raise FileTooLarge(rel, st.st_size)
        chunks: list[bytes] = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)
