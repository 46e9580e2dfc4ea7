"""The writer takes what its own commit left as read: the graph token it stamped and the live set.

At 16 writes/s (bench_replicas), more than half of a sync's round trips to Neo4j were reads
of things the writer had just written itself: the graph token (readcache.py), read again
after every commit before the next read, and the live set (generations/live.py), looked up
again in a transaction of its own. Now the commit's own token and the live set its fenced
read found are kept as if read; every answer is still dropped at the commit, so the next
read goes to the database and shows the write (a writer reads its own writes), and the stamp
and the change-log entry are one statement, the entry as before (test_change_log.py and
test_replicas.py check what a replica follows).

Planted bugs, each seen to fail: `_write_plan` without `_reads.wrote` (the token is read
again: `token_reads` grows), without `_live.saw` (no live set kept after the write), and
MARK_AND_LOG stamping no token (the replica's kept answer is never dropped).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from brain.store.base import WriteBatch
from brain.store.neo4j.reads.readcache import GRAPH_TOKEN
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import ReplicaOpener, StoreMaker
from tests.neo4j.test_kept_reads import described, until

pytestmark = pytest.mark.neo4j


def test_the_writer_takes_its_commits_token_and_live_set_as_read(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    store = make_store()
    brain = ws.brain(store)
    store._reads.window = 3600.0  # trusted as long as the test runs: no wall clock decides
    store._live.ttl = 3600.0
    assert described(store, "memory/bot/b.md") == "b"

    for n in range(3):
        brain.sync([ws.write("memory/bot/b.md", note(f"b{n}", "[[a]]"))])
        token_reads = store._reads.token_reads
        live = store._live.fresh()
        assert live is not None  # the live set the write's fenced read found, kept
        assert described(store, "memory/bot/b.md") == f"b{n}"  # its own write, read at once
        assert store.links_from(["memory:bot/b"])["memory:bot/b"][0].target_id == "memory:bot/a"
        assert store._reads.token_reads == token_reads  # the token its commit stamped: not read back
        with store._driver.session(database=store.database) as session:
            stamped = session.run(GRAPH_TOKEN).single(strict=True)["graph"]
        assert store._reads._seen == stamped  # the very token the database holds


def test_a_write_alone_leaves_the_live_set_known(tmp_path: Path, make_store: StoreMaker) -> None:
    """No read between: the write's own fenced read is what the kept live set comes from."""
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    store = make_store()
    ws.brain(store)
    store._live.ttl = 3600.0
    node = store.memory_by_path("memory/bot/a.md")
    assert node is not None
    store._live.forget()
    store.write(WriteBatch(memories=[replace(node, description="a, again")]))
    assert store._live.fresh() is not None
    assert described(store, "memory/bot/a.md") == "a, again"


def test_a_replica_follows_the_one_statement_stamp_and_log(
    tmp_path: Path, make_store: StoreMaker, open_replica: ReplicaOpener
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    brain = ws.brain(make_store())
    replica = open_replica()
    position = replica.log_position()
    assert described(replica, "memory/bot/a.md") == "a"
    for n in range(3):
        brain.sync([ws.write("memory/bot/a.md", note(f"a{n}"))])
        until(lambda n=n: described(replica, "memory/bot/a.md") == f"a{n}",  # type: ignore[misc]
              "the replica's answer to move with the stamp")
    position, entries = replica.changes_after(position, 100)
    assert [e["id"] for e in entries] == ["memory:bot/a"] * 3
    assert {e["kind"] for e in entries} == {"changed"}
