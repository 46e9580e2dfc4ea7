"""When a Brain loads and writes its snapshot (brain/snapshot/image.py says what is in one).

Loaded once, before the first sync. Written by a background thread after a sync changed
something: at once after the first sync (a one-shot command then waits for it in `close`),
later only once the workspace has been quiet for `delay` seconds (at most `max_delay` after
the first change), so a server that sees an edit a second does not rewrite 100 MB a second.
A snapshot that cannot be written costs the next start its speed, never a command.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from brain.allocator import give_back_memory
from brain.gcpause import gc_paused
from brain.ingest.ingester import Ingester, SyncResult
from brain.snapshot.cachepaths import snapshot_path, trusted
from brain.snapshot.image import (
    DatabaseStore,
    SnapshotRefused,
    SnapshotStore,
    distrust_recent,
    read_deferred,
    write,
)

log = logging.getLogger("brain.snapshot.image")


class SnapshotKeeper:
    def __init__(
        self, ingester: Ingester, store: SnapshotStore, lock: threading.RLock,
        path: Path | None = None, delay: float = 5.0, max_delay: float = 60.0,
    ) -> None:
        self.ingester = ingester
        self.store = store
        kind = store.snapshot_kind if isinstance(store, DatabaseStore) else ""
        self.path = path if path is not None else snapshot_path(ingester.root, kind=kind)
        self.delay = delay
        self.max_delay = max_delay
        self.loaded = False
        self.load_seconds = 0.0
        self.status = "not loaded"  # why the last load did or did not happen (tests, logs)
        self._tried = False
        self.writes = 0
        self._lock = lock  # the Brain's: a snapshot is taken between two syncs, never within one
        self._cond = threading.Condition()
        self._dirty_since: float | None = None
        self._last_change = 0.0
        self._urgent = False
        self._closing = False
        self._thread: threading.Thread | None = None
        self._shape = (0, 0, 0)
        self._unsettled: Callable[[], None] | None = None

    def load(self) -> bool:
        """Restore the store and the ingester from the snapshot, if it is sound. Once: a
        server asks at its start (`Brain.open_snapshot`) and again at its first sync, which
        read a refused snapshot twice and logged why twice."""
        if self._tried:
            return self.loaded
        self._tried = True
        started = time.perf_counter()
        stamp = ""
        if isinstance(self.store, DatabaseStore):
            # The writer's claim first (its errors are the start's): from then on no other
            # writer changes the graph, so a stamp that matches now stays true.
            self.store.claim(str(self.ingester.root))
            stamp = self.store.graph_stamp()
            if not stamp:
                self.status = "ignored: the database holds no stamped graph"
                return False
        try:
            with gc_paused():
                state, image, fill = read_deferred(self.path, self.ingester.root,
                                                   self.ingester.rules_identity(), stamp)
                self.store.restore(image)
                self.ingester.restore(state)  # its files and claims filled by `settle`
                self._unsettled = fill
        except FileNotFoundError:
            self.status = "no snapshot yet"
            log.debug("no snapshot at %s: reading the whole workspace", self.path)
            return False
        except Exception as exc:  # whatever is wrong with it, a full ingest is always right
            reason = str(exc) if isinstance(exc, SnapshotRefused) else f"unreadable ({exc})"
            self.status = f"ignored: {reason}"
            # A stale snapshot is the expected cost of an upgrade or a config edit: nothing for
            # the user to do, so it must not add a line to `brain check`'s output. A damaged one
            # is worth a warning.
            level = logging.INFO if reason.startswith("stale:") else logging.WARNING
            log.log(level, "brain: ignoring the snapshot %s: %s; reading the whole workspace",
                    self.path, reason)
            return False
        self.loaded = True
        self.load_seconds = time.perf_counter() - started
        self.status = f"loaded in {self.load_seconds:.2f} s"
        log.info("brain: loaded the snapshot %s in %.2f s", self.path, self.load_seconds)
        return True

    def settle(self) -> None:
        """Build the ingester's file states and claims the load left for later (100,000 of
        them: after ready, not before). The Brain calls it, under its lock, before a sync."""
        fill, self._unsettled = self._unsettled, None
        if fill is not None:
            with gc_paused():
                fill()
            self._shape = self._current_shape()

    def synced(self, result: SyncResult, first: bool) -> None:
        """After every sync: schedule a write if it changed what a snapshot holds."""
        changed = bool(result.batch) or result.read > 0 or self._current_shape() != self._shape
        if not changed and not (first and not self.loaded):
            return
        with self._cond:
            now = time.monotonic()
            if self._dirty_since is None:
                self._dirty_since = now
            self._last_change = now
            self._urgent = self._urgent or first
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="brain-snapshot", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def close(self) -> None:
        """Write what is pending now, and wait for it (the process is about to exit)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _current_shape(self) -> tuple[int, int, int]:
        ing = self.ingester
        return len(ing.files), len(ing.file_problems), len(ing.definitions)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._dirty_since is None and not self._closing:
                    self._cond.wait()
                if self._dirty_since is None:
                    return
                while not (self._urgent or self._closing):
                    now = time.monotonic()
                    due = min(self._last_change + self.delay, self._dirty_since + self.max_delay)
                    if now >= due:
                        break
                    self._cond.wait(due - now)
                self._dirty_since = None
                self._urgent = False
            self._write()

    def _write(self) -> None:
        if not trusted(self.path.parent, "snapshots"):
            return  # said once, when it was found (brain/cachepaths.py)
        started = time.perf_counter()
        try:
            with self._lock:
                if not self.ingester.synced:
                    return  # a failed sync: the graph is not the workspace's
                self.settle()
                state = distrust_recent(self.ingester.state(), time.time_ns())
                image = self.store.contents()
                # The graph this state goes with (a database's): read under the same lock.
                stamp = self.store.graph_stamp() if isinstance(self.store, DatabaseStore) else ""
                self._shape = self._current_shape()
                if isinstance(self.store, DatabaseStore) and not stamp:
                    return  # nothing the next start could check it against
            give_back_memory()
            size = write(self.path, self.ingester.root, state, image, self.ingester.rules_identity(),
                         stamp)
        except Exception as exc:
            log.warning("brain: cannot write the snapshot %s: %s (the next start reads everything)",
                        self.path, exc)
            return
        self.writes += 1
        log.info("brain: wrote the snapshot %s (%.1f MB) in %.2f s", self.path, size / 1e6,
                 time.perf_counter() - started)
