"""Revisions decide what a restart on Neo4j writes: a table of edits and what they rewrite.

Pure: the graph of a workspace is built by a real ingest on the embedded store, and the
"database" is the revisions of the graph before the edit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from brain.model import Node
from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.neo4j.sharing.revs import batch_revs, difference
from tests.contract.helpers import Workspace, note


def graph_of(root: Path) -> WriteBatch:
    """The whole graph of the files: the first sync's batch."""
    kept: list[WriteBatch] = []
    brain = Brain(root)

    def keep(batch: WriteBatch, before: dict[str, Node]) -> None:
        kept.append(batch)

    brain.ingester.listeners.append(keep)
    brain.sync()
    return kept[0]


def base(ws: Workspace) -> None:
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    ws.write("memory/bot/a.md", note("a", "[[b]] [[missing]]"))
    ws.write("memory/bot/b.md", note("b", "# Top\n[[a]]"))
    ws.write("memory/bot/c.md", note("c", "[[b#Top]]"))
    ws.write("workflows/deploy.md", "# Deploy\n")


Edit = Callable[[Workspace], object]
EDITS: list[tuple[str, Edit, set[str], set[str]]] = [
    # (what, edit, rewritten ids, deleted ids)
    ("nothing", lambda ws: None, set(), set()),
    ("a description", lambda ws: ws.write("memory/bot/a.md", note("a2", "[[b]] [[missing]]")),
     {"memory:bot/a"}, set()),
    ("a new note a link waited for", lambda ws: ws.write("memory/shared/missing.md", note("m")),
     {"memory:shared/missing", "memory:bot/a"}, set()),
    ("a heading another note links to", lambda ws: ws.write("memory/bot/b.md", note("b", "# Other\n[[a]]")),
     {"memory:bot/b", "memory:bot/c"}, set()),
    ("a deleted note", lambda ws: ws.delete("memory/bot/b.md"),
     {"memory:bot/a", "memory:bot/c"}, {"memory:bot/b"}),
    ("a deleted workflow", lambda ws: ws.delete("workflows/deploy.md"), set(), {"workflow:deploy"}),
    ("an agent's definition", lambda ws: ws.write("agents/bot.md", "---\nmemory: false\n---\n"),
     {"agent:bot"}, set()),
]


@pytest.mark.parametrize(("what", "edit", "rewritten", "deleted"), EDITS, ids=[e[0] for e in EDITS])
def test_a_restart_rewrites_exactly_what_an_edit_changed(
    tmp_path: Path, what: str, edit: Edit, rewritten: set[str], deleted: set[str]
) -> None:
    ws = Workspace(tmp_path / "ws")
    base(ws)
    held: dict[str, str | None] = dict(batch_revs(graph_of(ws.root)))
    edit(ws)
    diff = difference(graph_of(ws.root), held)
    written = {m.id for m in diff.memories} | {a.id for a in diff.agents} | {e.id for e in diff.entities}
    assert (written, set(diff.deletes)) == (rewritten, deleted)
    assert set(diff.links) == {m.id for m in diff.memories}


def test_a_node_without_a_revision_is_rewritten(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    base(ws)
    graph = graph_of(ws.root)
    held: dict[str, str | None] = {**batch_revs(graph), "memory:bot/a": None}  # e.g. relinked since
    assert [m.id for m in difference(graph, held).memories] == ["memory:bot/a"]
