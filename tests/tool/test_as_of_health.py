"""GraphQL `memoryHealth(asOf:)`: a note is stale as of the moment (not changed for `staleDays`
before it), not as of now; a real server, real files, the history's clock set back."""

from __future__ import annotations

import time
from pathlib import Path

from brain.store.memory.store import MemoryStore
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.api.live import live_server
from tests.tool.conftest import make_workspace
from tests.tool.test_as_of import iso
from tests.tool.test_graphql import gql

DAY = 86400.0
STALE = """query($at: DateTime) { memoryHealth(asOf: $at, staleDays: 5) {
  stale(first: 50) { nodes { ... on Memory { path } } } } }"""


async def test_stale_is_counted_as_of_the_moment(tmp_path: Path) -> None:
    """Planted bug, seen to fail this test: the moment's time not passed to the health ask
    (late.md, changed two days before the moment, counted stale as it is 40 days before now)."""
    root = make_workspace(tmp_path / "ws")
    clock = [time.time() - 40 * DAY]
    with live_server(root, MemoryStore()) as live:
        service = MemoryService(root, live.brain, history=History(root / ".brain/history.jsonl"),
                                clock=lambda: clock[0])
        attach_memory_service(live.brain, service)
        tool = MemoryTool(service)
        writer = Actor.of_agent("writer")
        for text in ("---\ndescription: Late.\n---\n\none\n", "---\ndescription: Late.\n---\n\ntwo\n"):
            done = tool.run("writer", {"command": "create", "path": "/memories/late.md", "file_text": text},
                            actor=writer)
            assert done.ok, done.text
            clock[0] += 20 * DAY
        moment = clock[0] - 38 * DAY  # two days after the first version, long before the second
        found = await gql(live, STALE, at=iso(moment))
        stale = {n.get("path") for n in found["memoryHealth"]["stale"]["nodes"]}
        assert "memory/writer/late.md" not in stale
        assert "memory/old-bot/leftover.md" in stale  # 400 days old then too: stale
