"""Memory health on Neo4j is answered from counters kept in step with this process's writes
(brain/store/neo4j/health/counters.py): an edit keeps them (no recount), and every change they cannot
follow makes the next question count again: another process's write, a rebuild written as
a new generation, a clear. Each answer equals the recount from the store's plain reads
(tests/contract/test_health.py `recount`).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.health import HealthAsk
from brain.store.neo4j.health import counters as neo4j_health
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from brain.store.visibility import EVERYTHING
from tests.contract.helpers import Workspace, note
from tests.contract.test_health import (
    ALICE,
    BOB,
    T0,
    answered,
    check_all,
    edit,
    known,
    read_all,
    recount,
)
from tests.neo4j.conftest import StoreMaker

pytestmark = pytest.mark.neo4j


def same_as_recount(store: Neo4jStore) -> None:
    read = read_all(store)  # nothing changes between the asks: the recount reads once
    for reach in (EVERYTHING, ALICE, BOB):
        ask = HealthAsk(reach, None, T0 + 1000)
        assert answered(store, ask) == recount(store, ask, read=read), reach


def test_edits_keep_the_counters_and_another_writer_makes_them_count_again(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    ws = Workspace(tmp_path)
    known(ws)
    store = make_store(limits=Limits())
    brain = Brain(ws.root, store)
    brain.sync()
    same_as_recount(store)
    assert store.health_recounts() == 1  # the first question counts them, once
    brain.sync([ws.write("memory/alice/lonely.md", note("no longer alone", "[[plan]] [[ghost]]"))])
    brain.sync([ws.delete("memory/alice/plan.md")])
    same_as_recount(store)
    assert store.health_recounts() == 1  # kept by the writes: no recount
    # Another process writes (a second store on its own driver, the same database); the
    # position is read on every question here (in service, at most once a second).
    store.health_stamp_ttl = 0.0
    other = make_store(limits=Limits())
    ws.write("memory/bob/b3.md", note("b3", "[[alice/todo]] [[ghost]]"))
    Brain(ws.root, other).sync()
    same_as_recount(store)
    assert store.health_recounts() == 1  # its logged write was followed, not counted again
    assert store.health_followed == 1
    # A write without a change-log entry (a bare `write`) cannot be followed: counted again.
    other.write(WriteBatch(deletes=["memory:bob/b3"]))
    same_as_recount(store)
    assert store.health_recounts() == 2


def test_a_second_process_follows_random_writes_through_the_change_log(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    """A reader process (a replica, a dashboard's server) keeps its counters in step with
    another process's writes by the change log: every answer equals the recount, as an
    admin and as each agent, and it never counts again."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    reader = make_store(limits=Limits())
    reader.health_stamp_ttl = 0.0
    check_all(reader, T0 + 100)
    assert reader.health_recounts() == 1
    rng = random.Random(42)
    for step in range(25):
        edit(ws, brain, rng)
        if step % 3 == 0:
            check_all(reader, T0 + 10 * rng.randint(0, 20))
    check_all(reader, T0 + 10 * rng.randint(0, 20))
    assert reader.health_recounts() == 1  # every write followed through the log
    assert reader.health_followed >= 9
    check_all(writer, T0 + 100)  # the writer's own counters, followed by its writes
    assert writer.health_recounts() == 1


def test_a_follower_reads_the_notes_a_write_changed_afresh_not_from_kept_answers(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    """A replica keeps the answers of its reads while the graph token it read last is fresh
    (readcache.py). Following a write through the log must read the notes as written, even
    right after the same reads were answered (a note view of the note edited)."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    reader = make_store(limits=Limits())
    reader.health_stamp_ttl = 0.0
    reader._reads.window = 3600.0  # the token trusted all along: only a drop makes it read again
    same_as_recount(reader)
    lonely, plan = "memory:alice/lonely", "memory:alice/plan"
    reader.links_from({lonely})  # what a note view reads, kept
    reader.get_nodes({lonely, plan})
    brain.sync([ws.write("memory/alice/lonely.md", note("no longer alone", "[[plan]] [[ghost]]"))])
    same_as_recount(reader)
    assert reader.health_recounts() == 1
    assert reader.health_followed == 1


def test_a_rebuild_and_a_clear_make_the_counters_count_again(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    ws = Workspace(tmp_path)
    known(ws)
    store = make_store(limits=Limits())
    brain = Brain(ws.root, store)
    brain.sync()
    same_as_recount(store)
    rebuilds = store.rebuilds  # (a first sync into an empty database is one)
    # A batch past `atomic_rows` is written as a new generation (generations/rebuild.py).
    store.limits = replace(store.limits, atomic_rows=1)
    for name in ("plan", "todo", "lonely"):
        ws.write(f"memory/alice/{name}.md", note(name, "[[secret]] [[faq]]"))
    ws.write("memory/shared/faq.md", note("faq", ""))
    brain.sync()
    assert store.rebuilds == rebuilds + 1
    same_as_recount(store)
    assert store.health_recounts() == 2
    store.clear()
    assert store.health_counts(HealthAsk()) == []
    assert store.health_recounts() == 3


def test_a_write_of_many_notes_is_counted_again_not_followed(
    make_store: StoreMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past FOLLOW_MOST notes a write would read them all with their bodies: the next
    question counts again instead (notes without bodies, links by pages)."""
    monkeypatch.setattr(neo4j_health, "FOLLOW_MOST", 3)
    ws = Workspace(tmp_path)
    known(ws)
    store = make_store(limits=Limits())
    brain = Brain(ws.root, store)
    brain.sync()
    same_as_recount(store)
    brain.sync([ws.write("memory/alice/lonely.md", note("one note", "[[plan]]"))])
    same_as_recount(store)
    assert store.health_recounts() == 1  # one note: followed
    brain.sync([ws.write(f"memory/bob/b{n}.md", note(f"b{n}", "[[ghost]] [[alice/plan]]")) for n in range(4)])
    same_as_recount(store)
    assert store.health_recounts() == 2  # four notes: counted again
