"""A process trusts the live set it looked up for a moment (brain/store/neo4j/generations/live.py), and
forgets it at its own commits and at the change log's entries: a writer reads its own switch
at once, and a replica reads the new set as soon as it has read the switch's entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.neo4j.store import Neo4jStore
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.test_generations import LOOK, NOTES, SMALL, bot_workspace, write_notes

pytestmark = pytest.mark.neo4j


def kinds(store: Neo4jStore) -> set[str]:
    """The generation word of every note's description, as one read of `store` sees them."""
    return {d.split()[0] for d in store._read(LOOK)[0]["descriptions"]}


def test_a_switch_is_read_at_once_by_its_writer_and_by_a_replica_that_read_the_log(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    ws = bot_workspace(tmp_path / "ws")
    writer = make_store(limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    replica = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    replica._live.ttl = 3600.0  # it trusts what it looked up for the whole test
    position = replica.log_position()
    assert kinds(replica) == {"old"}  # looked up, and kept
    assert kinds(writer) == {"old"}

    write_notes(ws, "new")  # a big change: a new generation, switched in
    rebuilds = writer.rebuilds
    brain.sync()
    assert writer.rebuilds == rebuilds + 1
    assert kinds(writer) == {"new"}  # its own switch: forgotten at the commit

    # The replica still trusts its answer (the documented labels), which hold the new graph.
    assert kinds(replica) == {"new"}
    _, entries = replica.changes_after(position)  # the switch's entry: forgotten
    assert len(entries) == NOTES
    assert kinds(replica) == {"new"}
    brain.close()
    replica.close()


def test_a_small_write_keeps_the_live_set_its_writer_looked_up_and_its_reads_see_the_write(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    """A change written onto the live labels cannot switch them: the writer keeps what it
    looked up (each read of its next sync, and each GraphQL read after a write, was one round
    trip more while every commit forgot it), and still reads its own write at once."""
    ws = bot_workspace(tmp_path / "ws")
    writer = make_store(limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    writer._live.ttl = 3600.0
    assert kinds(writer) == {"old"}  # looked up now
    looked_up = writer._live.fresh()
    assert looked_up is not None
    rebuilds = writer.rebuilds
    ws.write("memory/bot/n3.md", "---\ndescription: edited 3\n---\n[[n4]]\n")
    brain.sync(["memory/bot/n3.md"])
    assert writer.rebuilds == rebuilds  # a change of the live graph, no new generation
    kept = writer._live.fresh()
    assert kept is not None  # kept across the commit: not forgotten, and not looked up again
    assert kept[1] == looked_up[1]  # the same set, as the write's own fenced read found it
    assert kept[0] >= looked_up[0]  # (its time: the write's, not the lookup's before it)
    assert "edited" in kinds(writer)  # its own write, read at once all the same
    brain.close()
