"""A first sync into Neo4j holds no body its files have: each is read back as its row is built.

The notes a first sync hands the store are bare, and the store reads each body from its file
when it builds the note's row: in parts onto a staged generation (a database with no graph
yet), in one transaction, or as a new generation of the whole graph (a database that holds
an older graph of the workspace). What the database gets is the same graph every way. An
editor's unsaved buffer is not on disk, so its body is kept; so is the body of a note whose
file is a link (never followed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.ingest.parts import PartWriter
from brain.model import MemoryNode
from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.neo4j.store import Neo4jStore, StagedNeo4jStore
from brain.store.neo4j.write import Limits
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import SMALL, StoreMaker

pytestmark = pytest.mark.neo4j

NOTES = 30


def watched_brain(
    root: Path, store: Neo4jStore, monkeypatch: pytest.MonkeyPatch, body: str = "Body of {i}",
) -> tuple[Workspace, Brain, list[MemoryNode]]:
    """A workspace of NOTES notes, its brain on `store`, and the notes it hands the store:
    part by part (a first sync onto a staged generation) or in one batch."""
    ws = Workspace(root)
    for i in range(NOTES):
        ws.write(f"memory/bot/n{i}.md", note(f"note {i}", f"{body.format(i=i)}, see [[n{(i + 1) % NOTES}]]."))
    brain = Brain(ws.root, store)
    handed: list[MemoryNode] = []
    brain.ingester.listeners.append(lambda batch, _before: handed.extend(batch.memories))
    commit = PartWriter.commit

    def watched(self: PartWriter, batch: WriteBatch) -> None:
        if isinstance(self.store, StagedNeo4jStore):  # not the reference brain's parts
            handed.extend(batch.memories)
        commit(self, batch)

    monkeypatch.setattr(PartWriter, "commit", watched)
    return ws, brain, handed


@pytest.mark.parametrize("way", ["staged", "rebuild", "one-transaction"])
def test_a_first_sync_hands_over_bare_notes_and_the_database_gets_every_body(
    tmp_path: Path, make_store: StoreMaker, way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if way != "staged":  # the database holds an older graph of the workspace
        older = make_store()
        Brain(watched_brain(tmp_path / "ws", older, monkeypatch, "Old {i}")[0].root, older).sync()
        older.close()
    store = make_store(limits=SMALL if way == "rebuild" else Limits())
    ws, brain, handed = watched_brain(tmp_path / "ws", store, monkeypatch)
    brain.sync()
    assert store.rebuilds == (0 if way == "one-transaction" else 1)
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
    tmp_path: Path, make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(limits=SMALL)
    _, brain, bare = watched_brain(tmp_path / "ws", store, monkeypatch)
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
