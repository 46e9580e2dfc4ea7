"""A rebuild too big for one transaction: written as a new generation, switched in at once.

The threshold (`Limits.atomic_rows`, 400,000 rows in production) is lowered so a workspace of
60 notes is "too big": its rebuild spans many transactions. A reader on its own driver polls
the database all the while, one query per look, and must see the old graph or the new one,
never a mix; the change log gets the rebuild's changes with the switch. The same holds for
a big incremental batch of a running writer, written onto a copy of the live generation.
"""

from __future__ import annotations

import contextlib
import gc
import shutil
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from brain.service.brain import Brain
from brain.store.base import LogPosition, SearchWhere, StoreUnavailable
from brain.store.neo4j.generations import rebuild as rebuild_module
from brain.store.neo4j.generations.staged import LEGACY_LABELS, STAGED_LABELS, STAGED_PREFIX
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.contract.helpers import Workspace, note, reference_export
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.faults import Crash, Injector

pytestmark = pytest.mark.neo4j

NOTES = 60
# One look: every note's description and the number of links, in one read.
LOOK = """
MATCH (m:Memory)
WITH collect(m.description) AS descriptions
OPTIONAL MATCH (:Memory)-[r:LINKS_TO]->()
RETURN descriptions, count(r) AS links
"""
SMALL = Limits(node_rows=10, memory_rows=5, link_rows=20, transaction_rows=30, memory_weight=2,
               atomic_rows=60)


@contextlib.contextmanager
def looking_after_commits(look: Callable[[], None]) -> Iterator[None]:
    """Runs `look` on a thread of its own while the block runs: once at the start, then
    again after each transaction a store of this process commits (`Neo4jStore._commit`),
    and once after the block. A look runs beside the writer's next transaction, as before,
    but no longer as fast as it can over a state it already saw: every state the writer
    leaves between two transactions is looked at (the last one too, after the block), where
    a reader looking without pause looked at each many times, on the client's and the
    server's CPU the writer it watched needed."""
    committed, done = threading.Event(), threading.Event()
    real = Neo4jStore._commit

    def commit(self: Neo4jStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return real(self, *args, **kwargs)
        finally:
            committed.set()

    def poll() -> None:
        while True:
            look()
            if done.is_set():
                return
            committed.wait()
            committed.clear()

    thread = threading.Thread(target=poll)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Neo4jStore, "_commit", commit)
        thread.start()
        try:
            yield
        finally:
            done.set()
            committed.set()
            thread.join(30)


@contextlib.contextmanager
def polling(reader: Neo4jStore, look: str) -> Iterator[tuple[Counter[tuple[str, int]], list[str]]]:
    """A reader that looks at the graph after each commit while the block runs (see
    `looking_after_commits`): `seen` counts (generation, links) of each look, `mixed` says
    where a look found two generations.

    A look during which the change log moved is left out: it ran across the switch's commit,
    and Neo4j reads are read-committed, not snapshots, so it may read part of each side (a
    loaded CI machine saw 116 links, between 60 and 120). The switch appends the log's one
    entry, so every look while the new generation is staged counts."""
    seen: Counter[tuple[str, int]] = Counter()
    mixed: list[str] = []

    def once() -> None:
        position = reader.log_position()
        found = reader._read(look)[0]
        if reader.log_position() != position:
            return
        kinds = {d.split()[0] for d in found["descriptions"]}
        if len(kinds) != 1 or len(found["descriptions"]) != NOTES:
            mixed.append(f"{sorted(kinds)} in {len(found['descriptions'])} notes")
        seen[(min(kinds), int(found["links"]))] += 1

    with looking_after_commits(once):
        yield seen, mixed


def write_notes(ws: Workspace, generation: str, notes: int = NOTES) -> None:
    for i in range(notes):
        links = f"[[n{(i + 1) % notes}]]" + (" [[n0]]" if generation == "new" else "")
        ws.write(f"memory/bot/n{i}.md", note(f"{generation} {i}", links))


def bot_workspace(root: Path, notes: int = NOTES) -> Workspace:
    """An agent `bot` with `notes` notes of the "old" generation."""
    ws = Workspace(root)
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    write_notes(ws, "old", notes)
    return ws


def count(store: Neo4jStore, labels: str) -> int:
    """Nodes under `labels` as a reader sees them: the plain labels name the live set."""
    return int(store._read(f"MATCH (n:{labels}) RETURN count(n) AS n")[0]["n"])


