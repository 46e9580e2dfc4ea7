"""The web UI tests' browser (tests/ui/browser.py): one Chromium while browser tests follow each
other on a worker, a fresh context for each, closed before a test that takes none (an asyncio
test could not run beside Playwright's loop), and replaced when it died.

The tests depend on their order, so the module runs on one worker, in the order written.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.ui.browser import HOST
from tests.ui.conftest import takes_the_ui_browser

pytestmark = pytest.mark.xdist_group("tests/ui/test_browser_host.py")

SEEN: dict[str, Any] = {}


def test_a_browser_test_gets_a_connected_browser_and_a_context_of_its_own(
    browser: Any, bare_page: Any
) -> None:
    assert browser.is_connected()
    assert bare_page.context in browser.contexts
    bare_page.goto("data:text/html,<title>first</title>")
    bare_page.context.add_cookies([{"name": "left", "value": "behind", "url": "http://127.0.0.1/"}])
    SEEN["browser"], SEEN["launches"], SEEN["context"] = browser, HOST.launches, bare_page.context


def test_the_next_browser_test_shares_the_browser_but_not_the_context(
    browser: Any, bare_page: Any
) -> None:
    assert browser is SEEN["browser"], "one browser for the run"
    assert HOST.launches == SEEN["launches"]
    assert bare_page.context is not SEEN["context"]
    assert SEEN["context"] not in browser.contexts, "the last test's context was closed"
    assert bare_page.context.cookies() == [], "nothing of the last test's context is here"


def test_an_asyncio_test_runs_after_a_browser_test() -> None:
    # The browser closed after the last test: Playwright no longer marks a loop running here.
    assert not HOST.open
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()


async def test_an_async_test_runs_after_the_browser_closed() -> None:
    await asyncio.sleep(0)


def test_a_browser_test_after_them_gets_a_new_browser(browser: Any) -> None:
    assert browser.is_connected()
    assert browser is not SEEN["browser"]
    SEEN["browser"] = browser
    browser.close()  # as a crash would leave it: the next test must not inherit it


def test_a_dead_browser_is_replaced_at_the_next_test(browser: Any, bare_page: Any) -> None:
    assert browser.is_connected()
    assert browser is not SEEN["browser"]
    bare_page.goto("data:text/html,<title>alive</title>")
    assert bare_page.title() == "alive"


@pytest.mark.parametrize(("path", "fixtures", "takes"), [
    ("tests/ui/test_find.py", {"browser", "server"}, True),
    ("tests/ui/sub/test_x.py", {"browser"}, True),
    ("tests/ui/test_static.py", {"server"}, False),
    # tests/vscode's own `browser` (its own Playwright): the ui browser must close before it.
    ("tests/vscode/test_code_server.py", {"browser", "code_server"}, False),
    ("tests/lsp/test_indexing.py", set(), False),
])
def test_the_ui_browser_stays_open_only_for_a_ui_test_that_takes_it(
    path: str, fixtures: set[str], takes: bool
) -> None:
    root = Path(__file__).parents[2]
    assert takes_the_ui_browser(root / path, fixtures) is takes
