"""One workspace root in the editor: its graph, its open documents, and the indexing worker.

The editor must never wait for the graph. Every change (an opened, edited or closed buffer, a
file changed on disk) is queued here and applied by one worker thread, which also runs the
first full ingest. Requests read the store meanwhile (it is safe to read while it is being
written) and answer with what is indexed. After each round the worker works out which open
documents the round affected, from the graph's own change events, and publishes their
diagnostics: editing one note refreshes the notes whose links it resolves or breaks.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from brain.layouts import choose_layout_leniently, get_layout
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.diagnostics import to_diagnostics
from brain.lsp.features.graph import identity_of
from brain.lsp.features.positions import Encoding, LineIndex
from brain.lsp.startup.early import EarlyNames, walk_names
from brain.lsp.startup.prewalk import Prewalk
from brain.model import Problem
from brain.snapshot.cachepaths import snapshot_path
from brain.store.base import GraphStore

if TYPE_CHECKING:  # imported by the indexing worker, after the first answers (see `brain`)
    from brain.service.brain import Brain, GraphChange

log = logging.getLogger(__name__)
RESCAN_OVER = 2000  # more changed paths than this in one round: rescan everything instead
PROGRESS_EVERY = 0.2  # seconds between progress reports
DEBOUNCE = 0.02  # seconds of quiet before a burst of edits is applied
DEBOUNCE_MAX = 0.2  # a burst is applied at the latest this long after it began
NAMES_WAIT = 3.0  # seconds a completion asked right at the start waits for the walk's names
FIRST_ANSWERS_WAIT = 1.0  # seconds the index waits for the requests that waited for the walk
WALK_WAIT = 0.3  # seconds the index waits for a child's walk (10,000 notes: a quarter of one)
INDEX_WAIT = 60.0  # seconds a request that needs the graph waits for the first index


@dataclass(frozen=True, slots=True)
class Applied:
    """The text of an open document the graph currently holds, and its version."""

    uri: str
    text: str
    version: int | None


@dataclass(frozen=True, slots=True)
class Published:
    uri: str
    version: int | None
    diagnostics: list[types.Diagnostic]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    kind: str  # "begin" | "report" | "end"
    message: str
    percentage: int | None = None


Publish = Callable[[list[Published]], None]
Report = Callable[[ProgressEvent], None]
Log = Callable[[types.MessageType, str], None]


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else many or one + 's'}"


class Session:
    def __init__(
        self,
        root: Path,
        encoding: Encoding,
        publish: Publish,
        progress: Report,
        log_message: Log,
        store: GraphStore | None = None,
        cache: bool = False,
        prewalk: Prewalk | None = None,
    ) -> None:
        self.root = root
        self.encoding = encoding
        # The layout Brain will choose (the same call); known at once, for the walk and for
        # placing documents, while the Brain itself is built by the indexing worker.
        self.layout = get_layout(choose_layout_leniently(root.resolve()).name)
        self._store = store
        self._cache = cache
        self._brain: Brain | None = None
        self._catalog: Catalog | None = None
        self._building = threading.Lock()
        self._publish = publish
        self._progress = progress
        self._log = log_message
        self._cond = threading.Condition()
        self._overlays: dict[str, tuple[str, str | None, int | None]] = {}
        self._paths: set[str] = set()
        self._rescan = False
        self._requested = 0
        self._applied = 0
        self._stopping = False
        self._changed: set[str] = set()
        self._early_requests = 0
        self.first_answers_wait = FIRST_ANSWERS_WAIT
        self.walk_wait = WALK_WAIT
        self._last_report = 0.0
        self._last_enqueue = 0.0
        self.applied: dict[str, Applied] = {}
        self.ready = threading.Event()
        self.early: EarlyNames | None = None  # until `ready`: the names a walk found
        self.named = threading.Event()  # the walk is done (or `ready`): completion can answer
        self.indexed: tuple[int, int] = (0, 0)
        self._thread = threading.Thread(target=self._run, name=f"brain-index:{root.name}", daemon=True)
        self._walker: threading.Thread | None = None
        self._walk_skipped = False  # a warm start left the names to the snapshot
        self._prewalk = prewalk

    @property
    def brain(self) -> Brain:
        """The workspace's Brain, built on first use: the indexing worker builds it after the
        first answers (or while it waits for a child's walk not done yet), so its imports (the
        service, the store, numpy: a fifth of a start's CPU) are not paid before the editor's
        first `[[` is answered from the walk."""
        brain = self._brain
        if brain is None:
            with self._building:
                if self._brain is None:
                    self._brain = self._build()
                brain = self._brain
        return brain

    @property
    def catalog(self) -> Catalog:
        catalog = self._catalog
        if catalog is None:
            self.brain  # noqa: B018 (builds the catalog with the Brain)
            catalog = self._catalog
            assert catalog is not None
        return catalog

    def _build(self) -> Brain:
        from brain.search.service import Embedding
        from brain.service.brain import Brain

        brain = Brain(self.root, self._store, cache=self._cache)
        # Workspace symbols are type-ahead name fragments, where meaning adds noise, and an
        # editor per window must not load a 90 MB model or embed the workspace (docs/search.md).
        brain.embedding = Embedding.OFF
        brain.embedding_off_reason = "the language server searches by keyword (brain serve adds meaning)"
        self._catalog = Catalog(brain.store)
        brain.subscribe(self._on_change)
        return brain

    # ------------------------------------------------------------------ from the editor

    def walk_now(self) -> None:
        """Start the walk for names at once (at `initialize`, when the root is known), in its
        own thread: it reads no file, and by the time `initialized` and the first `didOpen`
        arrive the names are there, cold or warm, whatever the index is doing."""
        if self._walker is None and not self.named.is_set():
            self._walker = threading.Thread(target=self._walk_names, name=f"brain-walk:{self.root.name}",
                                            daemon=True)
            self._walker.start()

    def start(self) -> None:
        self._thread.start()

    def open(self, rel: str, uri: str, text: str, version: int | None) -> None:
        self._enqueue(overlay=(rel, uri, text, version))

    def change(self, rel: str, uri: str, text: str, version: int | None) -> None:
        self._enqueue(overlay=(rel, uri, text, version))

    def close(self, rel: str, uri: str) -> None:
        self._enqueue(overlay=(rel, uri, None, None))

    def files_changed(self, rels: Iterable[str]) -> None:
        self._enqueue(paths=rels)

    def rescan(self) -> None:
        self._enqueue(rescan=True)

    def _enqueue(
        self,
        overlay: tuple[str, str, str | None, int | None] | None = None,
        paths: Iterable[str] = (),
        rescan: bool = False,
    ) -> None:
        with self._cond:
            if overlay is not None:
                rel, uri, text, version = overlay
                self._overlays[rel] = (uri, text, version)
            self._paths.update(paths)
            self._rescan = self._rescan or rescan or len(self._paths) > RESCAN_OVER
            self._requested += 1
            self._last_enqueue = time.monotonic()
            self._cond.notify_all()

    def wait_settled(self, timeout: float | None = None) -> bool:
        """Block until everything queued before this call is in the graph."""
        with self._cond:
            wanted = self._requested
            return self._cond.wait_for(lambda: self._applied >= wanted or self._stopping, timeout)

    async def settled(self, timeout: float | None = 30.0) -> bool:
        if self._applied >= self._requested:
            return True
        return await asyncio.to_thread(self.wait_settled, timeout)

    async def refresh(self, rels: Iterable[str], timeout: float | None = 30.0) -> bool:
        """Re-read these files from disk (if they changed) and wait until that is done."""
        self.files_changed(rels)
        return await self.settled(timeout)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self.named.set()  # nobody waits for a walk that will not come
        if self._thread.ident is not None:  # started
            self._thread.join(timeout=2)
        with self._building:
            if self._brain is not None:
                self._brain.close()

    # ------------------------------------------------------------------ the worker

    def _run(self) -> None:
        self._index()
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: bool(self._overlays or self._paths or self._rescan or self._stopping)
                )
                if self._stopping:
                    return
                self._settle_burst()
                overlays, self._overlays = self._overlays, {}
                paths, self._paths = self._paths, set()
                rescan, self._rescan = self._rescan, False
                generation = self._requested
            try:
                self._apply(overlays, paths, rescan)
            except Exception as exc:  # keep serving: one bad round must not end the session
                log.exception("applying changes failed")
                self._log(types.MessageType.Error, f"brain: updating the graph failed: {exc}")
            with self._cond:
                self._applied = generation
                self._cond.notify_all()

    def _settle_burst(self) -> None:
        """Let a burst of keystrokes finish before re-analysing (called holding the lock).

        Waiting until the editor has been quiet for DEBOUNCE (never longer than DEBOUNCE_MAX)
        applies a burst as one round, and keeps the re-parse off the CPU while the request
        a keystroke triggers (completion) is being answered.
        """
        started = time.monotonic()
        while self._overlays and not self._stopping:  # only edits come in bursts
            now = time.monotonic()
            quiet_at = self._last_enqueue + DEBOUNCE
            if now >= quiet_at or now - started >= DEBOUNCE_MAX:
                return
            self._cond.wait(quiet_at - now)

    @property
    def answers(self) -> bool:
        """True when the store and catalog can answer (the first index is built, or a snapshot
        loaded: its graph answers while the files are checked)."""
        return self.ready.is_set()

    @contextmanager
    def first_answer(self) -> Iterator[None]:
        """Around a request answered from the walk's names: the index (snapshot load, imports,
        reads) waits until it is answered, at most FIRST_ANSWERS_WAIT, instead of taking the
        CPU from it the moment the walk ends (one core's worth of Python at a time: the GIL)."""
        with self._cond:
            self._early_requests += 1
        try:
            yield
        finally:
            with self._cond:
                self._early_requests -= 1
                self._cond.notify_all()

    async def names_known(self, timeout: float = NAMES_WAIT) -> None:
        """Wait until the walk's names or the index can answer: polled on the loop, so many
        waiting requests hold no thread (the stdin reader shares the loop's executor)."""
        await _until(self.named, timeout)

    async def index_built(self, timeout: float = INDEX_WAIT) -> bool:
        """Wait until the first index is built (True) or `timeout` passes (False). A request
        that needs the graph (links, definitions, references) waits here: answered from the
        empty store it would say "no links", and an editor asks again only after an edit.
        Polled on the loop like `names_known`, so waiting requests hold no thread."""
        return await _until(self.ready, timeout)

    def _early_answered(self) -> bool:
        return not self._early_requests or self._stopping

    def _walk_names(self, unless_warm: bool = True) -> None:
        """Before the first sync (which reads everything, or loads the snapshot and rescans):
        the names a walk finds, so completion answers within a second of the start. Where no
        child walks this workspace (one core, TCP, a big snapshot: brain/lsp/startup/prewalk.py), a
        warm start skips it (`unless_warm`): in a thread it shares this process's core with
        the snapshot load, which answers sooner on its own (100,000 notes: 3.3 -> 1.2 s),
        and completion waits for that."""
        child_walks = self._prewalk is not None and str(self.root) in self._prewalk.roots
        if unless_warm and not child_walks and self._warm():
            self._walk_skipped = True
            return
        try:
            walked = self._prewalk.take(self.root, unless=self.ready) if self._prewalk is not None else None
            if self.ready.is_set():  # a big workspace's snapshot was loaded first: nothing to add
                return
            early = walked.early(self.root) if walked is not None else walk_names(self.root, self.layout)
            with self._cond:
                if not self.ready.is_set():
                    self.early = early
        except Exception:  # the full sync below reports what is wrong with the workspace
            log.exception("reading the workspace's names before indexing failed")
        finally:
            self.named.set()

    def _warm(self) -> bool:
        """A snapshot of this workspace is there to load (whether it is sound, the load says)."""
        return self._cache and self._store is None and snapshot_path(self.root).is_file()

    def _index(self) -> None:
        started = time.perf_counter()
        self._progress(ProgressEvent("begin", f"indexing {self.root.name}", 0))
        if self._walker is None:
            self._walk_names()
        elif self._prewalk is None:
            self._walker.join()  # the names come first: the snapshot load would slow a walk in a thread
        else:
            # A child walks. Cold, a small workspace's names come within this wait, and the
            # index then waits for them before it reads every file. Warm, the snapshot is
            # loaded at once: it answers sooner than the walk at every size (100,000 notes:
            # 0.9 s against 3 s), and the walk goes on beside it; whichever ends first answers
            # completion. A walk not done yet is waited for while the Brain is built (its
            # imports), not idly.
            deadline = time.monotonic() + self.walk_wait
            if not self.named.is_set():
                self.brain  # noqa: B018
            if not self._warm():
                self._walker.join(max(0.0, deadline - time.monotonic()))
        if self.named.is_set():
            with self._cond:  # then the requests that waited for the names
                self._cond.wait_for(self._early_answered, self.first_answers_wait)
        try:
            # Warm: answer from the snapshot's graph (a consistent past state) while the files
            # are checked, as `brain serve` does; what changed meanwhile arrives as ordinary
            # changes, which the catalog follows. Diagnostics still wait for the check.
            opened = self.brain.open_snapshot()
            if not opened and self._walk_skipped:  # left to a snapshot that was then refused
                self._walk_names(unless_warm=False)
            if opened:
                self.catalog.rebuild()
                self._answer()
                with self._cond:  # the requests that waited for it are answered before the check
                    self._cond.wait_for(self._early_answered, self.first_answers_wait)
            result = self.brain.sync(progress=self._report)
        except Exception as exc:
            log.exception("indexing failed")
            self._progress(ProgressEvent("end", f"indexing failed: {exc}"))
            self._log(types.MessageType.Error, f"brain: indexing {self.root} failed: {exc}")
            self.catalog.rebuild()
            self._answer()
            return
        if not opened:
            self.catalog.rebuild()
        stats = self.brain.stats()
        seconds = time.perf_counter() - started
        self.indexed = (stats.memories, result.files)
        summary = (
            f"{plural(stats.memories, 'memory', 'memories')} of {plural(stats.agents, 'agent')}, "
            f"{plural(stats.links, 'link')} ({stats.broken:,} broken, {stats.ambiguous:,} ambiguous) "
            f"in {seconds:.1f} s"
        )
        self._answer()
        self._progress(ProgressEvent("end", summary))
        self._log(types.MessageType.Info, f"brain: indexed {self.root}: {summary}")

    def _answer(self) -> None:
        """From now on the store and catalog answer (completion, links, definitions ...)."""
        with self._cond:
            self.ready.set()
            self.early = None  # the catalog answers now
        self.named.set()

    def _report(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last_report < PROGRESS_EVERY and done < total:
            return
        self._last_report = now
        percentage = int(done * 100 / total) if total else 100
        self._progress(ProgressEvent("report", f"{done:,} of {total:,} files", percentage))

    def _on_change(self, change: GraphChange) -> None:
        self._changed.add(change.id)
        self.catalog.apply(change)

    def _apply(
        self, overlays: dict[str, tuple[str, str | None, int | None]], paths: set[str], rescan: bool
    ) -> None:
        self._changed.clear()
        touched: set[str] = set()
        for rel, (uri, text, version) in overlays.items():
            self.brain.set_overlay(rel, text)
            if text is None:
                self.applied.pop(rel, None)
            else:
                self.applied[rel] = Applied(uri, text, version)
                touched.add(rel)
        if rescan:
            self.brain.sync()
            touched.update(self.applied)
        elif paths:
            self.brain.sync(paths)
            touched.update(rel for rel in paths if rel in self.applied)
        by_id = {}
        for rel in self.applied:
            identity = identity_of(rel, self.layout)
            if identity is not None:
                by_id[identity.id] = rel
        touched.update(by_id[node_id] for node_id in self._changed if node_id in by_id)
        if touched:
            self._publish(self.diagnostics(touched))

    def diagnostics(self, rels: Iterable[str]) -> list[Published]:
        wanted = [rel for rel in rels if rel in self.applied]
        grouped: dict[str, list[Problem]] = {rel: [] for rel in wanted}
        for problem in self.brain.problems(wanted):
            grouped[problem.path].append(problem)
        out: list[Published] = []
        for rel in sorted(wanted):
            applied = self.applied.get(rel)
            if applied is None:
                continue
            index = LineIndex.of(applied.text, self.encoding)
            out.append(Published(applied.uri, applied.version, to_diagnostics(grouped[rel], index)))
        return out


async def _until(event: threading.Event, timeout: float) -> bool:
    """Whether `event` is set within `timeout`, polled on the loop (no thread held waiting)."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while not event.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)
    return event.is_set()
