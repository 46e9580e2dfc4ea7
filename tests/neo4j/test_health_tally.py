"""Memory health kept in the database (brain/store/neo4j/health/tally.py, tally_answers.py): a
process that starts answers a dashboard's counts, hubs, most wanted and lists from the
writer's tally, without counting the graph, and the answer equals a recount from the store's
plain reads and the embedded store's, as an admin and each agent, per scope and overall, at
several stale cutoffs. Whenever the tally does not match
the graph (a write it was not stored after, a rebuild switched in, a cleared database) or is
not brain's (foreign, garbled, another version), it is ignored and the process counts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import pytest

from brain.model import Link, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore, MemoryFilter, WriteBatch
from brain.store.health import MAX_TOP, HealthAsk
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.health import tally
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note
from tests.contract.test_health import ASKS, SCOPES, T0, answered, edit, known, recount
from tests.neo4j.conftest import Login, StoreMaker

pytestmark = pytest.mark.neo4j

# Cutoffs on a minute (as the service asks, service/health.py `health_ask`) around the
# workspace's clock (a file written every 10 s from T0): before, among and after the notes.
CUTOFFS = [(T0 // 60 + k) * 60 for k in (-1, 0, 1, 2, 4, 9)]
TAG = ("MATCH (h:BrainHealthTally {key: 'brain'}) "
       "RETURN h.graph AS g, h.logId AS l, h.writes AS w, h.payload AS p")


def fresh(make_store: StoreMaker) -> Neo4jStore:
    """A process started now on the database (a replica: it stores nothing)."""
    store = make_store(limits=Limits())
    store.read_only = True
    return store


class ReadOnce:
    """The plain reads a recount makes (every note, their links), read from `store` once for
    the many asks of one check: the graph does not change within it, and reading it again
    for each of 72 asks was most of a check's round trips."""

    def __init__(self, store: Neo4jStore) -> None:
        self.every = store.list_memories(MemoryFilter(), bodies=False)
        self.links = store.links_from([m.id for m in self.every])

    def list_memories(self, where: MemoryFilter, *, bodies: bool = True) -> list[MemoryNode]:
        assert (where, bodies) == (MemoryFilter(), False)  # what was read
        return self.every

    def links_from(self, ids: Iterable[str]) -> dict[str, list[Link]]:
        assert list(ids) == [m.id for m in self.every]
        return self.links


def counts_equal_a_recount(store: Neo4jStore, cutoffs: list[int] = CUTOFFS) -> None:
    graph = cast(GraphStore, ReadOnce(store))
    for reach in ASKS:
        for scope in (None, *SCOPES):
            for cutoff in cutoffs:
                ask = HealthAsk(reach, scope, cutoff)
                assert store.health_counts(ask) == recount(graph, ask)["counts"], ask


def answered_from_the_tally(make_store: StoreMaker, ws: Workspace | None = None) -> Neo4jStore:
    store = fresh(make_store)
    counts_equal_a_recount(store)
    assert store.health_recounts() == 0  # no count: every answer was the tally's
    assert store.health_tallied == len(ASKS) * (1 + len(SCOPES)) * len(CUTOFFS)
    every_answer_from_the_tally(make_store, ws)
    return store


def every_answer_from_the_tally(make_store: StoreMaker, ws: Workspace | None) -> None:
    """Hubs, most wanted and every list (walked page by page) too, in another fresh process:
    equal to a recount, and to the embedded store's on the same files (`ws`)."""
    store = fresh(make_store)
    embedded = None
    if ws is not None:
        embedded = MemoryStore()
        Brain(ws.root, embedded).sync()
    graph = cast(GraphStore, ReadOnce(store))
    for reach in ASKS:
        for scope in (None, *SCOPES):
            for cutoff in CUTOFFS[2:3]:  # (the counts above are checked at every cutoff)
                ask = HealthAsk(reach, scope, cutoff)
                found = answered(store, ask, top=MAX_TOP)
                assert found == recount(graph, ask, top=MAX_TOP), ask
                if embedded is not None:
                    assert found == answered(embedded, ask, top=MAX_TOP), ask
    assert store.health_recounts() == 0  # every answer was the tally's


def counted_not_tallied(make_store: StoreMaker) -> None:
    store = fresh(make_store)
    counts_equal_a_recount(store, CUTOFFS[:2])
    assert store.health_tallied == 0
    assert store.health_recounts() == 1


def put_tally(store: Neo4jStore, **fields: object) -> None:
    """Overwrite the tally's node as another program (or a damaged one) would."""
    found = store._read_database(TAG, {})[0]
    params = {"g": found["g"], "l": found["l"], "w": found["w"], "p": found["p"], "v": tally.VERSION,
              **fields}
    store._write_query(
        "MATCH (h:BrainHealthTally {key: 'brain'}) SET h.graph = $g, h.logId = $l, h.writes = $w, "
        "h.payload = $p, h.version = $v", **params)


