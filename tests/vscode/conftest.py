"""The real VS Code and the browser, shared by the tests in this folder (tests/vscode/shared.py):
one code-server and one Chromium (one context of it) for the folder, a workspace copy for each
test, and a window for each test or, for tests that check a folder of their own, a window they
share (`windows`, tests/vscode/windows.py). Every test here is in the xdist group "vscode" (its
module's pytestmark), so under `-n 2` the folder runs on one worker and starts its servers once.

In CI (CI=true) or with BRAIN_REQUIRE_VSCODE=1 a missing chromium, npm or code-server fails the
tests instead of skipping them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .harness import CHROMIUM, REQUIRED, CodeServer, code_server_entry, vsix
from .shared import SharedBrowser, SharedServers, SharedWindows

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (required: CI=true or BRAIN_REQUIRE_VSCODE=1)")
    pytest.skip(reason)


@pytest.fixture(scope="package")
def tools() -> tuple[list[str], Path]:
    """`([node, code-server entry], the packaged .vsix)`."""
    if not Path(CHROMIUM).exists():
        unavailable(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    if shutil.which("npm") is None:
        unavailable("needs npm to install code-server")
    try:
        return code_server_entry(), vsix()
    except RuntimeError as err:
        unavailable(str(err))
        raise


@pytest.fixture(scope="package")
def _servers(
    tools: tuple[list[str], Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedServers]:
    entry, package = tools
    servers = SharedServers(entry, package, tmp_path_factory.mktemp("code-servers"))
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture
def code_server(_servers: SharedServers) -> CodeServer:
    """The shared code-server (workspace trust off), alive: started again if an earlier test
    left it dead."""
    return _servers.get(trust=True)


@pytest.fixture
def restricted_code_server(_servers: SharedServers) -> CodeServer:
    """The shared code-server with workspace trust on: folders open in Restricted Mode."""
    return _servers.get(trust=False)


@pytest.fixture(scope="package")
def _browser() -> Iterator[SharedBrowser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        shared = SharedBrowser(p)
        try:
            yield shared
        finally:
            shared.close()


@pytest.fixture
def browser(_browser: SharedBrowser) -> BrowserContext:
    """The shared Chromium's one context, connected: launched again if an earlier test left
    the browser dead. Each test opens its own window (page) in it."""
    return _browser.get()


@pytest.fixture(scope="package")
def _windows(
    _servers: SharedServers, _browser: SharedBrowser, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedWindows]:
    windows = SharedWindows(_servers, _browser, tmp_path_factory.mktemp("shared-windows"))
    try:
        yield windows
    finally:
        windows.close()


@pytest.fixture
def windows(_windows: SharedWindows) -> SharedWindows:
    """The windows several tests share (windows.py): `windows.get(name)` opens one, closing the
    one open before."""
    return _windows
