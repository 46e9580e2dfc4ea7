"""The web UI's session mark outlives a restart of `brain serve`, and stays the workspace's.

The mark (brain/api/http/ui/session.py) is signed with the workspace's key, kept in
`.brain/ui-session.key` (ui/key.py). An open page holds its cookie across a restart of the
server: its edits are still recorded with origin `ui`. A cookie from another workspace's
server, or a made-up one, is still not taken, and a key file that is not sound is replaced
(a rotation: the old pages' mark is no longer taken). Real servers, real HTTP, real files.

Planted bugs, each seen to fail: the key made per process again (the old cookie after the
restart records `tool`, not `ui`); the key file read without its checks (a group-readable key
kept, and the old mark still taken after it was found unsound).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import httpx

from brain.api.http.auth import TokenRegistry
from brain.api.http.ui.key import KEY_BYTES, key_path
from brain.api.http.ui.session import UI_COOKIE
from brain.store.memory.store import MemoryStore
from brain.tool.history.log import History
from tests.api.live import live_server
from tests.mcp.conftest import TOKENS, build_workspace
from tests.tool.test_changes import serving
from tests.tool.test_changes_origins import WRITE


def _mark(base: str) -> str:
    page = httpx.get(f"{base}/", timeout=60)
    mark = page.cookies.get(UI_COOKIE)
    assert mark
    return mark


def _write(base: str, content: str, cookie: str | None) -> None:
    headers = {"Authorization": "Bearer writer-token"}
    if cookie is not None:
        headers["Cookie"] = f"{UI_COOKIE}={cookie}"
    answer = httpx.post(f"{base}/graphql", json={"query": WRITE, "variables": {"content": content}},
                        headers=headers, timeout=60).json()
    assert answer["data"]["memoryWrite"]["ok"], answer


def _origins(root: Path) -> list[tuple[str | None, str]]:
    records = History(root / ".brain" / "history.jsonl").all()
    return [(r.origin, r.path) for r in records if r.origin != "external"]


def test_an_open_pages_mark_still_says_ui_after_a_restart_and_a_foreign_one_never(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    other = build_workspace(tmp_path / "other")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    # Another workspace's server, whose own key signs its mark: in this process (a real app on
    # a real port), since what is tested of it is only that its mark is not taken, not a restart.
    with live_server(other, MemoryStore(), watch=False,
                     tokens=TokenRegistry(tokens_file=tokens)) as foreign_server:
        foreign = _mark(foreign_server.base)
    with serving(root, tokens) as base:
        mark = _mark(base)
        _write(base, "# Before the restart\n", mark)
    assert foreign != mark
    with serving(root, tokens) as base:  # restarted: the page was not reloaded
        _write(base, "# After the restart\n", mark)
        _write(base, "# Another workspace's mark\n", foreign)
        _write(base, "# A forged mark\n", "0" * 64)
        _write(base, "# No mark\n", None)
        reloaded = _mark(base)
    assert [origin for origin, _ in _origins(root)] == ["ui", "ui", None, None, None]
    assert reloaded == mark  # a reload gets the same mark
    key = key_path(root)
    found = key.lstat()
    assert stat.S_ISREG(found.st_mode)
    assert stat.S_IMODE(found.st_mode) == 0o600
    assert found.st_size == KEY_BYTES
    # A key file found unsound (here: readable by others) is replaced: a rotation.
    key.chmod(0o644)
    with serving(root, tokens) as base:
        _write(base, "# The key was replaced\n", mark)
        fresh = _mark(base)
        _write(base, "# The page reloaded\n", fresh)
    assert fresh != mark
    assert stat.S_IMODE(key.lstat().st_mode) == 0o600
    assert [origin for origin, _ in _origins(root)][-2:] == [None, "ui"]


def test_two_apps_of_two_workspaces_in_one_process_each_keep_their_own_mark(tmp_path: Path) -> None:
    """Each app holds its workspace's mark (`app.state.ui_mark`): with the key kept in one
    place for the process, the app made last signed and checked for both, so the first app's
    page got the second workspace's mark and its own edits were recorded as `tool`."""
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    first, second = build_workspace(tmp_path / "first"), build_workspace(tmp_path / "second")
    with live_server(first, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens)) as one, \
            live_server(second, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens)) as two:
        mine, theirs = _mark(one.base), _mark(two.base)
        assert mine != theirs
        _write(one.base, "# The first app's own page\n", mine)
        _write(one.base, "# The second app's page\n", theirs)
        _write(two.base, "# The second app's own page\n", theirs)
    assert [origin for origin, _ in _origins(first)] == ["ui", None]
    assert [origin for origin, _ in _origins(second)] == ["ui"]
