"""A `.md` file that is binary is a File in space (seeds/001, design.md 8), on both stores.

A binary file is "reported with metadata, never as an encoding error": a `.md` that holds a
NUL byte or is not UTF-8 is `file:<agent>/<name>.md` with its size, media type and binary
flag, and links to it land on the File. A rescan where it turns into text (or text turns
binary) swaps the node's kind and leaves nothing of the old node, as a full ingest would.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain.model import FileNode, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.layout_specs import SPACE

PLAN = "ann/memory/drafts/plan.md"
TEXT = b"---\ndescription: The plan\n---\n# Plan\n"
NUL = b"# Plan\x00\x01\x02"
LATIN1 = "# Pl\xe4ne caf\xe9\n".encode("latin-1")
FILE_ID, NOTE_ID = "file:ann/drafts/plan.md", "memory:ann/drafts/plan"
LINKER = "ann/memory/index.md"
LINKS = "[[drafts/plan]] [[plan]] [[drafts/plan.md]]\n"

# name, bytes before, bytes after, node id after (the old one must be gone), binary after
TRANSITIONS = [
    ("text-to-nul", TEXT, NUL, FILE_ID, True),
    ("text-to-latin1", TEXT, LATIN1, FILE_ID, True),
    ("nul-to-text", NUL, TEXT, NOTE_ID, False),
    ("latin1-to-text", LATIN1, TEXT, NOTE_ID, False),
    ("nul-to-latin1", NUL, LATIN1, FILE_ID, True),
]


def _write(root: Path, rel: str, raw: bytes, when: int) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    os.utime(path, (when, when))


def _full(root: Path) -> Brain:
    brain = Brain(root, MemoryStore(), SPACE.choice)
    brain.sync()
    return brain


@pytest.mark.parametrize("full_rescan", [False, True], ids=["named", "full"])
@pytest.mark.parametrize(
    ("before", "after", "node_id", "binary"), [t[1:] for t in TRANSITIONS], ids=[t[0] for t in TRANSITIONS]
)
def test_a_rescan_swaps_note_and_file(
    store: GraphStore, tmp_path: Path, before: bytes, after: bytes, node_id: str, binary: bool,
    full_rescan: bool,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    SPACE.prepare(root)
    _write(root, LINKER, b"---\ndescription: Index\n---\n" + LINKS.encode(), 1_790_000_000)
    _write(root, PLAN, before, 1_790_000_010)
    brain = Brain(root, store, SPACE.choice)
    brain.sync()
    _write(root, PLAN, after, 1_790_000_020)
    brain.sync(None if full_rescan else [PLAN])

    expected = _full(root)
    assert store.export() == expected.store.export()
    assert brain.problems() == expected.problems()
    gone = NOTE_ID if node_id == FILE_ID else FILE_ID
    nodes = store.get_nodes([node_id, gone])
    assert set(nodes) == {node_id}
    node = nodes[node_id]
    if binary:
        assert isinstance(node, FileNode)
        assert (node.path, node.size, node.binary) == (PLAN, len(after), True)
        assert node.media_type == "text/markdown"
    else:
        assert isinstance(node, MemoryNode)
    assert not [p for p in brain.problems() if p.code == "invalid-encoding"]
    links = store.links_from(["memory:ann/index"])["memory:ann/index"]
    raws = ("[[drafts/plan]]", "[[plan]]", "[[drafts/plan.md]]")
    found = {link.raw: (link.status.value, link.target_id) for link in links}
    assert found == dict.fromkeys(raws, ("resolved", node_id))
