"""Fixtures of the web UI's end-to-end tests: a real server, a real browser, no console errors.

A `brain serve` start (Python's imports, the first read of the workspace) took 12-21 s of a
loaded machine. The tests that only read the example share two servers a worker: `reader`
(open) and `guarded` (tokens). Their modules mark the xdist group READERS, so under
`-n 2` they run on one worker and each server starts once (tests/plan.py: a group a module
marks is kept). The tests that write notes no other test reads share a third, `writers`, in
the same group. A test whose writes other tests would see (a fixed link changes the problems
counted) has a server of its own, or its module's (test_nearby).
The scripted timeline of the as-of pages (tests/ui/timeline.py) is built and served once a
worker for the three modules that read it (xdist group TIMELINE); its one writing test runs
after the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Collection, Generator, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.ui.browser import HOST
from tests.ui.server import ARTIFACTS, BrainServer, aged_example, chromium_missing, copy_example
from tests.ui.timeline import Timeline, served_timeline, writes_after

# An `expect` waits as long as a page's own calls do (bare_page: 15 s), not Playwright's 5 s: a
# page of the app took over 5 s to show on a machine at load 30-45 (timeouts seen in main and
# in the last changes' runs). A wait ends at the event, so a passing test waits no longer.
with contextlib.suppress(ImportError):  # without Playwright the browser tests skip (`browser`)
    from playwright.sync_api import expect

    expect.set_options(timeout=15_000)
# The xdist group of the modules that use the shared `reader` or `guarded` (their pytestmark).
READERS = "ui-readers"
ADMIN = "admin-secret-token"
AGENT = "on-call-token"  # the on-call agent's token
T = TypeVar("T")


@pytest.fixture
def browser() -> Any:
    """The worker's Chromium (tests/ui/browser.py: one for a run of browser tests, not one a
    module); each test opens a context of its own on it (`bare_page`)."""
    return ui_browser()


def ui_browser() -> Any:
    """The worker's Chromium; without one the test skips, or fails in CI. (Also for a module's
    fixture that shares a tab: it is set up before the function-scoped `browser`.)"""
    missing = chromium_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the web UI tests need a browser in CI: {missing}")
        pytest.skip(missing)
    return HOST.browser()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test's own teardown (its context closed), the browser closes unless the next
    test on this worker uses one: Playwright's open event loop would stop an asyncio test."""
    try:
        yield
    finally:
        if nextitem is None or not takes_the_ui_browser(nextitem.path, getattr(nextitem, "fixturenames", ())):
            HOST.close()


def takes_the_ui_browser(path: Path, fixturenames: Collection[str]) -> bool:
    """Whether a test takes this folder's `browser`. tests/vscode has a `browser` fixture of its
    own, with a Playwright of its own: a ui test followed by a vscode test on one worker left
    this one open, and the vscode test's Playwright, then the asyncio tests after it, refused
    to start ("Sync API inside the asyncio loop")."""
    return "browser" in fixturenames and path.is_relative_to(Path(__file__).parent)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = timeline_writers_last(items)


def timeline_writers_last(items: list[T]) -> list[T]:
    """The items, a test marked `writes_after_the_timeline` moved after the last other test that
    takes `timeline` (the fixture is the worker's, and their "changed since" would count its
    write); the rest in their order. xdist's controller sends a group's tests in this order."""
    writers = [item for item in items if writes_after(item)]
    if not writers:
        return items
    rest = [item for item in items if not writes_after(item)]
    readers = [i for i, item in enumerate(rest) if "timeline" in getattr(item, "fixturenames", ())]
    at = readers[-1] + 1 if readers else len(rest)
    return rest[:at] + writers + rest[at:]


def pytest_sessionfinish() -> None:
    HOST.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_example(tmp_path)


@pytest.fixture
def server(workspace: Path) -> Iterator[BrainServer]:
    s = BrainServer(workspace).start()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    """One server of the example (its glossary five and a half days old) for the worker's
    tests that only read it: nothing they do changes a file or what the server keeps (an
    unsaved edit stays in the test's own browser context). Set up before each test's page, so
    the page closes first."""
    served = BrainServer(aged_example(tmp_path_factory.mktemp("reader"))).start()
    yield served
    served.stop()


