"""One headless Chromium for a run of browser tests, not one a module.

Starting Playwright's driver and Chromium took 6-8 s of a loaded machine each time; a module
each (17 modules) was a large share of the web UI tests' time. The browser now lives while the
browser tests on this worker follow each other: each test still gets a context of its own
(cookies, storage and pages: nothing of one test reaches the next).

Why not a session fixture: while Playwright's sync API is open it marks its event loop as
running in this thread (between calls too), and pytest-asyncio refuses to run a test's loop
then. So the browser closes as soon as the next test on this worker is not a browser test
(tests/ui/conftest.py, pytest_runtest_teardown), and opens again at the next browser test.
A browser that died (a crash) is replaced at the next test, so one test's crash is not the
next test's failure.
"""

from __future__ import annotations

from typing import Any

from tests.ui.server import ARTIFACTS, CHROMIUM, TEST_CHROMIUM_ARGS, ensure_built


class BrowserHost:
    """The worker's browser, started on first use; `launches` counts starts (tests read it)."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None
        self.launches = 0

    @property
    def open(self) -> bool:
        return self._browser is not None

    def browser(self) -> Any:
        if self._browser is not None and not self._browser.is_connected():
            self.close()  # it crashed or was closed: a new one for this test
        if self._browser is None:
            ensure_built()
            from playwright.sync_api import sync_playwright

            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            self._playwright = sync_playwright().start()
            try:
                chromium = self._playwright.chromium
                self._browser = chromium.launch(executable_path=CHROMIUM, args=TEST_CHROMIUM_ARGS)
            except BaseException:
                self._stop_driver()
                raise
            self.launches += 1
        return self._browser

    def close(self) -> None:
        browser, self._browser = self._browser, None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            self._stop_driver()

    def _stop_driver(self) -> None:
        playwright, self._playwright = self._playwright, None
        if playwright is not None:
            playwright.stop()


HOST = BrowserHost()
