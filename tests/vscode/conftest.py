"""The real VS Code and the browser, shared by the tests in this folder: each is slow to start,
so one of each per module. In CI (CI=true) or with BRAIN_REQUIRE_VSCODE=1 a missing chromium,
npm or code-server fails the tests instead of skipping them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .harness import CHROMIUM, CHROMIUM_ARGS, REQUIRED, code_server_entry, vsix

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (required: CI=true or BRAIN_REQUIRE_VSCODE=1)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
