"""A first sync into Neo4j holds no body its files have: each is read back as its row is built.

The ingester holds a first sync's every parsed note until the one batch is written (0.74 GB
at 100,000 notes, most of it bodies), so the notes it hands the store are bare, and the store
reads each body from its file when it builds the note's row. What the database gets is the
same graph either way: in one transaction and as a new generation in many. An editor's
unsaved buffer is not on disk, so its body is kept; so is the body of a note whose file
is a link (never followed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.model import MemoryNode
from brain.service import Brain
from brain.store.neo4j import Neo4jStore
from brain.store.neo4j_write import Limits
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import SMALL, StoreMaker

pytestmark = pytest.mark.neo4j

NOTES = 30


def watched_brain(root: Path, store: Neo4jStore) -> tuple[Workspace, Brain, list[MemoryNode]]:
    """A workspace of NOTES notes, its brain on `store`, and the notes it hands the store."""
    ws = Workspace(root)
    for i in range(NOTES):
        ws.write(f"memory/bot/n{i}.md", note(f"note {i}", f"Body of {i}, see [[n{(i + 1) % NOTES}]]."))
    brain = Brain(ws.root, store)
    handed: list[MemoryNode] = []
    brain.ingester.listeners.append(lambda batch, _before: handed.extend(batch.memories))
    return ws, brain, handed


@pytest.mark.parametrize("limits", [SMALL, Limits()], ids=["rebuild", "one-transaction"])
def test_a_first_sync_hands_over_bare_notes_and_the_database_gets_every_body(
    tmp_path: Path, make_store: StoreMaker, limits: Limits
) -> None:
    store = make_store(limits=limits)
    ws, brain, handed = watched_brain(tmp_path / "ws", store)
    brain.sync()
    assert len(handed) == NOTES
    assert all(m.body == "" for m in handed)  # none held through the write
    assert store.export() == reference_export(ws.root)  # every body, as the embedded store has it
    stored = store.get_nodes(["memory:bot/n7"])["memory:bot/n7"]
    assert isinstance(stored, MemoryNode)
    assert stored.body == "Body of 7, see [[n8]].\n"
    # Later writes carry their bodies as before.
    ws.write("memory/bot/n7.md", note("note 7", "Rewritten."))
    brain.sync()
    assert [m.body for m in handed[NOTES:]] == ["Rewritten.\n"]
    again = store.get_nodes(["memory:bot/n7"])["memory:bot/n7"]
    assert isinstance(again, MemoryNode)
    assert again.body == "Rewritten.\n"
    brain.close()


def test_an_unsaved_buffer_keeps_its_body_through_a_first_sync(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    store = make_store(limits=SMALL)
    _, brain, bare = watched_brain(tmp_path / "ws", store)
    # An editor's buffer, as the language server sets it before the first sync ends.
    brain.ingester.overlays["memory/bot/n3.md"] = note("note 3", "Not saved yet.").encode()
    brain.sync()
    handed = {m.id: m for m in bare}
    assert handed["memory:bot/n3"].body == "Not saved yet.\n"
    assert handed["memory:bot/n4"].body == ""
    stored = store.get_nodes(["memory:bot/n3", "memory:bot/n4"])
    assert [n.body for n in stored.values() if isinstance(n, MemoryNode)] == [
        "Not saved yet.\n", "Body of 4, see [[n5]].\n",
    ]
    brain.close()
