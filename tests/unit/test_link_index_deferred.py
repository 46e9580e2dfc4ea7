"""The embedded store builds its link index on first use, after a first sync as after a
snapshot's restore: the sync never reads it, and keeping it link by link was a tenth of its
CPU. Answers before and after the build, and after writes on either side of it, are those of
a store that held the index throughout (a restore of the same image, then built)."""

from __future__ import annotations

from pathlib import Path

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import note
from tests.unit.test_memory_compact import generated_workspace, restored


def test_a_first_sync_leaves_the_link_index_unbuilt_and_answers_as_a_built_one(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    generated_workspace(root, notes=80, seed=7)
    brain = Brain(root, MemoryStore())
    brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    assert store._indexed is False
    assert not store._links.incoming
    stats = store.stats()  # from the columns
    copy = restored(brain)
    ids = [*sorted(store._memories)[:40], "unresolved:nowhere"]
    assert store.links_to(ids) == copy.links_to(ids)  # built now, on first use
    assert store._indexed is True
    assert store.stats() == stats
    # A write after the build keeps it; the graph is a fresh ingest's.
    (root / "memory" / "shared" / "late.md").write_text(note("late", "[[nowhere]] [[also-missing]]"))
    brain.sync(["memory/shared/late.md"])
    fresh = Brain(root, MemoryStore())
    fresh.sync()
    assert store.export() == fresh.store.export()
    assert store.links_to(["unresolved:nowhere"]) == fresh.store.links_to(["unresolved:nowhere"])


def test_a_rescan_after_a_first_sync_gives_a_fresh_ingests_graph(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    generated_workspace(root, notes=30, seed=8)
    brain = Brain(root, MemoryStore())
    brain.sync()
    (root / "memory" / "shared" / "late.md").write_text(note("late", "[[nowhere]]"))
    gone = sorted((root / "memory" / "shared").glob("*.md"))[0]
    gone.unlink()
    brain.sync()  # a rescan: a new note and a deleted one (its links' keys build the index)
    store = brain.store
    assert isinstance(store, MemoryStore)
    fresh = Brain(root, MemoryStore())
    fresh.sync()
    assert store.export() == fresh.store.export()
    keys = ["nowhere", gone.stem]
    assert [link.source for link in store.links_with_keys(keys)] == [
        link.source for link in fresh.store.links_with_keys(keys)]
