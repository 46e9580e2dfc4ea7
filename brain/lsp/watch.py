"""Watching the disk for clients that cannot send `workspace/didChangeWatchedFiles`.

Neovim (0.7, and later versions on Linux) sends no file events, yet agents write memories
while a person edits: without this, a note an agent creates would stay a broken link in the
editor. Events are hints only; the session's `Brain.sync(paths)` reads the disk to decide.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from brain.service.watch import Restarts, undecodable_name
from brain.workspace import AGENTS_DIR, ENTITY_DIRS, MEMORY_DIR

if TYPE_CHECKING:
    from brain.layouts.base import Layout

log = logging.getLogger(__name__)
TOP_DIRS = frozenset({MEMORY_DIR, AGENTS_DIR, *ENTITY_DIRS})


def relevant(root: Path, path: str, layout: Layout | None = None) -> str | None:
    """The workspace-relative path of an event that can matter to the graph, else None.

    latchai: anything under its top folders; another layout: what its classification makes
    a node or a problem (space: `<agent>/memory/**`, lab: `MEMORY.md`, `skills/`, ...), and
    any folder (a folder deleted or moved takes its files with it)."""
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return None
    parts = rel.split("/")
    if any(part.startswith(".") for part in parts):
        return None
    if layout is None or layout.name == "latchai":
        return rel if parts[0] in TOP_DIRS else None
    if rel == "brain.toml" or layout.classify(rel).kind != "ignored" or Path(path).is_dir():
        return rel
    return None


class FileWatcher:
    """A daemon thread that feeds changed workspace paths to `on_paths`."""

    def __init__(
        self, root: Path, on_paths: Callable[[set[str]], None], debounce_ms: int = 150,
        layout: Layout | None = None, on_rescan: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.layout = layout
        self.on_paths = on_paths
        self.on_rescan = on_rescan  # what changed while no watch was up: a sync of it all finds
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"brain-watch:{root.name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        restarts = Restarts()
        while not self._stop.is_set():
            try:
                self._follow()
                return
            except Exception as exc:
                if undecodable_name(exc) and restarts.allow():
                    log.warning("watching %s ended on a name that is not UTF-8 (%s): brain never "
                                "reads such a name, and watches again", self.root, exc)
                    if self.on_rescan is not None:
                        self.on_rescan()
                    continue
                # a watcher that cannot run must not take the server down
                log.exception("watching %s failed; changes on disk are seen on save and reopen", self.root)
                return

    def _follow(self) -> None:
        for changes in watchfiles.watch(
            self.root,
            watch_filter=lambda _, path: relevant(self.root, path, self.layout) is not None,
            debounce=self.debounce_ms,
            step=20,
            stop_event=self._stop,
            rust_timeout=1000,
            raise_interrupt=False,
        ):
            rels = {
                rel for _, path in changes if (rel := relevant(self.root, path, self.layout)) is not None
            }
            if rels:
                self.on_paths(rels)
