"""Driving the VS Code workbench in Chromium the way a user does: keyboard, quick open,
command palette, and what is on screen (suggest widget, squiggles, Problems, hovers,
notifications). Selectors are VS Code's own CSS classes, stable across releases."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

SUGGEST_ROWS = ".editor-widget.suggest-widget.visible .monaco-list-row"
SQUIGGLE_ERROR = ".monaco-editor .squiggly-error"
TOASTS = ".notifications-toasts .notification-toast"


class Workbench:
    def __init__(self, page: Page, shots: Path) -> None:
        self.page = page
        self.shots = shots
        shots.mkdir(parents=True, exist_ok=True)

    def wait_ready(self, timeout: float = 90) -> None:
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
        takes the text, or list nothing for a while; then it asks again, as a user would."""
        for attempt in range(4):
            self.page.keyboard.press("F1")
            box = self.page.locator(".quick-input-widget input")
            box.wait_for(state="visible")
            box.fill(">" + title)
            try:
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
                row = self.page.locator(".quick-input-list .monaco-list-row", has_text=name).first
                row.wait_for(timeout=30_000)
                time.sleep(0.3)  # let the list settle on the best match
                self.page.keyboard.press("Enter")
                tab.wait_for(timeout=20_000)
                editor.wait_for(timeout=20_000)
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
        time.sleep(0.3)
        texts = [r.inner_text() for r in center.locator(".notification-list-item").all()]
        self.page.keyboard.press("Escape")
        return texts
