"""The other paths into `/metrics`: MCP tool calls, the space layout's writes, the watcher's
events and lag, and the problem counts that are not recounted per scrape."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import anyio.to_thread
import httpx

from brain.api.http.auth import TokenRegistry
from brain.service.watch import LAG_WINDOW, changed_at
from brain.store.memory.store import MemoryStore
from tests.api.conftest import ServerFactory
from tests.api.files import write
from tests.api.live import wait_for
from tests.api.metrics_client import moved, scrape, series, value
from tests.mcp.conftest import TOKENS, http_session
from tests.tool.test_space_verbs import build as build_space

SECRET = "AKIAABCDEFGHIJKLMNOP\n"


def _tokens(tmp_path: Path, tokens: dict[str, str]) -> TokenRegistry:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps(tokens), encoding="utf-8")
    return TokenRegistry(tokens_file=file)


async def test_mcp_tool_calls_by_tool_and_outcome(
    serve: ServerFactory, tmp_path: Path, workspace: Path
) -> None:
    from tests.mcp.conftest import build_workspace

    root = build_workspace(tmp_path / "mcp-ws")
    live = serve(root, watch=False, tokens=_tokens(tmp_path, TOKENS))
    before = await anyio.to_thread.run_sync(scrape, live.base, "admin-token")
    async with http_session(live.base, "writer-token") as mcp:
        assert (await mcp.memory(command="view", path="/memories"))[0]
        assert (await mcp.memory(command="create", path="/memories/a.md", file_text="# A\n"))[0]
        assert not (await mcp.memory(command="create", path="/memories/b.md", file_text=SECRET))[0]
        assert (await mcp.tool("memory_links", {"path": "/memories/a.md"}))[0]
        assert not (await mcp.tool("drop_tables", {}))[0]  # a made-up name is counted as `other`
    after = await anyio.to_thread.run_sync(scrape, live.base, "admin-token")
    calls = {k: v for k, v in moved(before, after, "_total").items() if k[0].startswith("brain_m")}
    assert calls == {
        series("brain_mcp_tool_calls_total", tool="memory", outcome="ok"): 2,
        series("brain_mcp_tool_calls_total", tool="memory", outcome="refused"): 1,
        series("brain_mcp_tool_calls_total", tool="memory_links", outcome="ok"): 1,
        series("brain_mcp_tool_calls_total", tool="other", outcome="refused"): 1,
        series("brain_memory_writes_total", command="create", via="mcp"): 1,
        series("brain_memory_refusals_total", code="secret", command="create"): 1,
    }
    assert value(after, "brain_mcp_tool_duration_seconds_count", tool="memory") == 3
    assert not [key for key in after if any(v == "drop_tables" for _, v in key[1])]


def test_space_layout_writes_are_counted(serve: ServerFactory, tmp_path: Path) -> None:
    root = build_space(tmp_path / "space-ws")
    live = serve(root, watch=False, tokens=_tokens(tmp_path, {"alice-token": "alice", "admin-token": "*"}))
    before = scrape(live.base, "admin-token")
    alice = {"Authorization": "Bearer alice-token"}
    with httpx.Client(base_url=live.base, headers=alice, timeout=30) as http:
        assert http.put("/api/space/alice/notes/todo.md", json={"content": "- ship\n"}).status_code == 201
        assert http.put("/api/space/alice/keys.md", json={"content": SECRET}).status_code == 422
        assert http.delete("/api/space/alice/notes/todo.md").status_code == 200
    after = scrape(live.base, "admin-token")
    writes = {k: v for k, v in moved(before, after, "_total").items() if k[0].startswith("brain_memory")}
    assert writes == {
        series("brain_memory_writes_total", command="write", via="rest"): 1,
        series("brain_memory_writes_total", command="delete", via="rest"): 1,
        series("brain_memory_refusals_total", code="secret", command="write"): 1,
    }


def test_watcher_events_and_lag(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace, watcher_options={"debounce_ms": 50, "step_ms": 10, "rescan_seconds": 600})
    before = scrape(live.base)
    write(workspace, "memory/bot/outside.md", "---\ndescription: Written by an editor\n---\nHi.\n")
    wait_for(lambda: live.brain.memory_at("memory/bot/outside.md") is not None, "the watcher to apply it")
    wait_for(lambda: value(scrape(live.base), "brain_watcher_lag_seconds_count") >
             value(before, "brain_watcher_lag_seconds_count"), "the lag to be observed")
    after = scrape(live.base)
    assert value(after, "brain_watcher_events_total") > value(before, "brain_watcher_events_total")
    assert value(after, "brain_sync_duration_seconds_count", kind="changes") > value(
        before, "brain_sync_duration_seconds_count", kind="changes")
    assert value(after, "brain_notes") == value(before, "brain_notes") + 1
    # The first read was a sync too, of its own kind.
    assert value(after, "brain_sync_duration_seconds_count", kind="first") == 1


def test_lag_starts_at_the_files_change_not_at_the_event(tmp_path: Path) -> None:
    (tmp_path / "saved.md").write_text("x")
    (tmp_path / "old.md").write_text("x")
    received = time.time()
    os.utime(tmp_path / "saved.md", (received - 2, received - 2))  # saved 2 s before the event came
    os.utime(tmp_path / "old.md", (received - 10 * LAG_WINDOW,) * 2)  # moved in, mtime of long ago
    assert changed_at(tmp_path, ["saved.md"], received) == received - 2
    assert changed_at(tmp_path, ["old.md"], received) == received
    assert changed_at(tmp_path, ["gone.md"], received) == received  # deleted: the event's arrival
    assert changed_at(tmp_path, ["old.md", "saved.md", "gone.md"], received) == received - 2


def test_problems_are_not_recounted_per_scrape(serve: ServerFactory, workspace: Path) -> None:
    store = CountingStore()
    live = serve(workspace, store, watch=False)
    first = scrape(live.base)
    scrape(live.base)
    scrape(live.base)
    assert store.scans == 1  # three scrapes, one count: nothing changed between them
    problems = {"code": "broken-link", "severity": "error", "scope": "bot"}
    with httpx.Client(base_url=live.base, timeout=30) as http:
        made = http.put("/api/memory/bot/more.md", content="See [[also-missing]].\n",
                        headers={"Content-Type": "text/markdown"})
        assert made.status_code == 201
    # The graph changed: a scrape counts again (once the last count's tenth-of-the-time is up).
    wanted = value(first, "brain_problems", **problems) + 1
    wait_for(lambda: value(scrape(live.base), "brain_problems", **problems) == wanted, "the recount")
    assert store.scans == 2


class CountingStore(MemoryStore):
    """The real embedded store, counting its whole-graph problem scans."""

    def __init__(self) -> None:
        super().__init__()
        self.scans = 0

    def problems(self, paths=None, reach=None):  # type: ignore[no-untyped-def]
        if paths is None:
            self.scans += 1
        return super().problems(paths) if reach is None else super().problems(paths, reach)
