"""A server's start from the snapshot builds the ingester's file states after ready: the
first sync (or an editor's overlay) builds them first, and nothing else needs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.snapshot.keeper import SnapshotKeeper
from tests.contract.helpers import note, reference
from tests.unit.test_snapshot import OLD, cold_then_warm, started
from tests.unit.test_snapshot import snapshots as snapshots
from tests.unit.test_snapshot import workspace as workspace


def keeper(brain: Brain) -> SnapshotKeeper:
    assert brain.snapshots is not None
    return brain.snapshots


def test_file_states_wait_for_the_first_sync_and_are_the_synced_ones(workspace: Path) -> None:
    synced = cold_then_warm(workspace)
    expected = synced.ingester.state()
    synced.close()
    server = Brain(workspace, cache=True)
    assert server.open_snapshot()
    assert server.ingester.files == {}  # not built before ready
    assert server.ingester.claims == {}
    assert server.problems() == reference(workspace).problems()  # file problems are there already
    result = server.sync()
    assert result.read == 0
    state = server.ingester.state()
    assert state.files == expected.files
    assert state.claims == expected.claims
    server.close()
    assert keeper(server).writes == 0  # nothing changed: no snapshot written again


def test_an_overlay_right_after_the_load_sees_the_file_states(workspace: Path) -> None:
    started(workspace).close()
    server = Brain(workspace, cache=True)
    assert server.open_snapshot()
    result = server.set_overlay("memory/shared/bad.md", note("typed in the editor", "[[nowhere-else]]"))
    assert result.read == 1  # only the overlaid file: every other file is known
    assert server.memory_at("memory/shared/bad.md").description == "typed in the editor"  # type: ignore[union-attr]
    assert len(server.ingester.files) == len(reference(workspace).ingester.files)


def test_a_file_changed_while_down_is_read_by_the_first_named_sync(
    workspace: Path,
) -> None:
    started(workspace).close()
    changed = workspace / "memory" / "shared" / "bad.md"
    changed.write_text(note("fixed while down"))
    os.utime(changed, ns=(OLD * 10**9, (OLD + 5) * 10**9))
    server = Brain(workspace, cache=True)
    server.sync(["memory/shared/other.md"])  # loads, builds the file states, rescans, then these
    assert server.memory_at("memory/shared/bad.md").description == "fixed while down"  # type: ignore[union-attr]
    assert server.store.export() == reference(workspace).store.export()


@pytest.mark.parametrize("calls", [0, 2])
def test_settle_builds_once(workspace: Path, calls: int) -> None:
    started(workspace).close()
    server = Brain(workspace, cache=True)
    assert server.open_snapshot()
    for _ in range(calls):
        keeper(server).settle()
    files = server.ingester.files
    server.sync()
    assert server.ingester.files is files  # filled in place, never replaced
    assert len(files) > 0
