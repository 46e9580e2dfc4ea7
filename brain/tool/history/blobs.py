"""The content of each version the memory tool wrote, kept beside the history for its diffs.

history.jsonl records only hashes; this store maps a sha256 to the bytes it hashes, so the
history can show what each write changed. Content-addressed: one file per distinct version
at `<dir>/<first 2 hex>/<sha256>`, written once (a temp file, fsync, rename), never
rewritten (but one a power cut left short: `put`), so equal versions share it. A version
over the cap (the memory tool's file cap) is not kept, and a failure to keep one never fails
the write it belongs to: the history then says the content is not available. Reads check the
hash, so a damaged or planted blob is never shown.

Retention (brain/tool/history/retention.py) deletes blobs no kept history entry needs. A
writer keeps a blob before it appends the entry naming it, so `prune` spares blobs younger
than a grace period; `put` of a blob that is already there refreshes its time, and both run
under a lock file (shared for `put`, exclusive for `prune`), so a blob a writer just reused
is never deleted under it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from brain import safefs

log = logging.getLogger(__name__)

_SHA256 = re.compile(r"[0-9a-f]{64}")


LOCK_NAME = ".lock"


@dataclass(frozen=True, slots=True)
class PruneReport:
    removed: int
    kept: int
    freed_bytes: int


def default_blob_dir(history_path: Path) -> Path:
    """`.brain/history.jsonl` -> `.brain/history/blobs`."""
    return history_path.with_name(history_path.stem) / "blobs"


class BlobStore:
    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = Path(directory)
        self.max_bytes = max_bytes

    def _path(self, digest: str) -> Path | None:
        if not _SHA256.fullmatch(digest):
            return None  # never a path built from anything but a hash
        return self.directory / digest[:2] / digest

    def put(self, data: bytes, *, sync: bool = True) -> str | None:
        """Keep `data`; its sha256, or None when it is over the cap or could not be written.

        `sync=False`: not fsynced (the batches of outside changes and of first versions, whose
        record or list is fsynced once for the whole batch: one fsync a note queued every
        sync behind the disk). Only a power cut can then lose the content; what it leaves is
        never shown (reads check the hash) and the next `put` of it writes it again (its
        size is wrong), so the version reads as not kept until then, never as other bytes."""
        if len(data) > self.max_bytes:
            return None
        digest = hashlib.sha256(data).hexdigest()
        path = self._path(digest)
        assert path is not None
        try:
            with self._locked(fcntl.LOCK_SH):
                return self._write(path, digest, data, sync)
        except OSError as exc:
            log.warning("could not keep a version for the history at %s: %s", path, exc)
            return None

    def _write(self, path: Path, digest: str, data: bytes, sync: bool = True) -> str | None:
        try:
            if os.lstat(path).st_size == len(data):
                # Already kept: fresh again, so a prune running now spares it.
                os.utime(path, follow_symlinks=False)
                return digest
            # Another size: cut short by a power cut before it reached the disk (`sync=False`),
            # or damaged: written again below (reads never show it meanwhile: the hash).
        except FileNotFoundError:
            pass
        tmp = path.with_name(f".{digest}.{secrets.token_hex(6)}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("could not keep a version for the history at %s: %s", path, exc)
            tmp.unlink(missing_ok=True)
            return None
        return digest

    @contextlib.contextmanager
    def _locked(self, how: int) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        # O_NONBLOCK: a FIFO put in its place must not hold every writer; fstat refuses it.
        fd = os.open(self.directory / LOCK_NAME,
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise safefs.NotRegular(str(self.directory / LOCK_NAME), safefs.kind_of(mode))
            fcntl.flock(fd, how)
            yield
        finally:
            os.close(fd)

    def prune(self, keep: set[str], grace_seconds: float, now: float | None = None) -> PruneReport:
        """Delete every blob not in `keep` and older than `grace_seconds` (and stale temp files)."""
        now = time.time() if now is None else now
        removed = kept = freed = 0
        if not self.directory.is_dir():
            return PruneReport(0, 0, 0)
        with self._locked(fcntl.LOCK_EX):
            for folder in self.directory.iterdir():
                fanout = re.fullmatch(r"[0-9a-f]{2}", folder.name)
                if not (fanout and folder.is_dir() and not folder.is_symlink()):
                    continue
                for path in folder.iterdir():
                    name = path.name
                    wanted = name in keep or not (_SHA256.fullmatch(name) or name.endswith(".tmp"))
                    try:
                        info = path.lstat()
                    except FileNotFoundError:
                        continue
                    if wanted or now - info.st_mtime < grace_seconds:
                        kept += 1
                        continue
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
                        removed += 1
                        freed += info.st_size
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only when it is empty
        return PruneReport(removed, kept, freed)

    def size(self, digest: str) -> int:
        """Bytes the blob of `digest` takes on disk; 0 when it is not kept."""
        path = self._path(digest)
        if path is None:
            return 0
        try:
            return path.lstat().st_size
        except OSError:
            return 0

    def get(self, digest: str | None) -> bytes | None:
        """The bytes of `digest`, or None when they were not kept (or do not match it)."""
        path = self._path(digest or "")
        if path is None:
            return None
        try:
            fd = safefs.open_regular(path)  # a FIFO in the blob folder blocked this read forever
        except OSError:
            return None
        try:
            data = os.read(fd, self.max_bytes + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(data) > self.max_bytes or hashlib.sha256(data).hexdigest() != digest:
            return None
        return data

    def text(self, digest: str | None) -> str | None:
        data = self.get(digest)
        return None if data is None else data.decode("utf-8", errors="replace")
