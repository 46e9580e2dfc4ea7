"""The append-only history of accepted memory writes: who, what, where, hashes, when.

One JSON record per line in a file outside the memory folders (by default
`<workspace>/.brain/history.jsonl`; the walker ignores dot-folders). Each record is
appended with `O_APPEND` under an exclusive `flock` and fsynced before the write is
reported. A line a crash cut short is skipped with a warning when read, and the next append
starts on a fresh line, so one torn record never costs another.

A record's id is its byte offset in the file: stable, increasing, and a paging cursor.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import os
import stat
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from brain import safefs
from brain.parse import safejson
from brain.tool.calls.refusal import Refusal, RefusalCode

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    id: int
    at: str  # ISO 8601, UTC
    actor: str  # "agent:<name>", "admin" or "anonymous"
    agent: str | None  # the agent that made the call, if an agent did
    via: str  # "graphql", "rest", "cli" or "python"
    command: str  # view is never recorded: create, str_replace, insert, delete, rename, put
    scope: str
    path: str  # relative to the workspace, e.g. memory/shared/style.md
    before: str | None  # sha256 of the file before, None when it did not exist
    after: str | None  # sha256 after, None when it was deleted
    new_scope: str | None = None  # a rename's destination
    new_path: str | None = None
    report: dict[str, Any] | None = None  # a maintenance run's report (command "maintain")
    # Where the change came from: "tool", "ui", "maintain", "consolidate" or "external" (a
    # file changed outside brain). Lines older than the field have none: `origin_of` says.
    origin: str | None = None
    run: str | None = None  # the maintenance or consolidation run's id, if any
    # Why the content of `after` is not in the blob store ("not kept: cap"): said, not missing.
    kept: str | None = None
    # An outside change whose content is a git commit's version of the file: that commit
    # (brain/tool/history/gitmatch.py); None when it matched none or there is no repository.
    commit: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("report", "origin", "run", "kept", "commit"):  # old readers see the old shape
            if out[name] is None:
                del out[name]
        return out


def origin_of(record: HistoryRecord) -> str:
    """The record's origin; for lines written before the field, from how the write came."""
    if record.origin:
        return record.origin
    if record.via in ("maintain", "consolidate", "ui"):
        return record.via
    return "tool"


_FIELDS = tuple(f for f in HistoryRecord.__dataclass_fields__ if f != "id")


def iso_time(epoch: float) -> str:
    stamp = dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="microseconds")
    return stamp.replace("+00:00", "Z")


