"""Answers kept until the graph changes (brain/store/neo4j/reads/readcache.py), on a real Neo4j.

A read asked again while the graph is unchanged is answered without the database; a write
of this process drops every kept answer at once (a writer reads its own writes), and a write
of another process (the writer a replica answers beside) is seen once the graph token moves,
within the cache's window: the tests wait on that condition with a deadline, never a sleep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import ReplicaOpener, StoreMaker

pytestmark = pytest.mark.neo4j


def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def described(store: Neo4jStore, path: str) -> str | None:
    found = store.memory_by_path(path)
    return None if found is None else found.description


def test_a_writer_reads_its_own_writes_and_keeps_answers_between(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    store = make_store()
    brain = ws.brain(store)
    store._reads.window = 3600.0  # no other process writes here: only its own commits drop answers

    stats = store.stats()
    reads = store._reads.misses
    assert store.stats() == stats
    assert described(store, "memory/bot/b.md") == "b"
    assert described(store, "memory/bot/b.md") == "b"
    assert store._reads.misses == reads + 1  # the stats again: kept; the note: read once, then kept

    # Its own write: the very next read sees it (no window, no wait).
    brain.sync([ws.write("memory/bot/b.md", note("b1"))])
    assert described(store, "memory/bot/b.md") == "b1"
    ws.write("memory/bot/c.md", note("c"))
    brain.sync(["memory/bot/c.md"])
    assert store.stats().memories == stats.memories + 1


def test_a_replica_sees_the_writers_write_once_the_graph_token_moves(
    tmp_path: Path, make_store: StoreMaker, open_replica: ReplicaOpener
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a", "[[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    brain = ws.brain(make_store())
    replica = open_replica()
    assert described(replica, "memory/bot/b.md") == "b"
    links = replica.links_from(["memory:bot/a"])
    assert described(replica, "memory/bot/b.md") == "b"  # kept
    hits = replica._reads.hits

    brain.sync([ws.write("memory/bot/b.md", note("b, edited by the writer"))])
    brain.sync([ws.write("memory/bot/a.md", note("a", "[[c]]"))])
    until(lambda: described(replica, "memory/bot/b.md") == "b, edited by the writer",
          "the replica's answer to follow the writer")
    assert replica.links_from(["memory:bot/a"]) != links
    assert [link.target for link in replica.links_from(["memory:bot/a"])["memory:bot/a"]] == ["c"]
    assert replica._reads.hits >= hits


def test_nothing_is_kept_where_nothing_would_tell_of_a_change(make_store: StoreMaker) -> None:
    # A database no brain has claimed has no workspace node, hence no graph token: a change
    # made there would not be seen, so every read goes to the database.
    store = make_store()
    assert store._reads.current() is None
    store.stats()
    store.stats()
    assert store._reads.hits == 0


def test_a_replica_told_of_a_change_answers_with_it(
    tmp_path: Path, make_store: StoreMaker, open_replica: ReplicaOpener
) -> None:
    # The change log commits with its batch: once a replica has read an entry (and tells its
    # subscribers), its answers show the change, whatever the token's window says.
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    brain = ws.brain(make_store())
    replica = open_replica()
    replica._reads.window = 3600.0  # only the change log may tell it of the write
    position = replica.log_position()
    assert described(replica, "memory/bot/a.md") == "a"
    brain.sync([ws.write("memory/bot/a.md", note("a, changed"))])
    assert described(replica, "memory/bot/a.md") == "a"  # kept: nothing told it yet
    position, entries = replica.changes_after(position)
    assert [entry["id"] for entry in entries] == ["memory:bot/a"]
    assert described(replica, "memory/bot/a.md") == "a, changed"
