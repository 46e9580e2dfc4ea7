"""What each kept version parses to (its links and problems), kept beside its blob: the diff
reads these instead of parsing every version again.

A week's diff on 10,000 notes compares about 20,000 versions. Read and parsed at query time
they cost 13 s the first time (profiled: about 40% reading blob files, 50% `parse_note`);
blobs never change, so a version's parse is the same forever. So the writer that keeps a
version (the memory tool, the outside-change recorder) also parses it once and appends one
line to `parsed-v<N>.jsonl` beside the blob folder; the diff loads that file (incrementally,
like the history) and parses only versions it does not list (kept before this file existed),
appending them so it is the last time.

A line is `{"d": sha256, "l": [[target, line], ...], "p": [[code, message, line], ...]}`:
each distinct link target with the line it is first written on, and the parser's problems
(path-free: the path is added when shown). `SUMMARY_VERSION` is in the file's name: a parser
whose answers change bumps it and the old file is simply not read. A summary bigger than
`MAX_LINE_BYTES` (a note of thousands of links) is not kept: such a version is parsed again.
Lines are appended with O_APPEND under an `flock`, so processes share the file; a torn last
line is skipped. Only brain writes under `.brain/` (the walker and the memory tool never
reach it), which is why these are trusted without parsing the blob again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain import safefs
from brain.parse.note import decode, parse_note

log = logging.getLogger(__name__)

SUMMARY_VERSION = 1
MAX_LINE_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Parsed:
    """One version's links (target -> the line it is first on) and problems (code, message, line)."""

    links: dict[str, int]
    problems: tuple[tuple[str, str, int | None], ...]


EMPTY = Parsed({}, ())


def parse_version(data: bytes) -> Parsed:
    """What brain's parser finds in one version: the links by target, and the problems."""
    text, problems = decode(data, "")
    note = parse_note(text, "")
    links: dict[str, int] = {}
    for link in note.links:
        target = link.target.strip()
        if target and target not in links:
            links[target] = link.line
    return Parsed(links, tuple((p.code, p.message, p.line) for p in (*problems, *note.problems)))


def default_parsed_path(blob_dir: Path) -> Path:
    """`.brain/history/blobs` -> `.brain/history/parsed-v1.jsonl`."""
    return blob_dir.parent / f"parsed-v{SUMMARY_VERSION}.jsonl"


class ParsedVersions:
    """The summaries by sha256: read from the file once (then only what was appended), kept
    as raw lines and decoded when asked for. `path` None: in memory only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._raw: dict[bytes, bytes] = {}  # by the sha256's hex as bytes: no decode at load
        self._decoded: dict[str, Parsed] = {}
        self._offset = 0

    def get(self, digest: str) -> Parsed | None:
        found = self._decoded.get(digest)
        if found is not None:
            return found
        key = digest.encode("ascii", errors="replace")
        raw = self._raw.get(key)
        if raw is None:
            return None
        try:
            data = json.loads(raw.decode("utf-8"))  # a str: no encoding to detect
            found = Parsed(
                {str(t): int(n) for t, n in data["l"]},
                tuple((str(c), str(m), None if n is None else int(n)) for c, m, n in data["p"]),
            )
        except (ValueError, TypeError, KeyError):
            del self._raw[key]  # not ours to trust: parsed again from the blob
            return None
        self._decoded[digest] = found
        return found

    def add(self, digest: str, data: bytes) -> Parsed:
        """Parse `data` (whose sha256 is `digest`) unless known, and keep what it parses to."""
        known = self.get(digest)
        if known is not None:
            return known
        parsed = parse_version(data)
        self._decoded[digest] = parsed
        line = _summary_line(digest, parsed)
        if self.path is not None and len(line) <= MAX_LINE_BYTES:
            try:
                self._append(line)
            except OSError as exc:  # a summary is a cache: never fails the write it follows
                log.warning("could not keep what a version parses to in %s: %s", self.path, exc)
        return parsed

    def keep(self, parses: dict[str, Parsed]) -> None:
        """Keep versions parsed elsewhere (`parse_version` of the blob each sha256 names) in
        one append, for a reader that parsed many (the as-of link index, built once over a
        history kept before this file was). Not held decoded here: the next `load` reads
        them as lines (thousands of summaries decoded were memory no one asked for)."""
        if self.path is None or not parses:
            return
        lines = [line for digest, parsed in parses.items()
                 if len(line := _summary_line(digest, parsed)) <= MAX_LINE_BYTES]
        if not lines:
            return
        try:
            self._append(b"".join(lines))
        except OSError as exc:
            log.warning("could not keep what versions parse to in %s: %s", self.path, exc)

    def add_content(self, data: bytes) -> Parsed:
        """`add` of content whose sha256 is not at hand (a note's text now)."""
        return self.add(hashlib.sha256(data).hexdigest(), data)

    def load(self) -> None:
        """Read what other writers appended since the last call."""
        if self.path is None:
            return
        with self._lock:
            try:
                with os.fdopen(safefs.open_regular(self.path, follow=False), "rb") as fh:
                    size = os.fstat(fh.fileno()).st_size
                    if size < self._offset:
                        self._raw.clear()
                        self._decoded.clear()
                        self._offset = 0
                    fh.seek(self._offset)
                    chunk = fh.read(size - self._offset)
            except (OSError, safefs.NotRegular):
                return  # none yet (or not a file): versions are parsed from their blobs
            end = chunk.rfind(b"\n") + 1
            # `{"d":"<64 hex>",...`: keyed by the hex without decoding the line (50,000 lines
            # a month); a torn or foreign line is dropped when it is asked for and fails.
            raws = self._raw
            for raw in chunk[:end].split(b"\n"):
                if raw[:6] == b'{"d":"' and raw[70:72] == b'",':
                    raws[raw[6:70]] = raw
            self._offset += end

    def _append(self, line: bytes) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(self.path, flags, 0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO there is never waited on
                raise OSError(f"{self.path} is not a regular file")
            os.set_blocking(fd, True)
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a torn last line stays alone on its line
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


def _summary_line(digest: str, parsed: Parsed) -> bytes:
    summary = {"d": digest, "l": [[t, n] for t, n in parsed.links.items()],
               "p": [list(p) for p in parsed.problems]}
    return json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def problems_of(parsed: Parsed, path: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The version's problems as the diff shows them, keyed to compare two sides."""
    return {
        (code, message): {"path": path, "code": code, "message": message, "line": line}
        for code, message, line in parsed.problems
    }
