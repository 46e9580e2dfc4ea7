"""The file-system shapes brain meets wherever it reads: depth, names and special files.

The workspace is anyone's folder (docs/security.md), so three shapes that no editor makes
are still there to meet, and each broke brain far from where it entered:

* a folder nested ~1,200 levels deep made every recursive walk raise RecursionError (check
  printed a traceback, serve exited, a running server's watcher died silently);
* a name that is not UTF-8 (Python hands it over with surrogate escapes) was taken in, and
  then every answer that named it failed to encode, for everyone;
* a FIFO where brain expected a file blocked its read forever, and with it the server.

So there is one primitive for each, and every reader goes through them: `walk` (iterative,
at most `MAX_DEPTH` levels, holding one descriptor a level), `is_utf8`/`escaped` (a name is
checked once where it enters; what goes on is the escaped text, never the raw name) and
`open_regular`/`read_regular_file` (O_NONBLOCK|O_NOFOLLOW, then fstat: what is not a regular
file is refused with `NotRegular`, never waited on).
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from brain.model import Problem, Severity

#: Levels below the workspace root that brain reads: a folder whose path (relative to the root)
#: has more parts is reported, not entered.
#: The deepest layout rule (space's `path-too-deep`) is 16, so no workspace that passes its
#: rules comes near; each level holds one descriptor while the walk is below it.
MAX_DEPTH = 64

BAD_NAME = "bad-name"
TOO_DEEP = "too-deep"

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_SUBDIR = _DIR | os.O_NOFOLLOW
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def is_utf8(text: str) -> bool:
    """Whether `text` is a name brain can say: a name that is not UTF-8 reaches Python with
    surrogate escapes (and a JSON string may carry a lone surrogate), which no answer can encode."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(text: str) -> str:
    """`text` as valid UTF-8: each byte that is not UTF-8 written `\\xNN` (as Python shows it)."""
    if is_utf8(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file name decodes to (from JSON)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def first_bad_name(rel: str) -> str | None:
    """The escaped path of the first part of `rel` whose name is not UTF-8, else None."""
    if is_utf8(rel):
        return None
    parts = rel.split("/")
    for end, part in enumerate(parts, 1):
        if not is_utf8(part):
            return escaped("/".join(parts[:end]))
    return escaped(rel)  # not reached: some part holds the surrogate


def too_deep(rel: str) -> str | None:
    """The folder a walk refuses on the way to `rel` (the part with `MAX_DEPTH` + 1 parts),
    when `rel` goes below it; else None (`rel` itself may still be a refused folder)."""
    parts = rel.split("/")
    if len(parts) <= MAX_DEPTH + 1:
        return None
    return "/".join(parts[: MAX_DEPTH + 1])


def bad_name_problem(rel: str) -> Problem:
    """The error for a file or folder whose name is not UTF-8; `rel` is already escaped."""
    return Problem(
        BAD_NAME, Severity.ERROR, rel,
        "the name is not valid UTF-8 (shown with \\x escapes), so brain cannot name it in a "
        "report, a link or an answer: it is not read",
        fix="rename it to a UTF-8 name (e.g. with `mv` and a glob, in a UTF-8 terminal)",
    )


def too_deep_problem(rel: str) -> Problem:
    """The error for a folder below which brain does not read."""
    return Problem(
        TOO_DEEP, Severity.ERROR, rel,
        f"a folder more than {MAX_DEPTH} levels deep: brain does not read what it holds",
        fix="move what it holds nearer the top, or delete it",
    )


def walk(
    top: Path | str, rel: str, max_depth: int = MAX_DEPTH,
) -> Iterator[tuple[str, os.DirEntry[str], str | None]]:
    """Every entry under the folder `top` (named `rel` in what comes out), depth first,
    without recursion: `(rel, entry, refusal)`.

    Dot-names are skipped (brain's own and editors' files). Folders are yielded before what
    they hold and never entered through a symlink. `refusal` is `BAD_NAME` for an entry whose
    name is not UTF-8 (its rel escaped; a folder is not entered) and `TOO_DEEP` for a folder
    whose rel has more than `max_depth` parts (not entered: the budget counts from the
    workspace root whatever folder a walk starts at); else None. `entry.stat()` works
    while its entry is the one yielded (its folder's descriptor is still open). A folder that
    vanishes or cannot be listed holds nothing; `top` itself may be a symlink (a caller that
    must not follow one checks first)."""
    try:
        fd = os.open(top, _DIR)
    except OSError:
        return
    depth = rel.count("/") + 1 if rel else 0
    stack: list[tuple[int, str, int, Iterator[os.DirEntry[str]]]] = [(fd, rel, depth, _entries(fd))]
    try:
        while stack:
            fd, at, depth, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                os.close(fd)
                continue
            name = entry.name
            if name.startswith("."):
                continue
            child = f"{at}/{name}" if at else name
            if not is_utf8(name):
                yield escaped(child), entry, BAD_NAME
                continue
            try:
                folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not folder:
                yield child, entry, None
            elif depth >= max_depth:
                yield child, entry, TOO_DEEP
            else:
                yield child, entry, None
                try:
                    sub = os.open(name, _SUBDIR, dir_fd=fd)
                except OSError:
                    continue  # gone, unreadable, or swapped for a link since it was listed
                stack.append((sub, child, depth + 1, _entries(sub)))
    finally:
        for fd, *_ in stack:
            os.close(fd)


def _entries(fd: int) -> Iterator[os.DirEntry[str]]:
    """A folder's entries, listed at once (its scandir handle is closed before the walk goes on)."""
    try:
        with os.scandir(fd) as it:
            return iter(list(it))
    except OSError:
        return iter(())


class NotRegular(OSError):
    """A path brain was to read is not a regular file (a FIFO, socket, device or folder)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{kind}, not a regular file: brain reads only regular files")
        self.path = path
        self.kind = kind


def special_kind(mode: int) -> str | None:
    """What a file that is neither regular, a folder nor a link is, in words; else None."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    return "not a regular file"


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words (for `NotRegular`)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    return special_kind(mode) or "not a regular file"


def open_regular(path: Path | str, *, dir_fd: int | None = None, follow: bool = False) -> int:
    """A read-only descriptor on the regular file at `path`, in blocking mode again.

    Opened O_NONBLOCK (opening a FIFO with no writer would wait forever) and, unless
    `follow`, O_NOFOLLOW; then fstat decides: anything but a regular file raises
    `NotRegular` (an OSError) and nothing is read from it."""
    flags = _FILE if not follow else _FILE & ~os.O_NOFOLLOW
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(os.fsdecode(path), kind_of(mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(path: Path | str, *, dir_fd: int | None = None, follow: bool = False) -> bytes:
    """The bytes of the regular file at `path` (see `open_regular`; raises OSError)."""
    fd = open_regular(path, dir_fd=dir_fd, follow=follow)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def read_kept_lines(path: Path) -> list[bytes] | None:
    """The lines of brain's own kept file under `.brain/` (`write_kept_file`), or None when it
    cannot be read: missing, a link, or a FIFO or device put there (refused, never waited on)."""
    try:
        return read_regular_file(path).split(b"\n")
    except OSError:  # NotRegular is one
        return None


def write_kept_file(path: Path, data: bytes, *, append: bool) -> None:
    """Write brain's own file under `.brain/` (raises OSError): `data` appended to it, or the
    whole file written beside it and renamed over it, so a reader never sees it half written.
    Never through a link, and a FIFO or folder put there is refused, never waited on."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    target = path if append else temporary
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(target, flags | (os.O_APPEND if append else os.O_TRUNC), 0o644)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise NotRegular(str(target), kind_of(mode))
            os.set_blocking(fd, True)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        if not append:
            os.replace(temporary, path)
    except OSError:
        if not append:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
