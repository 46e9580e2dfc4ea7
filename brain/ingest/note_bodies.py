"""Note bodies read back from the workspace's files, for the embedded store (memory_bodies).

The ingester has just read every note it writes, so an embedded store need not hold the
bodies: `DiskBodies` tells it which ones it can read again (any note not parsed from an
editor's unsaved buffer) and reads them when a query asks. What it reads is checked against
the note's content hash. A file that changed since (the watcher is about to bring the rest of
the note) gives its new body, which is what the user sees in their editor; one that is gone
gives none. It reads as the ingester does and no further: a regular file at the note's own
path under the root, through no symbolic link, so a file swapped for a link to a secret
elsewhere is never read.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from brain.budgets import note_budget
from brain.ingest.memory_files import content_hash
from brain.model import MemoryNode
from brain.parse.note import body_of

log = logging.getLogger(__name__)


class DiskBodies:
    """The bodies of the notes under `root`, but those of `overlays` (unsaved buffers)."""

    def __init__(self, root: Path, overlays: Mapping[str, bytes]) -> None:
        self.root = root  # resolved: a note's real path must be exactly root / its path
        self.overlays = overlays  # the ingester's own: what the note holds now is not on disk

    def on_disk(self, memory: MemoryNode) -> bool:
        return memory.path not in self.overlays

    def read(self, memory: MemoryNode) -> str:
        limit = note_budget().max_bytes
        if memory.size > limit:
            return ""  # a note past its budget has no body (brain/parse/note_budget.py)
        raw = read_regular(self.root, memory.path, limit)
        if raw is None:
            return ""
        if content_hash(raw) != memory.hash:
            log.debug("%s changed since it was read: its new body is given", memory.path)
        return body_of(raw, memory.path)


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_regular(root: Path, rel: str, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file `root / rel` if no part of that path is a symbolic link
    (the ingester never follows one), else None; so is a file that cannot be read.

    Each folder is opened in the one before with O_NOFOLLOW, down to the file: a link put
    anywhere on the way fails its open, and nothing can be swapped between a check and the
    read (a realpath() check first cost twice the CPU: an lstat of every part of the path).
    A file over `limit` bytes (one that grew past the note budget since) is None too, unread."""
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    try:
        fd = os.open(root, _FOLDER)
    except OSError:
        return None
    try:
        for at, part in enumerate(parts, 1 - len(parts)):  # 0 at the file itself
            inner = os.open(part, _FILE if at == 0 else _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = inner
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
            return None  # a FIFO or a device put there since: never read
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
