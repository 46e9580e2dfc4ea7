"""Memory health's first count on Neo4j (brain/store/neo4j/health/first_count.py): a process
starting on a database another process wrote reads only the fields the counters need, a
page of notes per query, instead of every note and link as objects. Its counters must be
the plain count's exactly (the links it keeps too: later writes are followed by them), and
every answer equal to the recount from the store's plain reads, as an admin and each agent.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.neo4j.health import first_count as health_count
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.contract.helpers import Workspace, note
from tests.contract.test_health import SCOPES, T0, check_all, edit, known
from tests.neo4j.conftest import StoreMaker

pytestmark = pytest.mark.neo4j


def fresh(make_store: StoreMaker, lean: bool) -> Neo4jStore:
    """A store on its own driver, as a process started now holds (a dashboard's server)."""
    store = make_store(limits=Limits())
    store.health_lean_count = lean
    store.health_stamp_ttl = 0.0
    return store


def counted(store: Neo4jStore) -> dict[str, object]:
    """What a count leaves: each note's facts as filed and each note's kept links."""
    index = store._health_kept()
    groups = {
        key: (g.notes, g.base0, g.rescued, g.orphans, g.no_desc, g.no_type, g.indegree)
        for key, g in index.groups.items() if g.notes
    }
    return {"notes": dict(index.notes), "groups": groups, "links": +index.links, "out": dict(index.out),
            "rows": {s: sorted(k, key=repr) for s, k in store._health_rows.items()}}


def test_a_fresh_process_counts_lean_and_equals_the_plain_count_and_a_recount(
    make_store: StoreMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(health_count, "PAGE", 3)  # several pages: the page boundaries matter
    ws = Workspace(tmp_path)
    known(ws)
    # Links of every kind: into another agent's note (kept with the target as written),
    # ambiguous (candidates), to a missing anchor, broken; notes without type or description.
    ws.write("memory/shared/plan.md", note("", "[[plan]] [[alice/secret]] [[todo#Nope]]", ""))
    for scope in SCOPES:
        ws.write(f"memory/{scope}/dup.md", note("dup", "[[plan]] [[dup]]"))
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    rng = random.Random(7)
    for step in range(12):
        edit(ws, brain, rng)
        lean, plain = fresh(make_store, True), fresh(make_store, False)
        assert counted(lean) == counted(plain), step
        if step % 4 == 0:
            check_all(lean, T0 + 10 * rng.randint(0, 20))
        assert lean.health_recounts() == 1
    # The lean-counted process then follows the writer's writes through the change log.
    for _ in range(6):
        edit(ws, brain, rng)
    check_all(lean, T0 + 100)
    assert lean.health_recounts() == 1
    assert counted(lean) == counted(fresh(make_store, False))


def test_the_lean_count_reads_no_body_and_one_query_per_page(
    make_store: StoreMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The count reads the counters' fields alone: no note body crosses the wire, and the
    notes come a page per query (not a query per note or per link)."""
    monkeypatch.setattr(health_count, "PAGE", 4)
    ws = Workspace(tmp_path)
    for n in range(10):
        ws.write(f"memory/alice/n{n}.md", note(f"n{n}", f"[[n{(n + 1) % 10}]] " + "body words " * 500))
    Brain(ws.root, make_store(limits=Limits())).sync()
    store = fresh(make_store, True)
    seen: list[tuple[str, int]] = []
    read = store._read_database

    def spy(query: str, params: dict[str, object]) -> list[object]:
        records = read(query, params)
        if query == health_count.COUNT_PAGE:
            seen.append((query, sum(len(repr(r)) for r in records)))
        return list(records)

    monkeypatch.setattr(store, "_read_database", spy)
    check_all(store, T0 + 50)
    assert len(seen) == 3  # 10 notes, 4 a page
    assert sum(size for _, size in seen) < 10 * 500  # a body alone is 5,500 characters


@pytest.mark.parametrize("garble", ["c.writes = toString(c.writes)", "c.sources = 'memory:alice/plan'",
                                    "c.txns = 0", "w.writes = 'many'"])
def test_a_garbled_change_log_makes_a_follower_count_again_not_fail(
    make_store: StoreMaker, tmp_path: Path, garble: str
) -> None:
    """The log is the database's: a follower must not trust an entry (or a workspace node) of
    another shape. Before, a count stored as text raised out of the dashboard's question."""
    ws = Workspace(tmp_path)
    known(ws)
    writer = make_store(limits=Limits())
    brain = Brain(ws.root, writer)
    brain.sync()
    reader = fresh(make_store, True)
    check_all(reader, T0 + 100)
    brain.sync([ws.write("memory/alice/lonely.md", note("no longer alone", "[[plan]] [[ghost]]"))])
    writer._driver.execute_query(
        "MATCH (w:BrainWorkspace {key: 'brain'}) MATCH (c:BrainChange) WHERE c.logId = w.logId "
        f"WITH w, c ORDER BY c.seq DESC LIMIT 1 SET {garble}"
    )
    check_all(reader, T0 + 100)  # answered, and equal to the recount
    assert reader.health_recounts() == 2
    assert reader.health_followed == 0
