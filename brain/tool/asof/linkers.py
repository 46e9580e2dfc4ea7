"""Which paths ever linked to a name: the index around.py's backlinks as of t start from,
kept beside the history so a process's first `memory(asOf:)` does not rebuild it.

A note's backlinks at t come from the notes that linked to its name key then; which those
may be is known without the moment: the paths some recorded version of which carried a link
of that key. Built in memory on the first ask, that meant every kept version read and parsed
once per process: 18 s at 10,000 notes and 5,000 changes (profiled: half parsing, a fifth
reading blobs, the rest appending summaries). The index only grows as records are appended,
so it is kept instead, one line a record, and each process reads it back and adds only the
records written since; `brain serve` warms it after its first scan (`LinkersStarter`), so
even the first ask of a server finds it built. The versions it has to parse (none of the
writers summarised them: baselines, histories kept before `parsed-v1.jsonl` was) it keeps
there as the writers do, so around.py's check of a candidate's version then reads a summary.

Kept in `linkers-v1.jsonl` beside the blob folder: a header naming the format, the layout
whose link rules made the name keys and the parser's summary version, then one line a
record, `{"k": k, "h": tag, "l": {path: [keys]}}` (series.py's `tag` of record k-1; `l` the
name keys the record's versions link to that no earlier line gave their path, left out when
none: 83 bytes a change measured at 50,000). `.brain/` is the workspace's, so the file is untrusted, as
series.py's: only the run of lines 1..n whose tags match the records and whose paths are the
record's own is used (a torn line, another workspace's file, a history rewritten by retention
end it; the rest is built again and the file rewritten); another format, layout or parser
version, a FIFO or a folder at its path: ignored, one log line, never waited on. A line that
matches its record but lies about its keys can only come from someone who can rewrite the
history itself.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from brain import safefs
from brain.service.brain import FileChanges
from brain.tool.asof.counts.series import running_or_started, tag
from brain.tool.asof.graph import Moments
from brain.tool.asof.small import name_index
from brain.tool.history.log import HistoryRecord
from brain.tool.history.parsed import SUMMARY_VERSION, Parsed, ParsedVersions, parse_version

log = logging.getLogger(__name__)

LINKERS_VERSION = 1
# A key longer than this is not one a note's link makes (the parser bounds a target): a line
# holding one is foreign.
_MAX_KEY = 4096
# Versions parsed by a build whose summaries are appended together (held until then).
_KEEP_BATCH = 2000


def default_linkers_path(blob_dir: Path) -> Path:
    """`.brain/history/blobs` -> `.brain/history/linkers-v1.jsonl`."""
    return blob_dir.parent / f"linkers-v{LINKERS_VERSION}.jsonl"


def _versions(record: HistoryRecord) -> tuple[tuple[str, str | None], tuple[str, str | None]]:
    return (record.path, record.before), (record.new_path or record.path, record.after)


class LinkerIndex:
    """Name key -> the paths some recorded version of which links to that key (see the
    module's docstring), for one workspace's history."""

    def __init__(self, moments: Moments, parsed: ParsedVersions, path: Path | None) -> None:
        self.moments, self.parsed, self.path = moments, parsed, path
        self._lock = threading.Lock()
        self._by_key: dict[str, set[str]] = {}
        self._done: set[tuple[str, str]] = set()
        self._seen = 0  # records 1.._seen are in the index
        self._last_tag: str | None = None  # tag of record _seen: a rewritten history differs
        self._lines: list[bytes] = []  # line k of the file is _lines[k - 1]: a rewrite writes them
        self._saved = 0  # the file holds exactly lines 1.._saved (then it is appended to)
        self._loaded = False
        self.thread: threading.Thread | None = None
        self.header = {"index": "asof-linkers", "v": LINKERS_VERSION,
                       "layout": moments.live.layout_choice.name, "parsed": SUMMARY_VERSION}

    def paths(self, records: Sequence[HistoryRecord], key: str) -> set[str]:
        """The paths that linked to `key` in some version of `records`."""
        with self._lock:
            self._update(records)
            return set(self._by_key.get(key, ()))

    def ensure(self, wait: bool = False) -> None:
        """Bring the index up to the history now, on a thread (or now: `wait`)."""
        if wait:
            with self._lock:
                self._update(self.moments.history.all())
            return
        with self._lock:
            self.thread = running_or_started(self.thread, self._warm, "brain-asof-linkers")

    def _warm(self) -> None:
        try:
            self.ensure(wait=True)
            # and what every small moment reads (small.py's names, the history's records by
            # path), so the first ask does not build them either
            records = self.moments.history.all()
            name_index(self.moments).paths(self.moments, records, set())
            self.moments.timeline.index_after(records, self.moments.clock())  # the records by path
            # the embedded store's links by key, built once after a first sync on their first
            # lookup (around.py asks the graph now which notes link to the name): a key no
            # link has
            self.moments.live.store.links_with_keys(["\x00"])
        except Exception:  # an accelerator: memory(asOf:) builds what it lacks on its ask
            log.exception("the as-of link index could not be built; the first memory(asOf:) builds it")

    # -- building (under the lock) ----------------------------------------------------------

    def _update(self, records: Sequence[HistoryRecord]) -> None:
        if not self._loaded:
            self._loaded = True
            self._load(records)
        if self._seen and (self._seen > len(records) or tag(records[self._seen - 1]) != self._last_tag):
            # the history was rewritten (retention, its cap): every line after it is stale
            self._by_key, self._done, self._seen, self._last_tag, self._saved = {}, set(), 0, None, 0
            self._lines = []
        if self._seen == len(records):
            return
        start = self._seen
        self.parsed.load()  # the summaries other writers kept since
        # What the versions no writer summarised parse to is kept as the writers keep theirs,
        # a batch at a time: around.py asks which names a candidate's version linked to then,
        # and parsed each such version again on every first ask (a sixth of a first ask's CPU
        # on the real profile).
        parses: dict[str, Parsed] = {}
        for k in range(start + 1, len(records) + 1):
            self._lines.append(_encode(self._add(k, records[k - 1], parses)))
            if len(parses) >= _KEEP_BATCH:
                self.parsed.keep(parses)
                self.parsed.load()  # (read back: a version met again is not parsed again)
                parses.clear()
        self.parsed.keep(parses)
        self._seen, self._last_tag = len(records), tag(records[-1])
        self._save(start)
        self.parsed.load()

    def _add(self, k: int, record: HistoryRecord, parses: dict[str, Parsed]) -> dict[str, Any]:
        """Index record k's versions not seen before; its line for the file (the versions it
        had to parse go into `parses`)."""
        parse = self.moments.live.layout.links.parse
        found: dict[str, list[str]] = {}
        for path, digest in _versions(record):
            if digest is None or (path, digest) in self._done:
                continue
            self._done.add((path, digest))
            summary = self.parsed.get(digest) or parses.get(digest)
            if summary is None:
                data = self.moments.blobs.get(digest)
                if data is None:
                    continue  # not kept: a moment needing it is refused anyway
                summary = parses[digest] = parse_version(data)
            # Only the keys new to this path: the index is a set of paths by key (a version
            # mostly links what the one before it did, so a line is a few keys, not all).
            new = set(found.get(path, ()))
            for target in summary.links:
                key = parse(target).key
                if path not in self._by_key.get(key, ()):
                    new.add(key)
            if new:
                found[path] = sorted(new)
        for path, keys in found.items():
            for key in keys:
                self._by_key.setdefault(key, set()).add(path)
        line: dict[str, Any] = {"k": k, "h": tag(record)}
        if found:
            line["l"] = found
        return line

    # -- the file ---------------------------------------------------------------------------

    def _load(self, records: Sequence[HistoryRecord]) -> None:
        """The file's run of lines 1..n that match their records; nothing from a foreign file."""
        if self.path is None:
            return
        lines = safefs.read_kept_lines(self.path)
        if lines is None:
            return
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if header != self.header:
            log.info("%s is of another format, layout or parser: the as-of link index is built again",
                     self.path)
            return
        by_key: dict[str, set[str]] = {}
        done: set[tuple[str, str]] = set()
        kept: list[bytes] = []
        body = [raw for raw in lines[1:len(records) + 1] if raw]
        try:  # one decode for the whole file (a line at a time was most of a load)
            decoded: list[Any] = json.loads(b"[" + b",".join(body) + b"]")
        except ValueError:  # a torn or foreign line: each decoded alone, up to it
            decoded = [_decode(raw) for raw in body]
        k = 0
        for raw, line in zip(body, decoded, strict=True):
            if k >= len(records):
                break
            found = _line(line, k + 1, records[k])
            if found is None:
                break  # torn, foreign or stale: from here on built again
            k += 1
            kept.append(raw)
            for path, digest in _versions(records[k - 1]):
                if digest is not None:
                    done.add((path, digest))
            for path, keys in found.items():
                for key in keys:
                    by_key.setdefault(key, set()).add(path)
        if k < len(lines) - 1 - (lines[-1] == b"") and k < len(records):
            log.info("%s matches the history up to record %d only: the rest is built again", self.path, k)
        self._by_key, self._done, self._seen, self._lines = by_key, done, k, kept
        self._last_tag = tag(records[k - 1]) if k else None
        # The file holds exactly lines 1..k: later records are appended to it.
        self._saved = k if len(lines) - 1 - (lines[-1] == b"") == k else 0

    def _save(self, start: int) -> None:
        """Lines start+1.. appended when the file holds exactly 1..start; else the whole index
        written beside it and renamed over it (a reader never sees it half written)."""
        if self.path is None:
            return
        append = start > 0 and self._saved == start
        rows = self._lines[start:] if append else [json.dumps(self.header).encode(), *self._lines]
        data = b"\n".join(rows) + b"\n"
        try:
            safefs.write_kept_file(self.path, data, append=append)
            self._saved = self._seen
        except OSError as exc:
            self._saved = 0
            log.warning("could not keep the as-of link index in %s: %s (it is built again next start)",
                        self.path, exc)


