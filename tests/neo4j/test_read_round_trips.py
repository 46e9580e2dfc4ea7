"""What a replica's reads cost in round trips (issue 43 goal 4: a write on disk seen on a
replica's GraphQL within 500 ms at 16 writes/s), on a real Neo4j, read off the driver's own
log of the Bolt messages it sends.

A read that misses the kept answers is one auto-commit query (RUN, PULL), not a managed
transaction (BEGIN, RUN, PULL, then COMMIT and a second wait: brain/store/neo4j/reads/autocommit.py);
the graph token is read once for the resolvers of a request that ask at once, not once by
each (brain/store/neo4j/reads/readcache.py).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import ReplicaOpener, StoreMaker

pytestmark = pytest.mark.neo4j


def sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The Bolt messages the driver sent, by name (its debug log: `[#0001]  C: RUN ...`)."""
    return [r.getMessage().split("C: ", 1)[1].split(" ", 1)[0]
            for r in caplog.records if "C: " in r.getMessage()]


def test_a_replicas_reads_are_one_round_trip_each(
    tmp_path: Path, make_store: StoreMaker, caplog: pytest.LogCaptureFixture,
    open_replica: ReplicaOpener,
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    brain = ws.brain(make_store())
    replica = open_replica()
    replica._live.ttl = 3600.0  # nothing switches generations here: the live set stays known
    assert replica.memory_by_path("memory/bot/a.md") is not None  # (the live set looked up)
    brain.sync([ws.write("memory/bot/b.md", note("b, edited by the writer"))])
    replica._reads.drop()  # as reading the change log does: the next reads miss
    with caplog.at_level(logging.DEBUG, logger="neo4j.io"):
        found = replica.memory_by_path("memory/bot/b.md")  # the token, then the note
        stats = replica.stats()
    assert found is not None
    assert found.description == "b, edited by the writer"
    assert stats.memories == 2
    messages = sent(caplog)
    assert messages.count("RUN") == 3, messages  # the token, the note, the stats
    assert "BEGIN" not in messages, messages
    assert "COMMIT" not in messages, messages


def test_resolvers_asking_at_once_read_the_graph_token_once(
    tmp_path: Path, make_store: StoreMaker, open_replica: ReplicaOpener
) -> None:
    ws = Workspace(tmp_path / "ws")
    for name in "abcdefgh":
        ws.write(f"memory/bot/{name}.md", note(name))
    ws.brain(make_store())
    replica = open_replica()
    paths = [f"memory/bot/{name}.md" for name in "abcdefgh"]
    for path in paths:
        replica.memory_by_path(path)  # kept now
    reads = replica._reads
    reads.window = 3600.0
    token = reads._token

    def slow_token() -> str | None:
        time.sleep(0.5)  # every resolver arrives while the first read is under way
        return token()

    reads._token = slow_token
    reads._checked = time.monotonic() - 7200.0  # the last read of the token is too old
    before = reads.token_reads
    start = threading.Barrier(len(paths))
    answers: dict[str, str | None] = {}

    def resolve(path: str) -> None:
        start.wait()
        found = replica.memory_by_path(path)
        answers[path] = None if found is None else found.description

    threads = [threading.Thread(target=resolve, args=(path,)) for path in paths]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert answers == {path: path[-4] for path in paths}
    assert reads.token_reads == before + 1


def test_following_the_change_log_keeps_the_live_set_known(
    tmp_path: Path, make_store: StoreMaker, caplog: pytest.LogCaptureFixture,
    open_replica: ReplicaOpener,
) -> None:
    # The log's poll reads the live set after the entries it finds: the reads that answer
    # the subscribers next need no lookup of their own (a transaction: BEGIN, two RUNs, COMMIT).
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    brain = ws.brain(make_store())
    replica = open_replica()
    replica._live.ttl = 3600.0  # (the test's pace is not the point: nothing switches here)
    position = replica.log_position()
    brain.sync([ws.write("memory/bot/a.md", note("a, changed"))])
    position, entries = replica.changes_after(position)
    assert [entry["id"] for entry in entries] == ["memory:bot/a"]
    assert replica._live.fresh() is not None
    with caplog.at_level(logging.DEBUG, logger="neo4j.io"):
        found = replica.memory_by_path("memory/bot/a.md")
    assert found is not None
    assert found.description == "a, changed"
    assert "BEGIN" not in sent(caplog), sent(caplog)