def counted_writer(make_store: StoreMaker, tmp_path: Path) -> Neo4jStore:
    """A writer that ingested the known workspace and counted it: its tally is stored."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    Brain(ws.root, writer).sync()
    writer.health_counts(HealthAsk())
    return writer


# The graph's position a tally is tagged with (tally.py READ_TAG).
POSITION = ("MATCH (w:BrainWorkspace {key: 'brain'}) "
            "RETURN w.graph AS g, w.logId AS l, w.seq AS s, coalesce(w.writes, 0) AS w")


@dataclass
class Counted:
    """The known workspace as `counted_writer` left it: the graph's position and its tally."""

    position: list[dict[str, object]]
    tally: dict[str, object]


COUNTED: list[Counted] = []


@pytest.fixture
def counted(keep_store: StoreMaker, neo4j_login: Login, tmp_path: Path) -> Neo4jStore:
    """`counted_writer`'s graph, ingested and counted once for the tests that only read it
    or spoil its tally (19 of them; the ingest with its first count was most of each one's work):
    a test finds the same graph at the same position (the change log's id is new with each
    graph), puts the tally back as the writer stored it, and spoils it again. Any other
    graph (another test's, a cleared one) is cleared and counted again."""
    writer = keep_store(limits=Limits())
    if COUNTED and [dict(r) for r in writer._read_database(POSITION, {})] == COUNTED[0].position:
        put_tally(writer, **COUNTED[0].tally)
        assert dict(writer._read_database(TAG, {})[0]) == COUNTED[0].tally  # as it was stored
        return writer
    open_neo4j(neo4j_login).close()
    writer = counted_writer(keep_store, tmp_path)
    COUNTED[:] = [Counted([dict(r) for r in writer._read_database(POSITION, {})],
                          dict(writer._read_database(TAG, {})[0]))]
    return writer


