"""ChangeHub: changes applied in a sync thread reach subscribers on the loop, in order, bounded."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio.to_thread
import pytest

from brain.api.http.events import ChangeHub, SubscriberLagged, change_scope
from brain.service.brain import Brain, GraphChange
from tests.api.files import make_workspace, write


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    brain = Brain(make_workspace(tmp_path / "ws"))
    brain.sync()
    return brain


async def next_change(changes: object) -> GraphChange:
    return await asyncio.wait_for(changes.__anext__(), 5)  # type: ignore[attr-defined]


async def test_changes_arrive_in_order_and_by_scope(brain: Brain) -> None:
    hub = ChangeHub(brain)
    hub.start()
    async with hub.listen() as everything, hub.listen("writer") as writer_only:
        write(brain.root, "memory/bot/a.md", "a\n")
        write(brain.root, "memory/writer/b.md", "b\n")
        await anyio.to_thread.run_sync(brain.sync, ["memory/bot/a.md", "memory/writer/b.md"])
        first, second = await next_change(everything), await next_change(everything)
        only = await next_change(writer_only)
    hub.stop()
    assert (first.id, second.id) == ("memory:bot/a", "memory:writer/b")
    assert second.seq == first.seq + 1
    assert only.id == "memory:writer/b"
    assert hub.subscribers == 0


async def test_a_subscriber_that_falls_behind_is_told_and_dropped(brain: Brain) -> None:
    hub = ChangeHub(brain, queue_size=3)
    hub.start()
    async with hub.listen() as changes:
        for i in range(6):
            write(brain.root, f"memory/bot/n{i}.md", f"{i}\n")
        await anyio.to_thread.run_sync(brain.sync)
        await asyncio.sleep(0.05)  # let the loop hand the changes over
        received = [await next_change(changes) for _ in range(3)]
        with pytest.raises(SubscriberLagged, match="fell more than 3 changes behind"):
            await next_change(changes)
    hub.stop()
    assert [c.id for c in received] == ["memory:bot/n0", "memory:bot/n1", "memory:bot/n2"]


def test_change_scope_of_agents_is_their_name() -> None:
    assert change_scope(GraphChange(1, "changed", "agent:bot", None)) == "bot"
    assert change_scope(GraphChange(1, "added", "memory:shared/x", "shared")) == "shared"
    assert change_scope(GraphChange(1, "added", "workflow:x", None)) is None
