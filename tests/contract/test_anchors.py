"""Anchors in the graph, on both stores: headings as written, block ids, and the links to them.

Each store must give back exactly the headings (with their written form) and block ids a
note was parsed with, resolve `#Heading`, `#A#B` and `#^id` the same way, and re-check a link
when its target's anchors change (an edit that removes a block turns its links into
`missing-anchor`, one that adds it back resolves them), ending as a full ingest would.
"""

from __future__ import annotations

from pathlib import Path

from brain.model import Block, Heading, LinkStatus, MemoryNode
from brain.store.base import GraphStore
from tests.contract.helpers import Workspace, note, reference_export

TARGET = note(
    "target",
    "# Guide\n\n## The `date` *field*\n\n### Step 1: Install\n\nA paragraph ^para\n\n- item ^li-1\n",
)
SOURCE = note(
    "source",
    "[[target#^para]] [[target#^LI-1]] [[target#^gone]] [[target#the date field]] "
    "[[target#The `date` *field*#Step 1 Install]] [[target#Guide#Nope]] $[[target#math]]$ [[|empty]]",
)


def statuses(store: GraphStore) -> list[tuple[str, str]]:
    links = store.links_from(["memory:shared/source"])["memory:shared/source"]
    return [(link.anchor or "", link.status.value) for link in links]


def test_anchors_are_stored_and_resolved(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/shared/target.md", TARGET)
    ws.write("memory/shared/source.md", SOURCE)
    brain = ws.brain(store)

    found = store.anchors(["memory:shared/target", "memory:shared/nothing"])
    assert list(found) == ["memory:shared/target"]
    anchors = found["memory:shared/target"]
    assert anchors.headings == (
        Heading("Guide", 1, 5),
        Heading("The date field", 2, 7, "The `date` *field*"),
        Heading("Step 1: Install", 3, 9),
    )
    assert anchors.blocks == (Block("para", 11, 13, 11), Block("li-1", 13, 8, 13))
    memory = store.get_nodes(["memory:shared/target"])["memory:shared/target"]
    assert isinstance(memory, MemoryNode)
    assert memory.anchors == anchors

    assert statuses(store) == [
        ("^para", "resolved"),
        ("^LI-1", "resolved"),
        ("^gone", "missing-anchor"),
        ("the date field", "resolved"),
        ("The `date` *field*#Step 1 Install", "resolved"),
        ("Guide#Nope", "missing-anchor"),
    ]
    problems = {(p.code, p.message) for p in brain.problems(["memory/shared/source.md"])}
    assert problems == {
        ("missing-anchor", "`[[target#^gone]]`: the target has no block `^gone`"),
        ("missing-anchor", "`[[target#Guide#Nope]]`: the target has no heading path `Guide > Nope`"),
        ("empty-link", "`[[|empty]]` links to nothing: it names no note and no heading"),
    }
    assert store.export() == reference_export(tmp_path)


def test_editing_the_target_rechecks_block_links(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/shared/target.md", TARGET)
    ws.write("memory/shared/source.md", SOURCE)
    brain = ws.brain(store)

    brain.sync([ws.write("memory/shared/target.md", TARGET.replace(" ^para", "").replace("gone", "x"))])
    assert statuses(store)[:3] == [
        ("^para", "missing-anchor"), ("^LI-1", "resolved"), ("^gone", "missing-anchor"),
    ]
    assert store.export() == reference_export(tmp_path)

    brain.sync([ws.write("memory/shared/target.md", TARGET + "\nlast words ^gone\n")])
    assert statuses(store)[:3] == [
        ("^para", "resolved"), ("^LI-1", "resolved"), ("^gone", "resolved"),
    ]
    assert [b.id for b in store.anchors(["memory:shared/target"])["memory:shared/target"].blocks] == [
        "para", "li-1", "gone",
    ]
    assert store.export() == reference_export(tmp_path)
    assert all(link.status is not LinkStatus.BROKEN for link in store.links_to(["memory:shared/target"])[
        "memory:shared/target"
    ])