def test_a_fresh_process_answers_counts_from_the_tally_after_random_edits(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    ws = Workspace(tmp_path)
    known(ws)
    ws.write("memory/shared/plan.md", note("", "[[plan]] [[alice/secret]] [[todo#Nope]]", ""))
    for scope in SCOPES:
        ws.write(f"memory/{scope}/dup.md", note("dup", "[[plan]] [[dup]]"))
    writer = make_store(limits=Limits())
    writer.health_tally_delay = 0.0  # stored after each write (in service: once for a second's writes)
    brain = Brain(ws.root, writer)
    brain.sync()
    counted_not_tallied(make_store)  # the writer has not counted: no tally yet
    writer.health_counts(HealthAsk(stale_before=CUTOFFS[0]))  # its first question counts, stores
    answered_from_the_tally(make_store, ws)
    rng = random.Random(11)
    for step in range(14):
        edit(ws, brain, rng)  # the writer follows its write and stores the tally again
        if step % 3 == 0:
            answered_from_the_tally(make_store, ws)
    assert writer.health_recounts() == 1
    # A cutoff not on a minute is the counters' to answer (the tally keeps minutes).
    odd = fresh(make_store)
    ask = HealthAsk(stale_before=T0 + 25)
    assert odd.health_counts(ask) == recount(odd, ask)["counts"]
    assert (odd.health_tallied, odd.health_recounts()) == (0, 1)


def test_a_burst_of_writes_stores_one_tally_after_them_and_close_stores_a_waiting_one(
    make_store: StoreMaker, tmp_path: Path
) -> None:
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    writer.health_tally_delay = 5.0
    brain = Brain(ws.root, writer)
    brain.sync()
    writer.health_counts(HealthAsk())
    for n in range(3):
        brain.sync([ws.write(f"memory/alice/n{n}.md", note(f"n{n}", "[[plan]] [[ghost]]"))])
    # A process asking now finds the tally behind the graph: it waits for the writer's next
    # (at most `health_tally_delay` away) rather than count.
    waiting = fresh(make_store)
    waiting.health_tally_wait = 60.0
    counts_equal_a_recount(waiting)
    assert (waiting.health_recounts(), writer._tally_timer) == (0, None)
    answered_from_the_tally(make_store)
    writer.health_tally_delay = 3600.0
    brain.sync([ws.write("memory/bob/late.md", note("late", "[[alice/plan]]"))])
    counted_not_tallied(make_store)  # within the delay: the tally stored is of before the write
    writer.close()  # a writer that stops stores the tally it was waiting to store
    answered_from_the_tally(make_store)


def test_a_costly_tally_waits_in_proportion_to_its_cost(make_store: StoreMaker, tmp_path: Path) -> None:
    """A tally costs seconds of CPU at 100,000 notes: the next waits `health_tally_cost_factor`
    times the last one's cost, however short `health_tally_delay`, so a steady writer is not
    busy storing them."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    writer.health_tally_delay = 0.001
    writer.health_tally_cost_factor = 1e9  # any tally's cost (> 0) makes the wait long
    brain = Brain(ws.root, writer)
    brain.sync()
    writer.health_counts(HealthAsk())  # counts, and makes and stores the first tally
    assert writer._tally_cost > 0
    answered_from_the_tally(make_store)
    brain.sync([ws.write("memory/alice/n1.md", note("n1", "[[plan]]"))])
    timer = writer._tally_timer
    assert timer is not None
    assert timer.interval >= 1e9 * writer._tally_cost
    counted_not_tallied(make_store)  # not stored yet: the wait is long
    writer.close()  # a writer that stops stores the one waiting
    answered_from_the_tally(make_store)


def test_a_tally_that_does_not_match_the_graph_is_ignored(make_store: StoreMaker, tmp_path: Path) -> None:
    """A write the tally was not stored after (another process's bare write), a rebuild
    switched in as a new generation, a cleared database: the fresh process counts."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    writer.health_counts(HealthAsk())
    answered_from_the_tally(make_store)
    # Another process's write, without the writer's counters following it.
    make_store(limits=Limits()).write(WriteBatch(deletes=["memory:bob/b2"]))
    counted_not_tallied(make_store)
    writer.health_counts(HealthAsk())  # the writer counts again (its log shows a bare write)
    answered_from_the_tally(make_store)
    # A rebuild: the batch past `atomic_rows` is written as a new generation.
    rebuilds = writer.rebuilds
    writer.limits = replace(writer.limits, atomic_rows=1)
    for name in ("plan", "todo", "lonely"):
        ws.write(f"memory/alice/{name}.md", note(name, "[[secret]] [[faq]]"))
    brain.sync()
    assert writer.rebuilds == rebuilds + 1
    counted_not_tallied(make_store)
    writer.limits = Limits()
    writer.health_counts(HealthAsk())
    answered_from_the_tally(make_store)
    # A cleared database: the tally goes with it, and a new graph has none until counted.
    writer.clear()
    assert not writer._read_database(TAG, {})
    assert fresh(make_store).health_counts(HealthAsk()) == []
    Brain(ws.root, writer).sync()
    counted_not_tallied(make_store)


@pytest.mark.parametrize("damage", [
    {"p": "{not json"},
    {"p": None},
    {"p": 42},
    {"v": tally.VERSION + 1},
    {"v": "1"},
    {"w": -5},
    {"w": "7"},
    {"l": "another log"},
    {"g": "another graph"},
    {"p": json.dumps({"v": tally.VERSION, "groups": [["alice", None, -1, 0, 0, 0, [], [], [], []]],
                      "links": []})},
    {"p": json.dumps({"v": tally.VERSION, "groups": [["alice", None, 1, 0, 0, 0, [], [5, 3], [1, 2], []]],
                      "links": []})},
    {"p": json.dumps({"v": tally.VERSION, "groups": [], "links": [["alice", None, "nope", [], 1]]})},
    {"p": json.dumps({"v": tally.VERSION, "groups": [[1, 2, 3]], "links": []})},
    {"p": json.dumps([1, 2])},
    {"p": "[" * 100_000},
], ids=lambda d: ",".join(f"{k}={str(v)[:24]}" for k, v in d.items()))
def test_a_foreign_or_garbled_tally_is_ignored_and_counted(
    counted: Neo4jStore, keep_store: StoreMaker, damage: dict[str, object]
) -> None:
    put_tally(counted, **damage)
    counted_not_tallied(keep_store)


def test_the_tally_is_under_no_documented_label(counted: Neo4jStore) -> None:
    """Issue 42 item 1: a hand-written query on the documented labels never meets it."""
    writer = counted
    labels = writer._read_database("MATCH (h:BrainHealthTally) RETURN labels(h) AS l", {})
    assert [r["l"] for r in labels] == [["BrainHealthTally"]]
    found = writer._read_database("MATCH (n) WHERE NOT any(l IN labels(n) WHERE l STARTS WITH 'Brain') "
                                  "AND n.payload IS NOT NULL RETURN count(n) AS n", {})
    assert found[0]["n"] == 0


@pytest.mark.parametrize("spoil", [
    lambda a: a["entries"][0].__setitem__(2, [len(a["ids"]) + 5, 1]),  # a hub id not in the table
    lambda a: a["entries"][0][4].__setitem__(1, [0, "soon"]),  # a stale time not a number
    lambda a: a.pop("entries"),
], ids=["hub-id", "stale-time", "no-entries"])
def test_a_tally_with_garbled_answers_is_ignored_and_counted(
    counted: Neo4jStore, keep_store: StoreMaker, spoil: object
) -> None:
    """The answers are part of the tally: any of them garbled, none of it is trusted."""
    raw = json.loads(counted._read_database(TAG, {})[0]["p"])
    assert callable(spoil)
    spoil(raw["answers"])
    put_tally(counted, p=json.dumps(raw))
    store = fresh(keep_store)
    ask = HealthAsk(stale_before=CUTOFFS[2])
    assert store.health_counts(ask) == recount(store, ask)["counts"]  # the counts are not trusted either
    assert store.health_hubs(ask, 10) == recount(store, ask, top=10)["hubs"]
    assert (store.health_tallied, store.health_recounts()) == (0, 1)
