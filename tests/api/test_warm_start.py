"""`brain serve` from the snapshot: ready before the files are checked, then equal to the disk.

The server answers from the snapshot's graph (a consistent past state) while the rescan runs;
/healthz says `checkingFiles` until it ends, and what changed while the server was down
arrives as ordinary `graphChanged` events.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from brain.service.brain import Brain
from tests.api.client import ws_session
from tests.api.conftest import ServerFactory
from tests.api.files import write
from tests.api.live import GatedStore, wait_for
from tests.api.test_live import EVENTS, MEMORY, ask, events_until

OLD = 1_700_000_000  # far in the past: no file is "racily clean", so none is re-read for it
STYLE = "memory/writer/style.md"



@pytest.fixture(autouse=True)
def snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "snapshots"
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(folder))
    return folder


def age(root: Path, seconds: int = 0) -> None:
    for path in root.rglob("*"):
        os.utime(path, ns=((OLD + seconds) * 10**9,) * 2)


def health(base: str) -> dict[str, object]:
    answer: dict[str, object] = httpx.get(f"{base}/healthz").json()
    return answer


async def test_ready_from_the_snapshot_then_a_change_made_while_down_arrives_as_an_event(
    serve: ServerFactory, workspace: Path, snapshots: Path,
) -> None:
    age(workspace)
    first = Brain(workspace, cache=True)
    first.sync()
    first.close()
    assert list(snapshots.glob("*.snapshot"))
    write(workspace, STYLE, "---\ndescription: House style, revised\ntype: feedback\n---\n# Tone\n")
    age(workspace, 5)

    store = GatedStore()
    try:
        live = serve(workspace, store, cache=True)  # waits for /healthz 200: before the rescan
        assert live.brain.snapshots is not None
        assert live.brain.snapshots.loaded
        assert health(live.base)["checkingFiles"] is True
        before = await ask(live, MEMORY, path=STYLE)
        assert before["memory"]["description"] == "House style"  # the snapshot's graph
        async with ws_session(live.ws) as session:
            stream = await session.subscribe(EVENTS)
            wait_for(lambda: health(live.base)["subscriptions"] == 1, "the subscription")
            store.gate.set()
            seen = await events_until(stream, lambda s: any(e["id"] == "memory:writer/style" for e in s))
    finally:
        store.gate.set()
    changed = next(e for e in seen if e["id"] == "memory:writer/style")
    assert changed["node"]["description"] == "House style, revised"
    wait_for(lambda: health(live.base)["checkingFiles"] is False, "the rescan to end")
    after = await ask(live, MEMORY, path=STYLE)
    assert after["memory"]["description"] == "House style, revised"


async def test_without_a_snapshot_the_first_read_is_the_whole_workspace(
    serve: ServerFactory, workspace: Path,
) -> None:
    live = serve(workspace, cache=True)
    assert live.brain.snapshots is not None
    assert not live.brain.snapshots.loaded
    assert health(live.base)["checkingFiles"] is False
    answer = await ask(live, MEMORY, path=STYLE)
    assert answer["memory"]["description"] == "House style"
