"""Keeping a Brain equal to its workspace while it runs: file events as hints, rescans as proof.

A `Watcher` reads the workspace once, then follows it: watchfiles reports changed paths
(grouped over a short debounce), and each group becomes one `Brain.sync(paths)`, which
decides from stat and content hash what really changed. Events are only hints: an atomic
save (temp file + rename), a rename (delete + add), or a note created and deleted within
one debounce window all end with the graph equal to the disk, because the ingester looks at
the disk, not at the events. Every `rescan_seconds` a full `Brain.sync()` (stat only,
unchanged files are not read) catches whatever the events missed.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from contextlib import aclosing
from pathlib import Path

import anyio
import anyio.to_thread
from watchfiles import Change, awatch

from brain import safefs
from brain.ingest.ingester import Progress, SyncResult
from brain.service.brain import Brain
from brain.store.base import WriteBatch

logger = logging.getLogger("brain.service.watch")

WatchFilter = Callable[[Change, str], bool]


# watchfiles ends a watch when an event names a path that is not UTF-8: it cannot hand it to
# Python as a str. brain never reads such a name (safefs refuses it), so the watch starts
# again; more often than this a minute (a process making such names in a loop), the full
# rescan every `rescan_seconds` follows the disk alone, as when a watch cannot be set up.
MAX_RESTARTS_A_MINUTE = 5


def first_cause(exc: BaseException) -> BaseException:
    """The first exception inside `exc`'s groups (what awatch's task group wraps)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def undecodable_name(exc: BaseException) -> bool:
    """Whether `exc` is watchfiles' "a path was not UTF-8" (a RuntimeError of its own; awatch
    raises it in a task group's ExceptionGroup)."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(undecodable_name(e) for e in exc.exceptions)
    return isinstance(exc, RuntimeError) and str(exc).startswith("Unable to decode path")


class Restarts:
    """At most `per_minute` restarts in any 60 s."""

    def __init__(self, per_minute: int = MAX_RESTARTS_A_MINUTE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self._times: list[float] = []

    def allow(self) -> bool:
        now = self.clock()
        self._times = [t for t in self._times if now - t < 60.0]
        if len(self._times) >= self.per_minute:
            return False
        self._times.append(now)
        return True


class Watcher:
    """Follows one Brain's workspace; `run` until `stop` is set."""

    def __init__(
        self,
        brain: Brain,
        *,
        rescan_seconds: float = 30.0,
        debounce_ms: int = 800,
        step_ms: int = 30,
        force_polling: bool | None = None,
        watch_filter: WatchFilter | None = None,
    ) -> None:
        self.brain = brain
        self.root = brain.root
        self.rescan_seconds = rescan_seconds
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.force_polling = force_polling
        self.watch_filter = watch_filter or self._visible
        self.last_event_at: float | None = None
        self.last_rescan_at: float | None = None
        self.events = 0
        self.syncs = 0
        self.running = False
        self.error: str | None = None
        # Why the last sync failed (None once one succeeds): /healthz says the graph has
        # stopped following the disk, instead of "ready" while changes go unapplied.
        self.sync_error: str | None = None
        self._pending: set[str] = set()
        # When the oldest pending event arrived (None: nothing pending), for the lag metric.
        self._since: float | None = None
        self._full = False
        self._wake = anyio.Event()

    async def run(
        self,
        stop: anyio.Event,
        *,
        progress: Progress | None = None,
        on_ready: Callable[[SyncResult], None] | None = None,
    ) -> None:
        """Watch, read everything once (unless already read), then apply changes until `stop`."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._stop_when, stop, tg.cancel_scope)
            # A warm start is ready (answering from the snapshot) before its watches are set
            # up: they need only be up before the rescan that checks the snapshot.
            warm = not self.brain.ready and await anyio.to_thread.run_sync(self.brain.open_snapshot)
            folders = await anyio.to_thread.run_sync(watched_folders, self.root)
            tg.start_soon(self._watch, stop, folders)
            # One checkpoint lets the watch task set up its inotify watches before the first
            # scan; anything that still falls between the two, the periodic rescan catches.
            await anyio.sleep(0)
            self.running = True
            if warm:
                await self._ready_from_snapshot(on_ready)
            elif not self.brain.ready:
                result = await anyio.to_thread.run_sync(lambda: self.brain.sync(progress=progress))
                self.last_rescan_at = time.time()
                if on_ready is not None:
                    await anyio.to_thread.run_sync(on_ready, result)
            tg.start_soon(self._rescan_timer)
            try:
                await self._apply_forever()
            finally:
                self.running = False

    async def _ready_from_snapshot(self, on_ready: Callable[[SyncResult], None] | None) -> None:
        """Ready from the snapshot (requests are answered from now on); then the rescan that
        checks it against the disk, whose differences are applied (and announced) like any
        other change; then `on_ready` (the ready line, search): after the check, so that
        neither its summary's index build nor search's first pass holds the store while the
        first requests and the check run."""
        keeper = self.brain.snapshots
        started = time.perf_counter()
        await self.apply_pending(full=True)
        checked = time.perf_counter() - started
        if not self.brain.checking:
            logger.info("checked the snapshot against %d files in %.2f s",
                        len(self.brain.ingester.files), checked)
        loaded = SyncResult(WriteBatch(), files=len(self.brain.ingester.files),
                            seconds=(keeper.load_seconds if keeper is not None else 0.0) + checked)
        if on_ready is not None:  # off the event loop: its summary may build the indexes
            await anyio.to_thread.run_sync(on_ready, loaded)

    async def _stop_when(self, stop: anyio.Event, scope: anyio.CancelScope) -> None:
        await stop.wait()
        scope.cancel()

    async def _watch(self, stop: anyio.Event, folders: list[str]) -> None:
        """Follow `folders`, each on its own; when a folder comes or goes, watch the folders
        as they are then and rescan everything (what changed in a new folder before its
        watch was set up, the rescan finds: it starts after the new watches are up)."""
        restarts = Restarts()
        while True:
            try:
                while await self._watch_folders(stop, folders):
                    folders = await self._rewatch()
                return
            except Exception as exc:
                if undecodable_name(exc) and restarts.allow():
                    logger.warning("the file watch ended on a name that is not UTF-8 (%s): brain "
                                   "never reads such a name, and watches again", first_cause(exc))
                    folders = await self._rewatch()
                    continue
                # E.g. the folder went away, or the system ran out of inotify watches: keep
                # serving, and let the periodic rescan keep the graph in step.
                self.error = f"file events stopped: {first_cause(exc)}"
                logger.warning(
                    "%s; the full rescan every %g s keeps the graph in step "
                    "(WATCHFILES_FORCE_POLLING=1 polls instead)", self.error, self.rescan_seconds,
                )
                return

    async def _rewatch(self) -> list[str]:
        """The folders to watch now, and a rescan of everything (after the new watches are up)
        for what changed while none was."""
        folders = await anyio.to_thread.run_sync(watched_folders, self.root)
        self._full = True
        self._wake.set()
        return folders

    async def _watch_folders(self, stop: anyio.Event, folders: list[str]) -> bool:
        """Events of `folders` until `stop` (False) or until a folder comes or goes (True)."""
        watched = set(folders)
        async with aclosing(awatch(
            *folders,
            watch_filter=self.watch_filter,
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=stop,
            rust_timeout=1000,
            force_polling=self.force_polling,
            recursive=False,
        )) as batches:
            async for changes in batches:
                self.last_event_at = time.time()
                self.events += len(changes)
                if self._since is None:
                    self._since = self.last_event_at
                if self.brain.metrics is not None:
                    self.brain.metrics.watcher_events.inc(len(changes))
                for _, path in changes:
                    rel = self._relative(path)
                    if rel is None:
                        self._full = True
                    else:
                        self._pending.add(rel)
                self._wake.set()
                if any(path in watched or (change is Change.added and os.path.isdir(path))
                       for change, path in changes):
                    return True
        return False

    async def _rescan_timer(self) -> None:
        while True:
            await anyio.sleep(self.rescan_seconds)
            self._full = True
            self._wake.set()

    async def _apply_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await self.apply_pending()

    async def apply_pending(self, full: bool = False) -> None:
        """One sync of whatever is pending: a full rescan if due, else the changed paths."""
        full, paths = full or self._full, sorted(self._pending)
        since, self._since = self._since, None
        self._full, self._pending = False, set()
        if not full and not paths:
            return
        metrics = self.brain.metrics
        try:
            # Not cancellable on purpose: a sync runs to its end, so the graph stays whole.
            if full:
                await anyio.to_thread.run_sync(self.brain.sync)
                self.last_rescan_at = time.time()
            else:
                if metrics is not None and since is not None:
                    since = await anyio.to_thread.run_sync(changed_at, self.root, paths, since)
                await anyio.to_thread.run_sync(self.brain.sync, paths)
            self.syncs += 1
            self.sync_error = None
            if metrics is not None and since is not None:
                metrics.watcher_lag.observe(max(0.0, time.time() - since))
        except Exception as exc:
            # A bad moment on disk (a file vanishing mid-read) must not stop the server:
            # log it, say it on /healthz, and let the next rescan try again.
            logger.exception("sync after file changes failed; a full rescan will retry")
            self.sync_error = f"applying file changes failed: {type(exc).__name__}: {exc}"
            self._full = True

    def _relative(self, path: str) -> str | None:
        """The workspace-relative path of an event, or None when only a full rescan will do."""
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel in ("", ".") else rel

    def _visible(self, change: Change, path: str) -> bool:
        # Mirror the ingester's own rule: anything under a dot-name is not part of the workspace.
        rel = self._relative(path)
        return rel is None or not any(part.startswith(".") for part in rel.split("/"))


# Files whose mtime the lag metric looks at, per sync: a bulk change is measured by a sample.
LAG_SAMPLE = 32
# An mtime older than this before its event is not the change's (a moved or touched old file).
LAG_WINDOW = 60.0


def changed_at(root: Path, paths: list[str], received: float) -> float:
    """When the changes in `paths` happened: the oldest mtime among them that is recent and
    not after their event arrived (an editor's save), else the event's arrival."""
    found = received
    for rel in paths[:LAG_SAMPLE]:
        try:
            mtime = os.stat(root / rel, follow_symlinks=False).st_mtime
        except (OSError, ValueError):
            continue  # deleted since (its event's arrival stands)
        if received - LAG_WINDOW <= mtime <= received:
            found = min(found, mtime)
    return found


def watched_folders(root: Path) -> list[str]:
    """The folders to watch, each on its own: the workspace's and every one below it, but
    none under a dot-name (never part of a workspace) and no linked folder (a walk never
    enters one). The notify crate's recursive watch of the root looked at every file
    (0.45 s at 100,000 notes, holding the GIL: no request was answered meanwhile). The
    ingest walk's own bounds (brain.safefs.walk): none past its depth budget, none whose
    name is not UTF-8 (what it refuses, a rescan reports; nothing below it is read)."""
    found = [str(root)]
    for rel, entry, refusal in safefs.walk(root, ""):
        try:
            if refusal is None and entry.is_dir(follow_symlinks=False):
                found.append(os.path.join(root, rel))
        except OSError:
            continue  # gone since it was listed
    return found
