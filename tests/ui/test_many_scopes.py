"""Memory review lists every scope of a workspace of many agents: `memoryScopes` is paged on
the server (at most 100 a page), and the UI reads page after page until a short one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.server import BrainServer, copy_example

AGENTS = 130  # past one page of 100


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = copy_example(tmp_path)
    for n in range(AGENTS):
        folder = root / "memory" / f"zz-agent-{n:03d}"
        folder.mkdir(parents=True)
        (folder / "note.md").write_text(f"---\ndescription: note {n}\n---\nA note of agent {n}.\n")
    return root


def test_every_scope_is_listed_past_the_first_page(page: Any, server: BrainServer) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.post_data or "") if r.url.endswith("/graphql") else None)
    page.goto(server.base + "/")
    scopes = page.get_by_role("navigation", name="Memory scopes").get_by_role("link")
    expect(page.get_by_role("link", name=re.compile(r"^zz-agent-129, 1 note"))).to_be_visible()
    names = [str(scopes.nth(i).get_attribute("aria-label")).split(",")[0] for i in range(scopes.count())]
    assert [n for n in names if n.startswith("zz-agent-")] == [f"zz-agent-{n:03d}" for n in range(AGENTS)]
    assert len(names) == len(set(names))
    assert sum("MemoryScopes" in body for body in requests) == 2  # two pages, not one per scope
