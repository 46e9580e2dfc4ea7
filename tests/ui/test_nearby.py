"""The memory view's Mentions and Related panels in a real browser against a real `brain
serve`: an unlinked mention with the link that fixes it, and a related note that opens."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.server import BrainServer, copy_example


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = copy_example(tmp_path)
    (root / "memory/shared/zebra-handbook.md").write_text(
        "---\ndescription: Caring for zebras.\n---\nzebra stripes grooming zebra paddock\n", encoding="utf-8"
    )
    (root / "memory/shared/zebra-visit.md").write_text(
        "---\ndescription: A visit.\n---\nRead the Zebra Handbook before grooming the zebra stripes,\n"
        "and `zebra handbook` in code is no mention.\n", encoding="utf-8"
    )
    return root


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