@pytest.fixture(scope="session")
def writers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    """One server of the example (as `reader`'s) for the worker's tests that write, through
    the page or on disk: each writes notes no other test reads or writes, and asks the history
    of its own notes only, so the order they run in does not matter. Its tests: test_memory_review's
    writers (team-calendar, team-roster, a new note in release-writer, code-reviewer's first,
    customer-tiers, written-on-disk, after-restart; its restart test stops and starts it),
    test_history's (prefers-short-answers), test_find's (hostile-note) and
    test_graph_slider_pages' (130 records of on-call/alert-tuning appended to the history,
    which counts the history's records when it starts). A `brain serve` start was most of a
    one-test module's time."""
    served = BrainServer(aged_example(tmp_path_factory.mktemp("writers"))).start()
    yield served
    served.stop()


@pytest.fixture(scope="session")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    """One server of the example with tokens (the admin's and the on-call agent's) for the
    worker's tests that only read: what a sign-in keeps is the browser tab's (sessionStorage,
    in each test's own context), not the server's, and a wrong token is refused, not counted."""
    tmp = tmp_path_factory.mktemp("guarded")
    tokens = tmp / "tokens.json"
    tokens.write_text(json.dumps({ADMIN: "*", AGENT: "on-call"}))
    served = BrainServer(copy_example(tmp), env={"BRAIN_TOKENS_FILE": str(tokens)}).start()
    yield served
    served.stop()


@pytest.fixture(scope="session")
def timeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Timeline]:
    """The example with a scripted day in its history (tests/ui/timeline.py), served with
    tokens, for the worker's tests of the pages of memory through time."""
    with served_timeline(tmp_path_factory.mktemp("timeline")) as served:
        yield served


class ConsoleErrors(list[str]):
    """Console errors and uncaught exceptions of a page; `allow` patterns expected ones."""

    def __init__(self) -> None:
        super().__init__()
        self.allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def unexpected(self) -> list[str]:
        return [e for e in self if not any(p.search(e) for p in self.allowed)]


@pytest.fixture
def console() -> ConsoleErrors:
    return ConsoleErrors()


@pytest.fixture
def page(server: BrainServer, bare_page: Any) -> Any:
    """A page of the example workspace's server (closed before the server stops)."""
    return bare_page


# Each phase's report of a test (setup, call), kept for its fixtures' teardown.
REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


def went_wrong(node: pytest.Item) -> bool:
    """Whether a phase of the test so far failed (its setup or its body)."""
    return any(report.failed for report in node.stash.get(REPORTS, {}).values())


def open_page(browser: Any, console: ConsoleErrors) -> tuple[Any, Any]:
    """A context of its own and a tab in it, its console errors and uncaught exceptions noted."""
    context = browser.new_context(viewport={"width": 1400, "height": 860})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("console", lambda m: console.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    return context, page


def close_page(context: Any, page: Any, console: ConsoleErrors, name: str, failed: bool) -> None:
    """Close the tab's context, which must have logged no errors (beyond those allowed). The
    page as it ended is kept as an artifact (`<name>-end.png`) when something went wrong: the
    test failed or the page logged errors. A screenshot of every passing test's end cost about
    0.25 CPU-s of Chromium each (ui40c) and was looked at only after a failure."""
    shot: Path | None = ARTIFACTS / f"{name}-end.png"
    try:
        if failed or console.unexpected():
            page.screenshot(path=str(shot))
        else:
            shot = None
    finally:
        context.close()  # what the page logged until it closed is in `console`
    assert console.unexpected() == [], f"the page logged errors (screenshot {shot})"


@pytest.fixture
def bare_page(browser: Any, console: ConsoleErrors, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser tab; it must log no errors (beyond those the test allows)."""
    context, page = open_page(browser, console)
    yield page
    close_page(context, page, console, request.node.name, went_wrong(request.node))


def snap(page: Any, name: str) -> Path:
    """A screenshot kept as a test artifact (tests/ui/artifacts/, or $BRAIN_UI_ARTIFACTS)."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path
