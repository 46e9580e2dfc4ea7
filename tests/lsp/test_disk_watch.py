"""brain/lsp/watch.py: the disk watch of editors that send no file events (Neovim) goes on
after a file name that is not UTF-8, which ends watchfiles' watch. (A folder of such a name
ends this recursive watch for as long as it is there: setting the watch up again fails on it;
brain serve's watcher, which watches folder by folder, goes on: tests/unit/test_watch_folders.py.)"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from brain.lsp.watch import FileWatcher


def test_the_watch_goes_on_after_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    seen: set[str] = set()
    rescans: list[float] = []
    arrived = threading.Event()

    def on_paths(rels: set[str]) -> None:
        seen.update(rels)
        if "memory/after.md" in seen:
            arrived.set()

    watcher = FileWatcher(tmp_path, on_paths, debounce_ms=50, on_rescan=lambda: rescans.append(time.time()))
    watcher.start()
    try:
        time.sleep(0.5)  # the watch is set up
        with open(os.fsencode(tmp_path / "memory") + b"/odd\xff.md", "wb") as odd:
            odd.write(b"never a note\n")
        deadline = time.monotonic() + 30
        while not rescans and time.monotonic() < deadline:
            time.sleep(0.05)
        assert rescans, "the odd name did not end a watch (watchfiles changed?): nothing checked"
        time.sleep(0.5)  # watching again
        (tmp_path / "memory" / "after.md").write_text("after\n")
        assert arrived.wait(30), f"no event after the odd name: {sorted(seen)}"
    finally:
        watcher.stop()