class HistoryUnavailable(OSError):
    """The history file is not a regular file (a FIFO, a device, a folder): no write can be
    recorded, so writes are refused before they change anything."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path} is {kind}, not a regular file: brain records every write there")
        self.path = path
        self.kind = kind


class History:
    """Append and query the log. Safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._records: list[HistoryRecord] = []
        self._offset = 0  # how much of the file `_records` covers
        self._lines = 0
        self._file: tuple[int, int] | None = None  # (device, inode) of the file `_records` came from

    def check(self) -> None:
        """Raise HistoryUnavailable when appends cannot go to the file (it may be missing):
        asked before a write changes anything, so a write is never half done."""
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode):
            raise HistoryUnavailable(self.path, safefs.kind_of(mode))

    def refuse_unless_writable(self) -> None:
        """`check`, as the memory tool's refusal: every write asks before it changes a file
        (before, a FIFO there answered 500 after the note had changed)."""
        try:
            self.check()
        except HistoryUnavailable as exc:
            raise Refusal(
                RefusalCode.UNSAFE_FOLDER,
                f"the write history {exc.path} is {exc.kind}, not a regular file: every write is "
                "recorded there, so writes are refused and nothing was changed. A person can "
                "remove it (brain makes a new one)",
                None,
            ) from None

    def append(self, **fields: Any) -> HistoryRecord:
        """Write one record and fsync it; returns it with its id."""
        return self.append_many([fields])[0]

    def append_many(self, batch: list[dict[str, Any]]) -> list[HistoryRecord]:
        """Write the records of one batch (each `append`'s fields) in one write, then one
        fsync; returns them with their ids. The watcher's batch of outside changes: one fsync
        for all of them, not one each (at 16 writes/s those fsyncs queued behind the disk).
        A crash cuts the write short at most: the lines it wrote whole read back as records,
        a torn last line is skipped (see `_parse`), and none of the batch was acknowledged."""
        if not batch:
            return []
        lines: list[bytes] = []
        for fields in batch:
            fields = {k: v for k, v in fields.items() if k != "id"}
            probe = HistoryRecord(id=0, **fields)
            line = json.dumps({k: v for k, v in probe.to_json().items() if k != "id"}, ensure_ascii=False)
            lines.append(line.encode("utf-8") + b"\n")
        data = b"".join(lines)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            # O_NONBLOCK, then fstat: a FIFO or device put there is refused, never waited on.
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(self.path, flags, 0o644)
            try:
                mode = os.fstat(fd).st_mode
                if not stat.S_ISREG(mode):
                    raise HistoryUnavailable(self.path, safefs.kind_of(mode))
                os.set_blocking(fd, True)
                fcntl.flock(fd, fcntl.LOCK_EX)
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a torn last line stays alone on its line
                    size += 1
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        out: list[HistoryRecord] = []
        for fields, encoded in zip(batch, lines, strict=True):
            out.append(HistoryRecord(id=size, **{k: v for k, v in fields.items() if k != "id"}))
            size += len(encoded)
        return out

    def records(
        self,
        *,
        agent: str | None = None,
        scope: str | None = None,
        path: str | None = None,
        before: int | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> list[HistoryRecord]:
        """Matching records, newest first; `before` (a record id) pages to older ones."""
        limit = max(0, min(limit, MAX_LIMIT))
        out: list[HistoryRecord] = []
        for record in reversed(self._load()):
            if len(out) >= limit:
                break
            if before is not None and record.id >= before:
                continue
            if agent is not None and record.agent != agent:
                continue
            if scope is not None and scope not in (record.scope, record.new_scope):
                continue
            if path is not None and path not in (record.path, record.new_path):
                continue
            out.append(record)
        return out

    def all(self) -> list[HistoryRecord]:
        """Every record, oldest first (retention needs the whole history, not a page)."""
        return self._load()

    def _load(self) -> list[HistoryRecord]:
        with self._lock:
            try:
                # safefs: a FIFO there blocked this open, and every reader after it, forever.
                with os.fdopen(safefs.open_regular(self.path, follow=True), "rb") as fh:
                    st = os.fstat(fh.fileno())
                    size, file = st.st_size, (st.st_dev, st.st_ino)
                    # Replaced (another file renamed over it, however long) or truncated by
                    # hand: start over. A length check alone kept a longer replacement's
                    # first records as the old ones.
                    if size < self._offset or file != self._file:
                        self._records, self._offset, self._lines = [], 0, 0
                        self._file = file
                    fh.seek(self._offset)
                    chunk = fh.read(size - self._offset)
            except FileNotFoundError:
                return []
            except safefs.NotRegular as exc:
                log.warning("the history cannot be read: %s is %s (writes are refused until it is a "
                            "regular file again)", self.path, exc.kind)
                return list(self._records)
            end = chunk.rfind(b"\n") + 1  # a last line without its newline is still being written
            position = self._offset
            for raw in chunk[:end].split(b"\n")[:-1]:
                self._lines += 1
                record = self._parse(raw, position)
                if record is not None:
                    self._records.append(record)
                position += len(raw) + 1
            self._offset += end
            return list(self._records)

    def _parse(self, raw: bytes, offset: int) -> HistoryRecord | None:
        if not raw.strip():
            return None
        try:
            return HistoryRecord(id=offset, **record_fields(safejson.loads(raw)))
        except ValueError as exc:  # also bad UTF-8 and JSON over the depth budget
            log.warning(
                "%s line %d is not a history record (cut short by a crash, or edited?), skipped: %s",
                self.path, self._lines, exc,
            )
            return None


_OPTIONAL = frozenset({
    "agent", "before", "after", "new_scope", "new_path", "report", "origin", "run", "kept", "commit",
})
_OBJECTS = frozenset({"report"})  # a maintenance run's report: a JSON object, not a string


def record_fields(data: Any) -> dict[str, Any]:
    """The fields of one history line, checked: a record is strings (some may be null), and
    a maintenance run's `report` object.

    Every front end (CLI, REST, GraphQL) formats these as strings, so a line with a number or
    a list where a string belongs is as bad as a torn line: ValueError, and it is skipped.
    """
    if not isinstance(data, dict):
        raise ValueError(f"a JSON {type(data).__name__}, not an object")
    out: dict[str, Any] = {}  # str or a report object, or None for the optional fields
    for name in _FIELDS:
        value = data.get(name)
        if value is None and name not in _OPTIONAL:
            raise ValueError(f"`{name}` is missing")
        wanted = dict if name in _OBJECTS else str
        if value is not None and not isinstance(value, wanted):
            kind = "an object" if wanted is dict else "a string"
            raise ValueError(f"`{name}` must be {kind}, not {type(value).__name__}")
        out[name] = value
    return out


def replay(last: dict[str, str | None], record: HistoryRecord) -> None:
    """`record` applied forward to a map of path -> content hash (None: no file): a rename
    empties its old path. A maintenance run's report names no file and changes nothing."""
    if record.command == "maintain" and record.path == "":
        return
    if record.new_path is not None:
        last[record.path] = None
        last[record.new_path] = record.after
    else:
        last[record.path] = record.after