def raw_count(store: Neo4jStore, label: str) -> int:
    """Nodes that carry `label` itself, whichever set is live."""
    query = f"MATCH (n:{label}) RETURN count(n) AS n"
    return int(store._driver.execute_query(query, database_=store.database).records[0]["n"])


def test_a_reader_polling_during_a_rebuild_never_sees_a_mix(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    ws = bot_workspace(tmp_path / "ws")
    first = make_store(limits=SMALL)
    Brain(ws.root, first).sync()
    assert first.rebuilds == 1  # 60 notes are "too big" here: even the first ingest is one
    position = first.log_position()
    first.close()

    write_notes(ws, "new")  # every note changes while brain is down
    reader = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    with polling(reader, LOOK) as (seen, mixed):
        writer = make_store(limits=SMALL)
        brain = Brain(ws.root, writer)
        transactions = writer.transactions
        brain.sync()

    assert writer.rebuilds == 1
    assert writer.transactions - transactions > 5, "the rebuild should span many transactions"
    assert mixed == []
    assert set(seen) <= {("old", NOTES), ("new", 2 * NOTES)}
    assert seen[("old", NOTES)] > 0  # the reader did look while the new generation was written
    assert writer.export() == reference_export(ws.root)
    assert count(writer, "|".join(STAGED_LABELS)) == 0  # the old generation is gone after the switch
    # Two rebuilds: the graph is under the documented labels after each.
    assert raw_count(writer, "Memory") == NOTES
    assert raw_count(writer, STAGED_PREFIX + "Memory") == 0
    # The switch carried the rebuild's changes into the change log: one entry, every note.
    _, entries = reader.changes_after(LogPosition(position.log_id, position.seq))
    assert sorted(e["id"] for e in entries) == sorted(f"memory:bot/n{i}" for i in range(NOTES))
    assert reader.log_position().seq == position.seq + 1
    brain.close()
    reader.close()


def test_search_vectors_survive_a_rebuild(tmp_path: Path, make_store: StoreMaker) -> None:
    """A staged note takes the vector of the live note of the same content: no re-embedding."""
    ws = Workspace(tmp_path / "ws")
    write_notes(ws, "old")
    store = make_store(limits=SMALL)
    brain = Brain(ws.root, store)
    brain.sync()
    kept = store.get_nodes(["memory:bot/n0"])["memory:bot/n0"]
    store.put_vectors([(kept.id, kept.hash, [0.5] * 384)])
    brain.close()

    for i in range(1, NOTES):  # every note but n0 changes
        ws.write(f"memory/bot/n{i}.md", note(f"new {i}", "[[n0]]"))
    again = make_store(limits=SMALL)
    Brain(ws.root, again).sync()
    assert again.rebuilds == 1
    assert again.vector_hashes() == {kept.id: kept.hash}
    assert again.vector_search([0.5] * 384, SearchWhere(), 1)[0][0] == kept.id


# The notes of scope `bot` only: the big incremental test keeps other nodes unchanged.
LOOK_BOT = """
MATCH (m:Memory {scope: 'bot'})
WITH collect(m.description) AS descriptions
OPTIONAL MATCH (:Memory {scope: 'bot'})-[r:LINKS_TO]->()
RETURN descriptions, count(r) AS links
"""


def test_a_big_change_seen_by_a_running_writer_is_switched_in_at_once(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    """An incremental batch past `atomic_rows` (every note rewritten under a running server,
    e.g. a branch switch): the live graph is copied to a new generation, the batch written onto
    it, and switched in at once; what did not change keeps its vector, links and owner."""
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/shared/keep.md", note("keep", "[[n0]] [[nowhere]]"))
    ws.write("workflows/deploy.md", "# Deploy\n")
    write_notes(ws, "old")
    writer = make_store(limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    kept = writer.get_nodes(["memory:shared/keep"])["memory:shared/keep"]
    writer.put_vectors([(kept.id, kept.hash, [0.5] * 384)])
    position = writer.log_position()

    reader = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    with polling(reader, LOOK_BOT) as (seen, mixed):
        write_notes(ws, "new")
        rebuilds, transactions = writer.rebuilds, writer.transactions
        result = brain.sync()  # a rescan of the running writer: an incremental batch

    assert len(result.batch.memories) == NOTES
    assert writer.rebuilds == rebuilds + 1
    assert "copy_s" in writer.last_rebuild
    assert writer.transactions - transactions > 5, "the change should span many transactions"
    assert mixed == []
    assert set(seen) <= {("old", NOTES), ("new", 2 * NOTES)}
    assert seen[("old", NOTES)] > 0  # the reader did look while the new generation was written
    assert writer.export() == reference_export(ws.root)
    assert count(writer, "|".join(STAGED_LABELS)) == 0
    assert writer.vector_hashes() == {kept.id: kept.hash}  # copied with its note
    _, entries = reader.changes_after(LogPosition(position.log_id, position.seq))
    assert sorted(e["id"] for e in entries) == sorted(f"memory:bot/n{i}" for i in range(NOTES))
    assert reader.log_position().seq == position.seq + 1  # one entry, with the switch
    brain.close()
    reader.close()


def test_a_vector_put_while_a_generation_is_staged_survives_the_switch(
    tmp_path: Path, make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The indexer puts a vector after the live generation was copied and before the switch
    (the new vector of a note it was embedding): the switched-in generation has it."""
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/shared/keep.md", note("keep", "[[n0]]"))
    write_notes(ws, "old")
    writer = make_store(limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    kept = writer.get_nodes(["memory:shared/keep"])["memory:shared/keep"]
    staging = rebuild_module.stream_transactions

    def put_then_stage(*args: object, **kwargs: object) -> Iterator[object]:
        if kwargs.get("staged"):  # the transactions that write onto the copy: it is done
            writer.put_vectors([(kept.id, kept.hash, [0.5] * 384)])
        yield from staging(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuild_module, "stream_transactions", put_then_stage)
    write_notes(ws, "new")
    rebuilds = writer.rebuilds
    brain.sync()
    assert writer.rebuilds == rebuilds + 1
    assert "copy_s" in writer.last_rebuild
    assert writer.vector_hashes() == {kept.id: kept.hash}
    brain.close()


def test_the_copy_leaves_out_what_the_big_change_rewrites(
    tmp_path: Path, make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live generation is copied without the links of the notes the batch rewrites (it
    writes them all again), and an unresolved node that only those links pointed at does not
    outlive them in the new generation."""
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/shared/keep.md", note("keep", "[[n0]] [[nowhere]]"))
    for i in range(NOTES):
        ws.write(f"memory/bot/n{i}.md", note(f"old {i}", f"[[n{(i + 1) % NOTES}]] [[gone-{i}]]"))
    writer = make_store(limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    assert count(writer, "Unresolved") == NOTES + 2  # gone-i, nowhere, n0 (keep is shared)
    staging = rebuild_module.stream_transactions
    copied: list[int] = []

    def count_then_stage(*args: object, **kwargs: object) -> Iterator[object]:
        if kwargs.get("staged"):  # the copy is done; the batch is about to be written on it
            copied.append(count_links(writer, STAGED_PREFIX + "Memory"))
        yield from staging(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuild_module, "stream_transactions", count_then_stage)
    write_notes(ws, "new")  # every n-note rewritten, none links to gone-i any more
    rebuilds = writer.rebuilds
    brain.sync()
    assert writer.rebuilds == rebuilds + 1
    assert copied == [2]  # keep's two links; the 120 of the rewritten notes were left out
    assert count(writer, "Unresolved") == 2  # nowhere and n0, still linked from keep
    assert writer.export() == reference_export(ws.root)
    assert count(writer, "|".join((*STAGED_LABELS, *LEGACY_LABELS))) == 0
    brain.close()


def count_links(store: Neo4jStore, source_label: str) -> int:
    query = f"MATCH (:{source_label})-[r:LINKS_TO]->() RETURN count(r) AS n"
    return int(store._read(query)[0]["n"])


@pytest.mark.parametrize(("example", "edited"), [
    ("space", "assistant/memory/todo.md"),
    ("mindlink", "concierge/memory/entries/user-profile.md"),
    ("lab", "projects/hydra/hydra-config.md"),
])
def test_the_copy_of_a_generation_keeps_every_kind_of_node(
    example: str, edited: str, tmp_path: Path, make_store: StoreMaker
) -> None:
    """Every node kind a layout adds (File, DailyNote, Skill, Tool) survives the copy: here
    every change is "too big" (one row), so one edited note makes a new generation."""
    root = tmp_path / example
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / example, root)
    writer = make_store(limits=Limits())
    brain = Brain(root, writer)
    brain.sync()
    writer.limits = replace(writer.limits, atomic_rows=1)
    with (root / edited).open("a") as f:
        f.write("\nOne more line.\n")
    rebuilds = writer.rebuilds
    brain.sync()
    assert writer.rebuilds == rebuilds + 1
    reference = Brain(root)
    reference.sync()
    assert writer.export() == reference.store.export()
    assert count(writer, "|".join(STAGED_LABELS)) == 0
    brain.close()


def test_a_big_change_cut_short_leaves_the_old_graph_and_the_next_sync_writes_it(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    """A writer that dies while copying the live generation: readers keep the old graph, the
    staged nodes stay unseen, and the next sync (a full one: the ingester forgot) completes."""
    ws = bot_workspace(tmp_path / "ws")
    injector = Injector()
    writer = make_store(injector=injector, limits=SMALL)
    brain = Brain(ws.root, writer)
    brain.sync()
    old = writer.export()
    write_notes(ws, "new")
    injector.fault, injector.at = "crash", injector.runs + 12  # a few pages into the copy
    with pytest.raises(Crash):
        brain.sync()
    assert count(writer, "|".join(STAGED_LABELS)) > 0  # cut short while staging
    assert writer.export() == old
    injector.fault = None
    brain.sync()
    assert writer.export() == reference_export(ws.root)
    assert count(writer, "|".join((*STAGED_LABELS, *LEGACY_LABELS))) == 0
    brain.close()


def test_a_server_without_memory_for_a_transaction_is_one_line_naming_the_settings(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    """A rebuild's switch is one transaction of every node: 1,000,000 notes needed more than
    the 4.2 GB of transaction memory a 6 GB heap allows. The sync says which settings to
    raise (not a traceback after the driver's retries), readers keep the old graph, and a
    sync with the memory completes."""
    ws = Workspace(tmp_path / "ws")
    write_notes(ws, "old")
    injector = Injector()
    writer = make_store(injector=injector, limits=SMALL, retry_seconds=0.2)
    brain = Brain(ws.root, writer)
    brain.sync()
    old = writer.export()
    write_notes(ws, "new")
    injector.fault, injector.at, injector.times = "out-of-memory", injector.runs + 1, 10**6
    with pytest.raises(StoreUnavailable) as caught:
        brain.sync()
    assert str(caught.value) == (
        f"Neo4j at {neo4j_login[0]} has too little memory for one of brain's transactions (The "
        "allocation of an extra 2.0 MiB would use more than the limit 2.8 GiB. Currently using 2.8 "
        "GiB. dbms.memory.transaction.total.max threshold reached): give the server a bigger heap "
        "(server.memory.heap.max_size) or raise dbms.memory.transaction.total.max"
    )
    assert writer.export() == old
    injector.fault = None
    brain.sync()
    assert writer.export() == reference_export(ws.root)
    brain.close()


@pytest.mark.parametrize("limits", [SMALL, Limits()], ids=["rebuild", "one-transaction"])
def test_a_first_sync_keeps_none_of_the_rows_it_sent(
    tmp_path: Path, make_store: StoreMaker, limits: Limits
) -> None:
    """The driver keeps each statement's parameters in its results, in reference cycles. A
    first sync pauses the cyclic collector and freezes what is left (brain/gcpause.py), so a
    row still held there is never freed (0.6 GB at 100,000 notes)."""
    ws = Workspace(tmp_path / "ws")
    write_notes(ws, "old")
    gc.collect()
    store = make_store(limits=limits)
    brain = Brain(ws.root, store)
    brain.sync()
    gc.unfreeze()  # what the sync left behind, as garbage the collector can now see
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        # type(), not isinstance: the garbage of a whole test session holds dead weak proxies.
        kept = [o for o in gc.garbage if type(o) is dict and _row_of_a_note(o)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert len(kept) == 0, f"{len(kept)} rows kept, e.g. {kept[0]}"
    assert store.export() == reference_export(ws.root)
    brain.close()


def _row_of_a_note(row: dict[object, object]) -> bool:
    """A row the store sent about a note of write_notes: its node, its links or their drop."""
    props = row.get("props")
    node = props.get("id") if type(props) is dict else None
    return any(type(v) is str and v.startswith("memory:bot/n") for v in (node, row.get("source")))
