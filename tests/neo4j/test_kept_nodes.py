"""Nodes kept built, one by one, until the graph token moves (brain/store/neo4j/reads/keptnodes.py):
a fetch reads only ids it has not seen since, and a change is seen as with kept answers."""

from __future__ import annotations

from pathlib import Path

from brain.model import MemoryNode
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import ReplicaOpener, StoreMaker
from tests.neo4j.test_kept_reads import until


def description(store: Neo4jStore, node_id: str) -> str | None:
    found = store.get_nodes([node_id]).get(node_id)
    return found.description if isinstance(found, MemoryNode) else None


def test_a_fetch_reads_only_what_it_has_not_built(tmp_path: Path, make_store: StoreMaker) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    for name in "abc":
        ws.write(f"memory/bot/{name}.md", note(name, "[[nowhere]]"))
    store = make_store()
    brain = ws.brain(store)
    store._reads.window = 3600.0  # no other process writes here: only its own commits drop nodes

    first = store.get_nodes(["memory:bot/a", "memory:bot/b", "memory:no/such"])
    assert sorted(first) == ["memory:bot/a", "memory:bot/b"]
    misses = store._nodes.misses
    again = store.get_nodes(["memory:bot/b", "memory:bot/c", "memory:no/such", "memory:bot/a"])
    assert sorted(again) == ["memory:bot/a", "memory:bot/b", "memory:bot/c"]
    assert again["memory:bot/a"] is first["memory:bot/a"]  # built once
    assert store._nodes.misses == misses + 1  # only c was read (the absent id is kept absent)

    # Its own write: the next fetch builds the note again, and a new note is no longer absent.
    brain.sync([ws.write("memory/bot/a.md", note("a1"))])
    assert description(store, "memory:bot/a") == "a1"
    ws.write("memory/no/such.md", note("now there"))
    brain.sync(["memory/no/such.md"])
    assert description(store, "memory:no/such") == "now there"


def test_a_replica_builds_the_writers_change_once_the_token_moves(
    tmp_path: Path, make_store: StoreMaker, open_replica: ReplicaOpener
) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    brain = ws.brain(make_store())
    replica = open_replica()
    assert description(replica, "memory:bot/a") == "a"
    assert description(replica, "memory:bot/a") == "a"
    assert replica._nodes.hits >= 1
    brain.sync([ws.write("memory/bot/a.md", note("a, edited by the writer"))])
    until(lambda: description(replica, "memory:bot/a") == "a, edited by the writer",
          "the replica's node to follow the writer")


def test_backlink_pages_are_kept_built_and_follow_a_write(tmp_path: Path, make_store: StoreMaker) -> None:
    """A kept page is not built again from its records (the entities document asks for every
    entity's page on each request), and the caller's copy is its own."""
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a", "[[b]] and [[b]]"))
    ws.write("memory/bot/b.md", note("b"))
    store = make_store()
    brain = ws.brain(store)
    store._reads.window = 3600.0

    first = store.backlinks(["memory:bot/b"], 20)
    first["memory:bot/b"].clear()  # the caller's list: the kept page stays whole
    again = store.backlinks(["memory:bot/b"], 20)
    assert [link.ordinal for link in again["memory:bot/b"]] == [0, 1]
    key = next(k for k in store._reads._answers if "UNWIND $ids AS id CALL" in k[0])
    assert list(store._reads._answers[key].built) == ["Neo4jBacklinks.backlinks.<locals>.pages"]

    brain.sync([ws.write("memory/bot/a.md", note("a", "[[b]]"))])
    assert [link.ordinal for link in store.backlinks(["memory:bot/b"], 20)["memory:bot/b"]] == [0]
