"""A big ingest's notes parsed by helper processes, streamed while this process reads files.

A first ingest of a large workspace spends most of its time parsing notes (brain.ingest.memory_files
.build_memory), which needs nothing of the graph, so `MemoryBuilder` hands that work to helper
processes (`python -m brain.ingest.worker`, one a core but one) and keeps this process for
what needs the graph (reading and hashing files, then linking and writing the store), and
for parsing whenever it would otherwise wait:

- files are sent as soon as PARALLEL_MIN have been read (a rescan of a few files never starts
  a helper), in chunks of CHUNK, each to the helper with the fewest chunks queued;
- a chunk that finds every helper with LEAD chunks queued is held; it goes to the first
  helper with room (sent by the helper's reader thread the moment the helper answers, so a
  helper is not left idle while this process writes a part), and is parsed here only when
  its results are due or this process would wait for a helper's results, as is what waits
  to be sent. One helper a core
  kept about 50 MB of interpreter and libraries beside a process that sat idle while it
  waited for their results: at 10,000 and 100,000 notes the sync takes as long with one
  helper fewer, and peaks 38 MB lower (two helpers were 100 MB);
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
import fcntl
import json
import os
import pickle
import queue
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import IO

from brain.ingest.memory_files import MemoryFile, NoteRules, Unread, shipped
from brain.ingest.reused_notes import Key, ReusedNotes, note_key
from brain.ingest.worker import load_results, read_frame, write_frame
from brain.parse.mention_seeds import ScopedVocabulary, Seed
from brain.store.linking import NoteChange
from brain.workspace import FileStat

PARALLEL_MIN = 2000
CHUNK = 200
LEAD = 3  # chunks a helper may have queued before this process parses the next one itself


# A helper starts without `site` (-S): importing it, and the .pth files of site-packages (an
# editable install's finder among them), was 23 ms of CPU of each helper's start (a third of
# its interpreter's), and it needs none of it: it is given this process's import path, with
# the folder this brain was imported from first, so it runs the same brain and libraries.
_BOOT = (
    "import json, runpy, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "runpy.run_module('brain.ingest.worker', run_name='__main__', alter_sys=True)"
)


def helper_path() -> list[str]:
    """A helper's import path: where this brain package was found, then this process's path
    (its site-packages included: the native scanners, msgpack)."""
    import brain

    here = os.path.dirname(os.path.dirname(os.path.abspath(brain.__file__)))
    return [here, *(p for p in sys.path if p and p != here)]


def helper_count() -> int:
    """Processes that parse, this one included: BRAIN_INGEST_WORKERS, else one a core (1: this
    process alone)."""
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
        self.sent = self.answered = 0  # chunks sent; chunks whose results came back (reader thread)
        self.failed = False
        # Called on the reader thread as each chunk's results come back: its builder sends the
        # helper the next chunk at once, whatever this process is doing (writing a part).
        self.on_answer: Callable[[], None] | None = None
        # Where the mention seeds of its chunks go, once it was sent a vocabulary.
        self.seeds: dict[str, tuple[str, Seed]] | None = None
        self._inbox.put(pickle.dumps((rules, keywords, bare), protocol=pickle.HIGHEST_PROTOCOL))
        threading.Thread(target=self._write, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def start(cls, rules: NoteRules | None, keywords: bool = False, bare: bool = False) -> Helper | None:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-S", "-c", _BOOT, json.dumps(helper_path())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
        except OSError:
            return None
        _widen(proc.stdout)
        return cls(proc, rules, keywords, bare)

    def send_vocabulary(self, vocabulary: ScopedVocabulary, seeds: dict[str, tuple[str, Seed]]) -> None:
        """Seed the mentions of every chunk sent after this (brain.parse.mention_seeds)."""
        self.seeds = seeds
        self._inbox.put(pickle.dumps(vocabulary, protocol=pickle.HIGHEST_PROTOCOL))

    def send(self, files: list[MemoryFile]) -> None:
        self._rels.append([f[0] for f in files])  # before the frame goes: its results name them
        self.sent += 1
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
                loaded = load_results(frame, self._rels.popleft())
                if isinstance(loaded, tuple):  # a seeded chunk: (results, seeds by note id)
                    loaded, seeds = loaded
                    if self.seeds is not None:
                        self.seeds.update(seeds)
                self._results.put(loaded)
                self.answered += 1
                if self.on_answer is not None:
                    self.on_answer()
        except Exception:  # whatever a helper sent (or failed to): its chunks are parsed here
            pass
        self._results.put(None)  # the end: every later receive() fails


# The results of a chunk being parsed by this process (in `MemoryBuilder._sent`, by identity).
_PARSING: list[NoteChange | Unread] = []


class MemoryBuilder:
    """`build_memory` of every file added, in order; on helpers when there are many."""

    def __init__(
        self, rules: NoteRules | None = None, parallel_min: int | None = None, keywords: bool = False,
        bare: bool = False, expected: int = 0,
    ) -> None:
        self.rules = rules
        self.keywords = keywords  # helpers count each note's keywords (brain/index/postings.py)
        self.bare = bare  # a note read from its file comes back without its body (memory_files.shipped)
        self.parallel_min = PARALLEL_MIN if parallel_min is None else parallel_min
        self._pending: list[MemoryFile] = []
        self._helpers: list[Helper] | None = None  # None: not started (yet)
        # Each chunk in order: the helper parsing it and the helper's count of chunks sent
        # with it; or None and its results (parsed here), None while it is held unparsed.
        self._sent: list[tuple[Helper | None, list[MemoryFile], list[NoteChange | Unread] | None, int]] = []
        self._held = 0  # chunks held unparsed (in `_sent`)
        # `seed_mentions`: the sync's names, and each note's mention seed by id (with its hash).
        self.vocabulary: ScopedVocabulary | None = None
        self.seeds: dict[str, tuple[str, Seed]] = {}
        # Set by a builder of graphs of past moments: notes parsed before, by their content
        # (brain/ingest/reused_notes.py), for the files given as bytes and parsed here.
        self.reuse: ReusedNotes | None = None
        # Set by a builder of a graph that answers for a few notes only: each note parsed
        # here as that graph needs it (its links cut to those that touch the notes asked:
        # brain/tool/asof/small.py), before anything resolves them.
        self.cut: Callable[[NoteChange], NoteChange] | None = None
        # `_sent` and `_held` are changed here and by the helpers' reader threads (`_offer`).
        self._lock = threading.Lock()
        if expected >= self.parallel_min:
            # A sync that will add this many: the helpers start now, so that they have
            # started (a quarter of a second each) by the time the first chunk is read.
            self._start()

    def seed_mentions(self, vocabulary: ScopedVocabulary) -> None:
        """Seed each note's unlinked mentions as it is parsed, for a sweep after the sync
        (brain.parse.mention_seeds; `seeds`). Called before the first file is added: a
        chunk sent before has no seeds, and the sweep reads its notes itself."""
        self.vocabulary = vocabulary
        for helper in self._helpers or ():
            helper.send_vocabulary(vocabulary, self.seeds)

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
        try:
            if helpers:
                while self._pending:
                    self._send()
            out = self.take(0)
        finally:
            for helper in helpers:
                helper.close_input()
                helper.stop()
        out.extend(self._here(self._pending))
        with self._lock:
            self._pending, self._sent, self._helpers, self._held = [], [], None, 0
        return out

    def due(self, keep: int) -> bool:
        """Whether `take(keep)` has anything to give (a caller that adds file by file asks
        this each time: a take, mostly empty, was most of its cost a file)."""
        return len(self._sent) > keep or (self._helpers == [] and len(self._pending) >= CHUNK)

    def take(self, keep: int) -> list[NoteChange | Unread]:
        """The results of every chunk sent but the last `keep`, in order, waiting for them;
        their files are dropped. A caller that takes as it adds (brain.ingest.ingester's first sync)
        holds a few chunks of files and results, never the workspace, and waits for the
        helpers when it reads faster than they parse. `finish` gives the rest.

        A chunk no helper had room for is held, not parsed: it goes to a helper that has room
        by then, and is parsed here only when its results are due, or when this process
        would otherwise wait for a helper. This process also writes what is parsed, so a
        chunk it parses early is time the helpers, idle meanwhile, could have used."""
        out: list[NoteChange | Unread] = []
        if self._helpers == [] and len(self._pending) >= CHUNK:  # no helper: parsed here
            out.extend(self._here(self._pending))
            self._pending = []
        while len(self._sent) > keep:
            with self._lock:
                helper, files, here, seq = self._sent[0]
                if helper is None:  # parsed here, or held: its results are due
                    self._sent.pop(0)
                    if here is None:
                        self._held -= 1
            if helper is None:
                out.extend(self._here(files) if here is None else here)
                continue
            if helper.answered < seq:
                if self._parse_last_held():
                    continue  # parsed here what a helper would reach last, instead of waiting
                if self._pending:
                    # Its helper is not done: parse what waits to be sent instead of waiting.
                    chunk, self._pending = self._pending, []
                    parsed = self._here(chunk)
                    with self._lock:
                        self._sent.append((None, chunk, parsed, 0))
                    continue
            with self._lock:
                self._sent.pop(0)
            result = helper.receive(len(files))
            out.extend(result if result is not None else self._here(files))
        return out

    def _here(self, files: list[MemoryFile]) -> list[NoteChange | Unread]:
        # Counted as a helper counts (one block a chunk): the store takes the counts wherever
        # they were made, and counts a note itself only when it came without them.
        if self.reuse is not None and not self.keywords and self.vocabulary is None:
            built = self._reused(files, self.reuse)
        else:
            built = shipped(files, self.rules, self.keywords, self.bare, self.vocabulary, self.seeds)
        cut = self.cut
        if cut is None:
            return built
        return [cut(note) if isinstance(note, NoteChange) else note for note in built]

    def _reused(self, files: list[MemoryFile], reuse: ReusedNotes) -> list[NoteChange | Unread]:
        """`shipped` of `files` (neither counted nor seeded), each note whose content was
        parsed before taken from `reuse`, the others parsed and kept there."""
        out: list[NoteChange | Unread | None] = [None] * len(files)
        todo: list[tuple[int, Key | None]] = []
        for i, (rel, scope, name, raw, mtime) in enumerate(files):
            key = note_key(raw, rel, scope, name, self.rules, self.bare) if isinstance(raw, bytes) else None
            found = reuse.get(key, mtime) if key is not None else None
            if found is None:
                todo.append((i, key))
            else:
                out[i] = found
        parsed = shipped([files[i] for i, _ in todo], self.rules, False, self.bare)
        for (i, key), note in zip(todo, parsed, strict=True):
            out[i] = note
            if key is not None and isinstance(note, NoteChange):
                reuse.put(key, note)
        return [note for note in out if note is not None]

    def _start(self) -> None:
        count = helper_count()
        wanted = count - 1 if count > 1 else 0  # and this process, when the helpers are behind
        started = [Helper.start(self.rules, self.keywords, self.bare) for _ in range(wanted)]
        self._helpers = [h for h in started if h is not None]
        if self.vocabulary is not None:
            for helper in self._helpers:
                helper.send_vocabulary(self.vocabulary, self.seeds)
        offer = weakref.WeakMethod(self._offer)  # a helper's thread keeps no builder alive

        def answered() -> None:
            method = offer()
            if method is not None:
                method()

        for helper in self._helpers:
            helper.on_answer = answered
        # A sync that fails midway never calls finish(): its helpers end with the builder.
        weakref.finalize(self, _abandon, list(self._helpers))

    def _roomy(self) -> Helper | None:
        """The helper with the fewest chunks queued, if it has room for another."""
        if not self._helpers:
            return None
        helper = min(self._helpers, key=lambda h: h.sent - h.answered)
        return helper if helper.sent - helper.answered < LEAD else None

    def _send(self) -> None:
        assert self._helpers
        chunk, self._pending = self._pending[:CHUNK], self._pending[CHUNK:]
        with self._lock:
            self._offer_held()
            helper = self._roomy()
            if helper is None:  # every helper has work queued: held, for a helper or for here
                self._sent.append((None, chunk, None, 0))
                self._held += 1
                return
            helper.send(chunk)
            self._sent.append((helper, chunk, [], helper.sent))

    def _offer(self) -> None:
        """A helper answered (its reader thread): the held chunks to the helpers with room."""
        with self._lock:
            self._offer_held()

    def _offer_held(self) -> None:
        """The held chunks, first first, to helpers that have room now (the lock held)."""
        if not self._held:
            return
        for at, (parser, files, here, _) in enumerate(self._sent):
            if parser is not None or here is not None:
                continue
            helper = self._roomy()
            if helper is None:
                return
            helper.send(files)
            self._sent[at] = (helper, files, [], helper.sent)
            self._held -= 1
            if not self._held:
                return

    def _parse_last_held(self) -> bool:
        """Parse the last held chunk here (the one a helper would reach last); False if none."""
        with self._lock:
            held = [at for at, (parser, _, here, _) in enumerate(self._sent)
                    if parser is None and here is None] if self._held else []
            if not held:
                return False
            files = self._sent[held[-1]][1]
            # Kept from the helpers (`_PARSING` is not offered) while it is parsed here.
            self._sent[held[-1]] = (None, files, _PARSING, 0)
            self._held -= 1
        parsed = self._here(files)
        with self._lock:
            at = next(i for i, (_, chunk, _, _) in enumerate(self._sent) if chunk is files)
            self._sent[at] = (None, files, parsed, 0)
        return True


def walk_starting(
    walk: Iterable[FileStat], start: Callable[[int], MemoryBuilder] | None,
) -> tuple[dict[str, FileStat], MemoryBuilder | None]:
    """A full walk's stats by path; and, given `start` (a first sync), the builder it makes
    as soon as the walk has found PARALLEL_MIN notes, so that its helpers start then: at
    10,000 notes the walk is half of a helper's start, which the ingesting process otherwise
    spent parsing what the helper would have."""
    stats: dict[str, FileStat] = {}
    builder = None
    notes = 0
    for stat in walk:
        stats[stat.rel] = stat
        if start is not None and builder is None and stat.rel.endswith(".md"):
            notes += 1
            if notes >= PARALLEL_MIN:
                builder = start(notes)
    return stats, builder


# A pipe that holds a chunk's results whole (about 330 KB at 200 notes). Through the default
# 64 KB, a helper wrote a chunk in five pieces, each waiting for this process's reader thread
# to get the GIL back from a busy main thread (up to the 5 ms switch interval): the helper
# sat blocked for a third of its time.
PIPE_BYTES = 1 << 20


def _widen(pipe: IO[bytes] | None) -> None:
    if pipe is None or not hasattr(fcntl, "F_SETPIPE_SZ"):
        return
    with contextlib.suppress(OSError):  # past /proc/sys/fs/pipe-max-size: the default it is
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def _abandon(helpers: list[Helper]) -> None:
    for helper in helpers:
        helper.close_input()
        if helper.proc.poll() is None:
            helper.proc.kill()
        helper.proc.wait()


def build_memories(files: Sequence[MemoryFile], rules: NoteRules | None = None) -> list[NoteChange | Unread]:
    """build_file over many files; a big batch (a first ingest) on helper processes."""
    builder = MemoryBuilder(rules)
    builder.extend(files)
    return builder.finish()
