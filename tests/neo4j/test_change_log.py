"""The change log replicas follow: an entry commits in the same transaction as its batch.

A writer that died between a batch and its entry used to leave the replicas one event short
for good (the next start finds nothing to write: the batch was committed). Now the entry is
the batch's last statement: a crash there leaves neither, and the change is written and
logged when the writer comes back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.faults import Crash, Injector

pytestmark = pytest.mark.neo4j


def test_a_batch_and_its_change_log_entry_commit_together(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    injector = Injector()
    brain = ws.brain(make_store(injector))
    reader = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)

    # One change: one transaction (its data and its entry), and one entry more in the log.
    start = reader.log_position()
    runs, commits = injector.runs, injector.commits
    brain.sync([ws.write("memory/bot/a.md", note("a1"))])
    assert injector.commits - commits == 1
    per_change = injector.runs - runs
    after, entries = reader.changes_after(start)
    assert (after.seq, [e["id"] for e in entries]) == (start.seq + 1, ["memory:bot/a"])

    # The same change again, and the writer dies at its last statement: the entry.
    injector.fault, injector.at = "crash", injector.runs + per_change
    with pytest.raises(Crash):
        brain.sync([ws.write("memory/bot/a.md", note("a2"))])
    assert injector.fired == 1
    assert reader.log_position() == after  # no entry...
    assert reader.get_nodes(["memory:bot/a"])["memory:bot/a"].description == "a1"  # type: ignore[union-attr]

    injector.fault = None  # ...and no data: the writer's next sync writes both
    brain.sync()
    end, entries = reader.changes_after(after)
    assert (end.seq, [e["id"] for e in entries]) == (after.seq + 1, ["memory:bot/a"])
    assert reader.get_nodes(["memory:bot/a"])["memory:bot/a"].description == "a2"  # type: ignore[union-attr]
    brain.close()
    reader.close()
