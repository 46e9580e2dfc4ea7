"""The first version brain saw of each note it has no record of: kept, so the moments before
an outside edit of a note that predates the history can still be shown (issue 44, item 5).

A note on disk before the history began and then edited outside brain has a record whose
`before` is the content brain knew, but that content was never kept: it was gone from the
disk when the edit was seen. So at every full sync (the first at start, and each rescan)
each note the history names no record of, and whose content the blob store does not hold,
is kept as it is then (`baselines`): its blob, and a line `{"p": path, "d": sha256}` in
`baseline-v1.jsonl` beside the blob folder, which retention keeps while the note has no
record (after that the record's `before` keeps it, for as long as retention keeps records).

Bounded by the history's caps, as every version is: a note over the per-file cap is not
kept, nor one that would pass half the room left under the workspace's history cap (the
other half stays for writes; smaller notes after it still are). One log line says how many
notes have no baseline: the moments before their first outside edit are refused, as before,
naming the oldest moment shown. It runs on a thread of its own: a first start of a big
workspace writes one blob a note, and the graph is not kept waiting.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import stat
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from brain import safefs
from brain.ingest.memory_files import content_hash
from brain.tool.history.log import HistoryRecord

if TYPE_CHECKING:
    from brain.tool.service import MemoryService

log = logging.getLogger(__name__)

# The baselines take at most this fraction (1/N) of the room left under the workspace's
# history cap, so a first start never leaves the agents' writes refused as history-full.
BASELINE_SHARE = 2


def default_baseline_path(blob_dir: Path) -> Path:
    """`.brain/history/blobs` -> `.brain/history/baseline-v1.jsonl`."""
    return blob_dir.parent / "baseline-v1.jsonl"


class Baselines:
    """The baselines kept: path -> sha256, read from the file (then only what was appended)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._found: dict[str, str] = {}
        self._offset = 0
        self.thread: threading.Thread | None = None  # the last keeping run (tests join it)

    def load(self) -> dict[str, str]:
        with self._lock:
            try:
                with os.fdopen(safefs.open_regular(self.path, follow=False), "rb") as fh:
                    size = os.fstat(fh.fileno()).st_size
                    if size < self._offset:
                        self._found, self._offset = {}, 0
                    fh.seek(self._offset)
                    chunk = fh.read(size - self._offset)
            except (OSError, safefs.NotRegular):
                return dict(self._found)
            end = chunk.rfind(b"\n") + 1
            for raw in chunk[:end].split(b"\n"):
                try:
                    line = json.loads(raw)
                    path, digest = str(line["p"]), str(line["d"])
                except (ValueError, TypeError, KeyError):
                    continue  # a torn or foreign line: that note has no baseline
                self._found.setdefault(path, digest)
            self._offset += end
            return dict(self._found)

    def unrecorded(self, records: Iterable[HistoryRecord]) -> set[str]:
        """The digests of the baselines of notes no record names yet (retention keeps them)."""
        named: set[str] = set()
        for record in records:
            named.add(record.path)
            if record.new_path is not None:
                named.add(record.new_path)
        return {digest for path, digest in self.load().items() if path not in named}

    def keep_later(self, service: MemoryService, now: Mapping[str, str]) -> None:
        """Keep, on a thread, the baselines of the notes in `now` (path -> sha256 after a full
        sync) that no record names and whose content is not kept."""
        thread = threading.Thread(target=self._keep_logged, args=(service, dict(now)),
                                  name="brain-baselines", daemon=True)
        self.thread = thread
        thread.start()

    def _keep_logged(self, service: MemoryService, now: Mapping[str, str]) -> None:
        try:
            self.keep(service, now)
        except OSError as exc:  # a first version is a help, never a failure of the sync
            log.warning("could not keep the notes' first versions: %s", exc)

    def keep(self, service: MemoryService, now: Mapping[str, str]) -> int:
        """`keep_later`'s work; returns how many were kept."""
        named = {p for r in service.history.all() for p in (r.path, r.new_path) if p}
        known = self.load()
        wanted = sorted(rel for rel in now if rel.endswith(".md") and rel not in named and rel not in known)
        if not wanted:
            return 0
        blobs, usage = service.blobs, service.history_usage()
        room = (usage.caps.workspace_bytes - usage.total) // BASELINE_SHARE  # the rest: for writes
        kept = skipped = 0
        lines: list[bytes] = []
        for rel in wanted:
            digest = now[rel]
            if blobs.get(digest) is None:
                try:
                    with os.fdopen(safefs.open_regular(service.root / rel), "rb") as fh:
                        data = fh.read(blobs.max_bytes + 1)
                except (OSError, safefs.NotRegular):
                    continue
                if content_hash(data) != digest:
                    continue  # changed since the sync: the watcher records that change
                if len(data) > blobs.max_bytes or len(data) > room:
                    skipped += 1
                    continue
                if blobs.put(data) != digest:
                    continue
                room -= len(data)
            lines.append(json.dumps({"p": rel, "d": digest}, ensure_ascii=False).encode() + b"\n")
            kept += 1
        if lines:
            self._append(b"".join(lines))
        if skipped:
            log.warning("history: %d notes brain saw for the first time were not kept (the history's "
                        "cap): the moments before their first outside edit cannot be shown", skipped)
        return kept

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            log.warning("could not keep the notes' first versions in %s: %s", self.path, exc)
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO there is never waited on
                log.warning("could not keep the notes' first versions: %s is not a regular file", self.path)
                return
            os.set_blocking(fd, True)
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
