"""Driving the VS Code workbench in Chromium the way a user does: keyboard, quick open,
command palette, and what is on screen (suggest widget, squiggles, Problems, hovers,
notifications). Selectors are VS Code's own CSS classes, stable across releases.

Waits are for what the workbench shows, with timeouts sized for a CI machine whose two cores
also run a second test worker, Neo4j and other browsers; never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.sync_api import BrowserContext, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

if TYPE_CHECKING:
    from .harness import CodeServer

SUGGEST_ROWS = ".editor-widget.suggest-widget.visible .monaco-list-row"
SQUIGGLE_ERROR = ".monaco-editor .squiggly-error"
TOASTS = ".notifications-toasts .notification-toast"
# Playwright's default for a wait without its own timeout is 30 s; a window's first load on a
# loaded machine took longer (a fresh-clone run timed out in page.goto).
DEFAULT_TIMEOUT_MS = 90_000


@contextlib.contextmanager
def open_workbench(
    context: BrowserContext, server: CodeServer, shots: Path, folder: Path
) -> Iterator[Workbench]:
    """A window of `server` on `folder`: a page of the shared browser context (its HTTP cache
    keeps the workbench's scripts, which code-server serves with a year's max-age, so a window
    after the first loads them from the cache), closed at the end whatever happened in it."""
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.set_default_navigation_timeout(DEFAULT_TIMEOUT_MS * 2)
    page = context.new_page()
    try:
        page.goto(server.url_of(folder), wait_until="domcontentloaded")
        bench = Workbench(page, shots)
        try:
            bench.wait_ready()
            yield bench
        finally:
            with contextlib.suppress(Exception):  # a dead page must not hide the test's own error
                bench.shot("last")
    finally:
        with contextlib.suppress(Exception):  # nor a page the browser already lost
            page.close()


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls `predicate` (a file the editor writes, a value it sets) until true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Workbench:
    def __init__(self, page: Page, shots: Path) -> None:
        self.page = page
        self.shots = shots
        shots.mkdir(parents=True, exist_ok=True)

    def wait_ready(self, timeout: float = 180) -> None:
        self.page.wait_for_selector(".monaco-workbench", timeout=timeout * 1000)
        # The explorer lists the folder once the workbench has connected to the server.
        self.page.wait_for_selector(".explorer-folders-view .monaco-list-row", timeout=timeout * 1000)

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def command(self, title: str) -> None:
        """Runs a command from the palette by its title.

        As with `open_file`: on a busy machine the palette can open before the workbench
        takes the text, or list nothing for a while, or not open at all (a loaded run saw F1
        with the suggest widget open leave the palette hidden for 90 s); then it asks again,
        as a user would."""
        for attempt in range(4):
            self.page.keyboard.press("F1")
            box = self.page.locator(".quick-input-widget input")
            try:
                box.wait_for(state="visible", timeout=30_000)
                box.fill(">" + title)
                self.page.locator(".quick-input-list .monaco-list-row", has_text=title).first.wait_for(
                    timeout=15_000)
            except PlaywrightTimeout:
                self.page.keyboard.press("Escape")
                if attempt == 3:
                    raise
                continue
            self.page.keyboard.press("Enter")
            return

    def open_file(self, relative: str) -> float:
        """Quick-opens a file; returns the monotonic time at which its editor is shown.

        File search starts with the window; on a busy machine a query can come back late or
        the Enter land before the list settles: then it asks again, as a user would.
        """
        name = Path(relative).name
        editor = self.page.locator(f".monaco-editor[data-uri$='/{name}'] .view-lines")
        tab = self.page.locator(".tab.active", has_text=name)
        for attempt in range(4):
            self.page.keyboard.press("Control+P")
            box = self.page.locator(".quick-input-widget input")
            box.wait_for(state="visible")
            box.fill(relative)
            try:
                # The best match is the focused row once the list has settled on the query.
                row = self.page.locator(".quick-input-list .monaco-list-row.focused", has_text=name).first
                row.wait_for(timeout=30_000)
                self.page.keyboard.press("Enter")
                tab.wait_for(timeout=30_000)
                editor.wait_for(timeout=30_000)
                return time.monotonic()
            except PlaywrightTimeout:
                self.page.keyboard.press("Escape")
                if attempt == 3:
                    raise
        raise AssertionError("unreachable")

    def go_to_end(self) -> None:
        self.page.keyboard.press("Control+End")

    def type(self, text: str) -> None:
        self.page.keyboard.type(text, delay=20)

    def suggestions(self, timeout: float = 60) -> Locator:
        """The suggest widget's rows, once it shows some.

        Typing `[[` before the server has started (or finished indexing) gets no list: the
        provider is not registered yet, or the answer is empty and incomplete. A user then
        asks again (Ctrl+Space) or types on; this asks again every two seconds.
        """
        rows = self.page.locator(SUGGEST_ROWS)
        deadline = time.monotonic() + timeout
        while True:
            try:
                rows.first.wait_for(timeout=2000)
                return rows
            except PlaywrightTimeout:
                if time.monotonic() > deadline:
                    raise
                self.page.keyboard.press("Control+Space")

    def active_tab(self) -> str:
        return self.page.locator(".tab.active .label-name").first.inner_text()

    def toasts(self) -> list[str]:
        return [t.inner_text() for t in self.page.locator(TOASTS).all()]

    def all_notifications(self) -> list[str]:
        """Every notification of the session, from the notification center (toasts time out)."""
        self.command("Notifications: Show Notifications")
        center = self.page.locator(".notifications-center")
        center.wait_for(state="visible")
        # The header counts what the list shows: "No New Notifications" for none, else the rows
        # are drawn (read them once they are, not after a guessed pause).
        title = center.locator(".notifications-center-header-title").inner_text()
        rows = center.locator(".notification-list-item")
        if "no new" not in title.lower():
            rows.first.wait_for()
        texts = [r.inner_text() for r in rows.all()]
        self.page.keyboard.press("Escape")
        center.wait_for(state="hidden")
        return texts
