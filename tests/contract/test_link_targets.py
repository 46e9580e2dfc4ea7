"""`link_targets`: what each note links, as ids, on both stores (a mention sweep's read).

The answer is written out in full (so both stores must give this one) and checked against
`links_from`'s target ids after a first sync, after rescans that relink, drop and add a
note's links, and (embedded store) after a restore from its image.
"""

from __future__ import annotations

from pathlib import Path

from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import Workspace, note

ASKED = ["memory:bot/a", "memory:bot/b", "memory:bot/none", "workflow:w", "memory:shared/c",
         "memory:x/missing", "unresolved:nope"]


def as_links_from(store: GraphStore, ids: list[str]) -> dict[str, set[str]]:
    return {i: {link.target_id for link in links} for i, links in store.links_from(ids).items()}


def test_link_targets_are_links_froms_target_ids(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    # Resolved, embedded, anchored, a workflow, broken, ambiguous, and one target twice.
    body = "[[b#Top|the b]] ![[shared/c]] [[b]]\n\n[[workflow:w]] [[nope]] [[plan]]"
    ws.write("memory/bot/a.md", note("A", body))
    ws.write("memory/bot/b.md", note("B", "# Top\n[[shared/c#Nope]]"))
    ws.write("memory/bot/none.md", note("no links"))
    ws.write("memory/shared/c.md", note("C"))
    ws.write("workflows/w.yaml", "title: W\n")
    ws.write("workflows/plan.yaml", "title: Plan\n")
    ws.write("chats/plan.md", "hi\n")
    brain = ws.brain(store)

    expected = {
        "memory:bot/a": {"memory:bot/b", "memory:shared/c", "workflow:w", "unresolved:nope",
                         "unresolved:plan"},
        "memory:bot/b": {"memory:shared/c"},
        "memory:bot/none": set(), "workflow:w": set(), "memory:shared/c": set(),
        "memory:x/missing": set(), "unresolved:nope": set(),
    }
    assert store.link_targets(ASKED) == expected == as_links_from(store, ASKED)
    assert store.link_targets([]) == {}

    # Rescans: a note relinked, one whose links are all gone, one new, one deleted.
    brain.sync([
        ws.write("memory/bot/a.md", note("A", "[[none]] [[ghost]]")),
        ws.write("memory/bot/b.md", note("B")),
        ws.write("memory/bot/new.md", note("new", "[[a]] [[shared/c]]")),
        ws.delete("memory/shared/c.md"),
    ])
    asked = [*ASKED, "memory:bot/new"]
    assert store.link_targets(asked) == {
        **{key: set() for key in asked},
        "memory:bot/a": {"memory:bot/none", "unresolved:ghost"},
        "memory:bot/new": {"memory:bot/a", "unresolved:shared/c"},
    } == as_links_from(store, asked)


def test_link_targets_after_a_restore(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("A", "[[b]] [[ghost]]"))
    ws.write("memory/bot/b.md", note("B", "[[a]]"))
    store = MemoryStore()
    ws.brain(store)
    restored = MemoryStore()
    restored.restore(store.contents())
    ids = ["memory:bot/a", "memory:bot/b"]
    assert restored.link_targets(ids) == {
        "memory:bot/a": {"memory:bot/b", "unresolved:ghost"}, "memory:bot/b": {"memory:bot/a"},
    } == as_links_from(restored, ids)