def _encode(line: dict[str, Any]) -> bytes:
    # ASCII: a path's undecodable bytes (surrogates) round-trip as escapes
    return json.dumps(line, separators=(",", ":")).encode("ascii")


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _line(line: Any, k: int, record: HistoryRecord) -> dict[str, list[str]] | None:
    """Line k's keys by path, when it is record k's line; None when it is not."""
    if not isinstance(line, dict) or line.get("k") != k or isinstance(line.get("k"), bool):
        return None
    if line.get("h") != tag(record) or not set(line) <= {"k", "h", "l"}:
        return None
    found = line.get("l", {})
    own = {record.path, record.new_path or record.path}
    if not isinstance(found, dict) or not set(found) <= own:
        return None  # a path not the record's own: not this record's line
    for keys in found.values():
        if not isinstance(keys, list) or not all(isinstance(key, str) and len(key) <= _MAX_KEY
                                                 for key in keys):
            return None
    return found


_INDEXES: WeakKeyDictionary[Moments, LinkerIndex] = WeakKeyDictionary()
_REGISTRY = threading.Lock()


def linker_index(moments: Moments, parsed: ParsedVersions) -> LinkerIndex:
    """The one index of these moments (of one served brain), kept beside their blobs."""
    with _REGISTRY:
        found = _INDEXES.get(moments)
        if found is None:
            found = _INDEXES[moments] = LinkerIndex(moments, parsed,
                                                    default_linkers_path(moments.blobs.directory))
        return found


class LinkersStarter:
    """A file listener that brings the index up to the history after each full sync (a
    server's start and its rescans), on a thread, so the first memory(asOf:) finds it built."""

    def __init__(self, source: Callable[[], tuple[Moments, ParsedVersions]]) -> None:
        self.source = source

    def __call__(self, news: FileChanges) -> None:
        if news.full:
            linker_index(*self.source()).ensure()


__all__ = ["LinkerIndex", "LinkersStarter", "default_linkers_path", "linker_index"]
