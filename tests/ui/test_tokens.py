"""Tokens in the browser: the UI asks for one, keeps it for the tab only, and an agent's token
sees what the API lets it see (its own notes and the shared ones)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import ADMIN, AGENT, READERS, ConsoleErrors, snap
from tests.ui.server import BrainServer

__all__ = ["ADMIN", "AGENT", "sign_in"]
# The tests use the worker's shared `guarded` server (tests/ui/conftest.py); they only read.
pytestmark = pytest.mark.xdist_group(READERS)


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


def test_a_refusal_of_a_request_sent_before_signing_in_does_not_ask_again(
    guarded: BrainServer, bare_page: Any, console: ConsoleErrors
) -> None:
    """On a slow server a request sent without a token may be refused after the person has
    signed in: the page asks it again with the token, and does not open the dialog again."""
    console.allow(r"status of 401")
    page = bare_page
    held: list[Any] = []
    bare = [0]

    def hold_one(route: Any) -> None:
        # The first request without a token is refused (the dialog opens); the next one is
        # held, and refused below, once the person has signed in.
        if "authorization" not in route.request.headers:
            bare[0] += 1
            if bare[0] == 2:
                held.append(route)
                return
        route.continue_()

    page.route("**/graphql", hold_one)
    page.goto(guarded.base + "/")
    sign_in(page, AGENT)
    expect(page.get_by_role("navigation", name="Memory scopes").get_by_role("link")).to_have_count(2)
    assert held, "no request went out before the sign-in"
    # The late refusal is asked again, with the token.
    with page.expect_request(lambda r: r.url.endswith("/graphql") and r.post_data == held[0].request.post_data
                             and "authorization" in r.headers):
        held[0].fulfill(status=401, content_type="application/json", body='{"errors": []}')
    expect(page.get_by_role("dialog", name="Sign in to brain")).to_have_count(0)
    page.get_by_role("link", name="Graph").click()
    expect(page.locator(".graph-status")).to_contain_text("needs an admin token")


def test_an_agent_token_sees_the_health_of_its_own_and_the_shared_notes(
    guarded: BrainServer, bare_page: Any, console: ConsoleErrors
) -> None:
    console.allow(r"status of 401")
    page = bare_page
    page.goto(guarded.base + "/#/problems")
    sign_in(page, AGENT)
    health = page.get_by_role("region", name="Memory health")
    rows = health.get_by_role("table", name="Health per scope").get_by_role("rowheader")
    expect(rows).to_have_text(["on-call", "shared", "all"])  # no other agent's folder, not even counted
    expect(page.get_by_role("region", name="Link report")).to_contain_text("needs an admin token")
    snap(page, "token-agent-health")
