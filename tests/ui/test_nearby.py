"""The memory view's Mentions and Related panels in a real browser against a real `brain
serve`: an unlinked mention with the link that fixes it, and a related note that opens."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.server import BrainServer, copy_example

VISIT = "---\ndescription: A visit.\n---\nRead the Zebra Handbook before grooming the zebra stripes,\n" \
    "and `zebra handbook` in code is no mention.\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One workspace for the module's three tests, each on a visit note of its own with the
    same text (the mention of the handbook at line 4:10): the first only reads zebra-visit,
    Link writes zebra-linked, the refusal changes zebra-changed on disk. A start of `brain
    serve` a test was most of their time."""
    root = copy_example(tmp_path_factory.mktemp("nearby"))
    (root / "memory/shared/zebra-handbook.md").write_text(
        "---\ndescription: Caring for zebras.\n---\nzebra stripes grooming zebra paddock\n", encoding="utf-8"
    )
    for name in ("zebra-visit", "zebra-linked", "zebra-changed"):
        (root / f"memory/shared/{name}.md").write_text(VISIT, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[BrainServer]:
    served = BrainServer(workspace).start()
    yield served
    served.stop()


def test_mentions_and_related_panels(page: Any, server: BrainServer, workspace: Path) -> None:
    page.goto(f"{server.base}/#/memory/shared/zebra-visit.md")
    mentions = page.get_by_role("region", name="Unlinked mentions")
    expect(mentions.get_by_role("listitem")).to_have_count(1, timeout=20_000)
    expect(mentions.get_by_role("listitem")).to_contain_text("line 4:10")
    expect(mentions.locator("code")).to_have_text("[[zebra-handbook|Zebra Handbook]]")
    related = page.get_by_role("region", name="Related notes")
    link = related.get_by_role("link", name="memory/shared/zebra-handbook.md")
    expect(link).to_be_visible()
    row = related.get_by_role("listitem").filter(has_text="zebra-handbook")
    expect(row).to_contain_text(re.compile(r"· .*zebra"))  # the shared terms
    link.click()
    expect(page.get_by_role("heading", name="memory/shared/zebra-handbook.md")).to_be_visible()


def test_link_button_applies_the_exact_str_replace(page: Any, server: BrainServer, workspace: Path) -> None:
    """"Link" writes exactly the mention's str_replace (the rest of the file byte for byte),
    through the editor's save path: the history keeps the write, and the mention leaves."""
    note = workspace / "memory/shared/zebra-linked.md"
    before = note.read_text(encoding="utf-8")
    page.goto(f"{server.base}/#/memory/shared/zebra-linked.md")
    mentions = page.get_by_role("region", name="Unlinked mentions")
    expect(mentions.get_by_role("listitem")).to_have_count(1, timeout=20_000)
    mentions.get_by_role("button", name="Link Zebra Handbook on line 4").click()
    expect(mentions.get_by_role("listitem")).to_have_text("No unlinked mentions.", timeout=20_000)
    after = before.replace("Read the Zebra Handbook", "Read the [[zebra-handbook|Zebra Handbook]]", 1)
    assert after != before
    assert note.read_text(encoding="utf-8") == after  # `zebra handbook` in code is untouched
    editor = page.get_by_role("textbox", name="Markdown of memory/shared/zebra-linked.md")
    expect(editor).to_contain_text("Read the [[zebra-handbook|Zebra Handbook]] before grooming")
    expect(page.get_by_role("status").filter(has_text="Unsaved changes")).to_have_count(0)
    page.get_by_role("button", name="History").click()
    latest = page.get_by_role("region", name="History").get_by_role("listitem").first
    expect(latest).to_contain_text("put by anonymous via graphql")
    expect(latest.locator("pre.diff .add")).to_contain_text(["[[zebra-handbook|Zebra Handbook]]"])


def test_link_button_refuses_a_note_changed_on_disk(page: Any, server: BrainServer, workspace: Path) -> None:
    """The note changed on disk after its mentions were listed, and the page has not heard of
    it yet: Link writes nothing (the server refuses the opened hash), and the change on disk is
    kept.

    The page's live updates are held from the change on (its GraphQL socket's messages from the
    server queue until the click): left to race, the page sometimes reloaded the note and its
    mentions first, and a mention found in the new text is rightly linked (a 'Saved' run under
    load, with no refusal to see).
    """
    note = workspace / "memory/shared/zebra-changed.md"
    holding: list[bool] = [False]
    held: list[Any] = []

    def live_updates(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def from_server(message: Any) -> None:
            if holding[0]:
                held.append(message)
            else:
                ws.send(message)

        to_server.on_message(from_server)

    page.route_web_socket(re.compile(r"/graphql$"), live_updates)
    page.goto(f"{server.base}/#/memory/shared/zebra-changed.md")
    mentions = page.get_by_role("region", name="Unlinked mentions")
    expect(mentions.get_by_role("listitem")).to_have_count(1, timeout=20_000)
    expect(page.get_by_role("status").filter(has_text=re.compile("^Live$"))).to_be_visible()
    holding[0] = True
    text = note.read_text(encoding="utf-8")
    changed = text.replace("Zebra Handbook", "Zebra Handbook (or the Zebra Handbook)")
    note.write_text(changed, encoding="utf-8")
    # Held or not, a page can still have heard of the change before the click (a fresh CI run
    # showed the new text's two mentions once): then the click links the first of the new text,
    # rightly. Either way nothing on disk is lost; the refusal is the case this test is for.
    mentions.get_by_role("button", name=re.compile("^Link Zebra Handbook on line 4")).first.click()
    refused = page.get_by_text(re.compile("Not linked"))
    relinked = changed.replace("Read the Zebra Handbook", "Read the [[zebra-handbook|Zebra Handbook]]", 1)
    deadline = time.monotonic() + 20
    while not refused.is_visible() and note.read_text(encoding="utf-8") != relinked:
        assert time.monotonic() < deadline, "neither refused nor linked"
        page.wait_for_timeout(100)
    if refused.is_visible():
        assert note.read_text(encoding="utf-8") == changed
    else:
        assert note.read_text(encoding="utf-8") == relinked  # the person's change is kept
