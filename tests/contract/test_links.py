"""Links and backlinks: every field of a stored link, in the order the interface promises."""

from __future__ import annotations

from pathlib import Path

from brain.model import Link, LinkStatus
from brain.store.base import GraphStore
from tests.contract.helpers import Workspace, note


def test_links_from_keep_every_field_in_ordinal_order(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("A", "[[b#Top|the b]] ![[shared/c]]\n\n[[workflow:w]] [[nope]]"))
    ws.write("memory/bot/b.md", note("B", "# Top\n"))
    ws.write("memory/shared/c.md", note("C"))
    ws.write("workflows/w.yaml", "title: W\n")
    ws.brain(store)

    links = store.links_from(["memory:bot/a", "memory:bot/b", "workflow:w", "memory:x/none"])
    assert links["memory:bot/b"] == []
    assert links["workflow:w"] == []
    assert links["memory:x/none"] == []
    assert links["memory:bot/a"] == [
        Link("memory:bot/a", 0, "memory:bot/b", LinkStatus.RESOLVED, "[[b#Top|the b]]", "b", "b",
             "the b", "Top", False, 5, 1),
        Link("memory:bot/a", 1, "memory:shared/c", LinkStatus.RESOLVED, "![[shared/c]]", "shared/c",
             "c", None, None, True, 5, 17),
        Link("memory:bot/a", 2, "workflow:w", LinkStatus.RESOLVED, "[[workflow:w]]", "workflow:w",
             "w", None, None, False, 7, 1),
        Link("memory:bot/a", 3, "unresolved:nope", LinkStatus.BROKEN, "[[nope]]", "nope", "nope",
             None, None, False, 7, 16),
    ]


def test_backlinks_sorted_by_source_then_ordinal(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/shared/hub.md", note("hub"))
    ws.write("memory/bot/z.md", note("z", "[[hub]] [[hub]]"))
    ws.write("memory/bot/a.md", note("a", "[[hub]] [[ghost]]"))
    ws.write("memory/other/m.md", note("m", "[[ghost]] [[shared/hub]]"))
    ws.brain(store)

    backlinks = store.links_to(["memory:shared/hub", "unresolved:ghost", "memory:bot/a"])
    assert [(link.source, link.ordinal) for link in backlinks["memory:shared/hub"]] == [
        ("memory:bot/a", 0), ("memory:bot/z", 0), ("memory:bot/z", 1), ("memory:other/m", 1),
    ]
    assert [(link.source, link.status) for link in backlinks["unresolved:ghost"]] == [
        ("memory:bot/a", LinkStatus.BROKEN), ("memory:other/m", LinkStatus.BROKEN),
    ]
    assert backlinks["memory:bot/a"] == []
    assert store.links_to([]) == {}


def test_ambiguous_and_missing_anchor_links(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[plan]] [[shared/x#Nope]]"))
    ws.write("workflows/plan.yaml", "title: Plan\n")
    ws.write("chats/plan.md", "hi\n")
    ws.write("memory/shared/x.md", note("x", "# Yes\n"))
    ws.brain(store)

    ambiguous, anchored = store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert ambiguous.status is LinkStatus.AMBIGUOUS
    assert ambiguous.target_id == "unresolved:plan"
    assert ambiguous.candidates == ("chat:plan", "workflow:plan")
    assert (anchored.status, anchored.target_id) == (LinkStatus.MISSING_ANCHOR, "memory:shared/x")
    assert store.get_nodes(["unresolved:plan"]) != {}


def test_links_with_keys_grouped_by_key_in_the_order_asked(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[b]] [[C]] [[shared/b]]"))
    ws.write("memory/bot/d.md", note("d", "[[c.md]] [[b#H]]"))
    ws.brain(store)

    found = store.links_with_keys(["c", "b", "zzz"])
    assert [(link.key, link.source, link.ordinal) for link in found] == [
        ("c", "memory:bot/a", 1), ("c", "memory:bot/d", 0),
        ("b", "memory:bot/a", 0), ("b", "memory:bot/a", 2), ("b", "memory:bot/d", 1),
    ]
    assert store.links_with_keys([]) == []
