"""Tokens in the browser: the UI asks for one, keeps it for the tab only, and an agent's token
sees what the API lets it see (its own notes and the shared ones)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import ConsoleErrors, snap
from tests.ui.server import BrainServer

ADMIN = "admin-secret-token"
AGENT = "on-call-token"


@pytest.fixture
def guarded(workspace: Path, tmp_path: Path) -> Iterator[BrainServer]:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({ADMIN: "*", AGENT: "on-call"}))
    server = BrainServer(workspace, env={"BRAIN_TOKENS_FILE": str(tokens)}).start()
    yield server
    server.stop()


def sign_in(page: Any, token: str) -> None:
    dialog = page.get_by_role("dialog", name="Sign in to brain")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Token").fill(token)
    dialog.get_by_role("button", name="Sign in").click()


def test_the_ui_asks_for_a_token_and_keeps_it_for_the_session(
    guarded: BrainServer, bare_page: Any, console: ConsoleErrors
) -> None:
    console.allow(r"status of 401")  # the browser logs the API's first answer, by design
    page = bare_page
    page.goto(guarded.base + "/")
    snap(page, "token-login")
    sign_in(page, "not-a-token")
    expect(page.get_by_role("alert")).to_have_text("That token is not valid here.")
    sign_in(page, ADMIN)
    expect(page.get_by_role("navigation", name="Memory scopes").get_by_role("link")).to_have_count(6)
    expect(page.get_by_role("status").filter(has_text=re.compile("^Live$"))).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('brain.token')") == ADMIN
    assert page.evaluate("localStorage.length") == 0
    assert ADMIN not in page.context.cookies().__repr__()
    # A reload in the same tab keeps the session; a new tab (new context) asks again.
    page.reload()
    expect(page.get_by_role("navigation", name="Memory scopes").get_by_role("link")).to_have_count(6)
    page.get_by_role("button", name="Forget token").click()
    expect(page.get_by_role("dialog", name="Sign in to brain")).to_be_visible()


def test_an_agent_token_sees_its_own_and_the_shared_notes(
    guarded: BrainServer, bare_page: Any, console: ConsoleErrors
) -> None:
    console.allow(r"status of 401")
    page = bare_page
    page.goto(guarded.base + "/")
    sign_in(page, AGENT)
    scopes = page.get_by_role("navigation", name="Memory scopes").get_by_role("link")
    expect(scopes).to_have_count(2)
    expect(scopes.nth(0)).to_have_accessible_name(re.compile("^Shared"))
    expect(scopes.nth(1)).to_have_accessible_name(re.compile("^on-call"))
    page.get_by_role("link", name="Graph").click()
    expect(page.locator(".graph-status")).to_contain_text("needs an admin token")
    snap(page, "token-agent-graph")
