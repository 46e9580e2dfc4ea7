"""A big ingest's notes parsed by helper processes, streamed while this process reads files.

A first ingest of a large workspace spends most of its time parsing notes (brain.memory_files
.build_memory), which needs nothing of the graph, so `MemoryBuilder` hands that work to helper
processes (`python -m brain.ingest_worker`, one a core) and keeps this process for what
needs the graph (reading and hashing files, then linking and writing the store):

- files are sent as soon as PARALLEL_MIN have been read (a rescan of a few files never starts
  a helper), in chunks of CHUNK, dealt round-robin so the helpers finish together;
- each chunk's results come back as soon as it is parsed and are decoded by a reader thread
  here while the helpers go on, so nothing waits for a whole share and a helper holds one
  chunk at a time: its memory stays flat however big the workspace;
- results are put back in the order the files were added: the same list a serial build gives.

Helpers are plain processes fed through pipes, not a multiprocessing pool: nothing of this
process (threads, its __main__) is copied or re-imported. A helper that cannot start, dies or
answers wrongly only means its chunks are parsed here.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterable

from brain.ingest_worker import load_results, read_frame, write_frame
from brain.memory_files import MemoryFile, NoteRules, Unread, build_file, shipped
from brain.store.linking import NoteChange

PARALLEL_MIN = 2000
CHUNK = 200


def helper_count() -> int:
    """Processes that parse: BRAIN_INGEST_WORKERS, else one a core (1: parse here)."""
    return int(os.environ.get("BRAIN_INGEST_WORKERS", "0")) or min(os.cpu_count() or 1, 8)


class Helper:
    """One helper process: chunks go in through a writer thread, results come out decoded."""

    def __init__(
        self, proc: subprocess.Popen[bytes], rules: NoteRules | None, keywords: bool, bare: bool,
    ) -> None:
        self.proc = proc
        self._inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[list[NoteChange | Unread] | None] = queue.SimpleQueue()
        self._rels: collections.deque[list[str]] = collections.deque()  # each chunk sent, in order
        self.failed = False
        self._inbox.put(pickle.dumps((rules, keywords, bare), protocol=pickle.HIGHEST_PROTOCOL))
        threading.Thread(target=self._write, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def start(cls, rules: NoteRules | None, keywords: bool = False, bare: bool = False) -> Helper | None:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "brain.ingest_worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
        except OSError:
            return None
        return cls(proc, rules, keywords, bare)

    def send(self, files: list[MemoryFile]) -> None:
        self._rels.append([f[0] for f in files])  # before the frame goes: its results name them
        self._inbox.put(pickle.dumps(files, protocol=pickle.HIGHEST_PROTOCOL))

    def close_input(self) -> None:
        self._inbox.put(None)

    def receive(self, expected: int) -> list[NoteChange | Unread] | None:
        """The next chunk's results, or None if this helper failed (now or before)."""
        if self.failed:
            return None
        result = self._results.get()
        if result is None or len(result) != expected:
            self.failed = True
            return None
        return result

    def stop(self) -> None:
        if self.failed and self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            while (frame := self._inbox.get()) is not None:
                write_frame(stdin, frame)
                stdin.flush()
        except OSError:
            pass  # the helper died: its reader sees the end of its output
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while (frame := read_frame(stdout)) is not None:
                self._results.put(load_results(frame, self._rels.popleft()))
        except Exception:  # whatever a helper sent (or failed to): its chunks are parsed here
            pass
        self._results.put(None)  # the end: every later receive() fails


class MemoryBuilder:
    """`build_memory` of every file added, in order; on helpers when there are many."""

    def __init__(
        self, rules: NoteRules | None = None, parallel_min: int | None = None, keywords: bool = False,
        bare: bool = False,
    ) -> None:
        self.rules = rules
        self.keywords = keywords  # helpers count each note's keywords (brain/search/postings.py)
        self.bare = bare  # a note read from its file comes back without its body (memory_files.shipped)
        self.parallel_min = PARALLEL_MIN if parallel_min is None else parallel_min
        self._pending: list[MemoryFile] = []
        self._helpers: list[Helper] | None = None  # None: not started (yet)
        self._sent: list[tuple[Helper, list[MemoryFile]]] = []
        self._dealt = 0  # chunks sent so far (`take` drops the first of `_sent`)

    def add(self, file: MemoryFile) -> None:
        self._pending.append(file)
        if self._helpers is None and len(self._pending) >= self.parallel_min:
            self._start()
        while self._helpers and len(self._pending) >= CHUNK:
            self._send()

    def extend(self, files: Iterable[MemoryFile]) -> None:
        for file in files:
            self.add(file)

    def finish(self) -> list[NoteChange | Unread]:
        """Every result, in the order the files were added (parsed here where a helper failed)."""
        helpers = self._helpers or []
        if helpers:
            while self._pending:
                self._send()
            for helper in helpers:
                helper.close_input()
        out: list[NoteChange | Unread] = []
        try:
            for helper, files in self._sent:
                result = helper.receive(len(files))
                out.extend(result if result is not None else self._here(files))
        finally:
            for helper in helpers:
                helper.stop()
        out.extend(self._here(self._pending))
        self._pending, self._sent, self._helpers, self._dealt = [], [], None, 0
        return out

    def take(self, keep: int) -> list[NoteChange | Unread]:
        """The results of every chunk sent but the last `keep`, in order, waiting for them;
        their files are dropped. A caller that takes as it adds (brain.ingest's first sync)
        holds a few chunks of files and results, never the workspace, and waits for the
        helpers when it reads faster than they parse. `finish` gives the rest."""
        out: list[NoteChange | Unread] = []
        if self._helpers == [] and len(self._pending) >= CHUNK:  # no helper: parsed here
            out.extend(self._here(self._pending))
            self._pending = []
        while len(self._sent) > keep:
            helper, files = self._sent.pop(0)
            result = helper.receive(len(files))
            out.extend(result if result is not None else self._here(files))
        return out

    def _here(self, files: list[MemoryFile]) -> list[NoteChange | Unread]:
        # Counted here only when its body is not sent on: the store counts the rest itself.
        built = [build_file(f, self.rules) for f in files]
        return shipped(files, built, self.keywords and self.bare, self.bare)

    def _start(self) -> None:
        count = helper_count()
        wanted = count if count > 1 else 0
        started = [Helper.start(self.rules, self.keywords, self.bare) for _ in range(wanted)]
        self._helpers = [h for h in started if h is not None]
        # A sync that fails midway never calls finish(): its helpers end with the builder.
        weakref.finalize(self, _abandon, list(self._helpers))

    def _send(self) -> None:
        assert self._helpers
        chunk, self._pending = self._pending[:CHUNK], self._pending[CHUNK:]
        helper = self._helpers[self._dealt % len(self._helpers)]
        self._dealt += 1
        helper.send(chunk)
        self._sent.append((helper, chunk))


def _abandon(helpers: list[Helper]) -> None:
    for helper in helpers:
        helper.close_input()
        if helper.proc.poll() is None:
            helper.proc.kill()
        helper.proc.wait()
