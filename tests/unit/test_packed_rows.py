"""Memories held packed (brain/store/memory/packed.py): a store holds each memory as a row
whose nested fields are one msgpack blob, after a first sync and after a snapshot's restore,
and every memory read from it is the one written; a memory msgpack cannot hold stays a node;
`anchors` reads a packed row without building the memory; a snapshot whose blob is not one
`pack_nested` wrote is refused when it is read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from brain.model import Block, Heading, Headings, Kind, MemoryNode, Problem, Severity
from brain.service.brain import Brain
from brain.store.memory.packed import BLOB, NESTED_AT
from brain.store.memory.rows import anchors_of, memory_of, packed_row
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import note, reference
from tests.unit.test_memory_compact import generated_workspace, restored
from tests.unit.test_snapshot_decode import decoded, first_nested_chunk, values


def held(store: MemoryStore) -> dict[str, Any]:
    return dict(store._memories)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Brain:
    root = tmp_path_factory.mktemp("packed") / "ws"
    generated_workspace(root, notes=60, seed=3)
    shared = root / "memory" / "shared"
    big = "---\ndescription: d\ncount: 123456789012345678901234567890\n---\n# Big\n"
    (shared / "huge.md").write_text(big)
    (shared / "anchored.md").write_text(note("anchored", "# One\n\nA para ^blk\n\n## Two\n\n[[huge#Big]]\n"))
    return reference(root)


def rich() -> MemoryNode:
    return MemoryNode(
        scope="shared", name="rich", path="memory/shared/rich.md", description="d", type="user",
        hash="h", size=10, modified_at=1.5, body="body", note_kind=Kind.SKILL,
        headings=Headings([Heading("A `b`", 1, 3, "A `b`"), Heading("C", 2, 9)]),
        properties={"tags": ["x", "y"], "n": 3, "nested": {"k": None}},
        problems=(Problem("bad", Severity.WARNING, "memory/shared/rich.md", "m", 1, 2, 3, "t", ("a",), "f"),),
        blocks=(Block("blk", 4, 7, 3),), triggers=("when x",),
    )


def test_a_packed_row_reads_back_as_the_memory_written_without_its_body() -> None:
    memory = rich()
    row = packed_row(memory)
    assert type(row) is tuple
    assert type(row[BLOB]) is bytes
    assert all(row[at] is None for at in NESTED_AT[1:])
    back = memory_of(row)
    assert back == MemoryNode(**{**{f: getattr(memory, f) for f in (
        "scope", "name", "path", "description", "type", "hash", "size", "modified_at",
        "headings", "properties", "problems", "blocks", "note_kind", "triggers")}, "body": ""})
    assert anchors_of(row) == memory.anchors


def test_a_first_sync_holds_memories_packed_and_reads_them_as_written(source: Brain) -> None:
    store = source.store
    assert isinstance(store, MemoryStore)
    rows = held(store)
    assert rows
    assert all(type(m) is tuple and type(m[BLOB]) is bytes for m in rows.values())
    # What it reads is what a store restored from its snapshot's encoding reads.
    copy = restored(source)
    for node_id in rows:
        assert store.get_nodes([node_id]) == copy.get_nodes([node_id])
    assert store.export() == copy.export()


def test_an_integer_past_64_bits_packs_and_reads_back(source: Brain, tmp_path: Path) -> None:
    """It used to stop every snapshot of its workspace from being written."""
    store = source.store
    assert isinstance(store, MemoryStore)
    memory = store.find_memory("shared", "huge")
    assert memory is not None
    assert memory.properties["count"] == 123456789012345678901234567890
    assert type(packed_row(memory)) is tuple
    copy = restored(source)  # through the snapshot's encoding
    assert type(held(copy)[memory.id]) is tuple
    assert copy.find_memory("shared", "huge") == memory
    memory = replace(rich(), properties={"big": [-(1 << 70), {"x": 1 << 64}], "s": "a\udcff"})
    row = packed_row(memory)
    assert type(row) is tuple
    assert memory_of(row).properties == memory.properties


def test_anchors_are_read_from_packed_rows_without_building_memories(source: Brain) -> None:
    store = restored(source)
    node_id = "memory:shared/anchored"
    assert type(store._memories[node_id]) is tuple
    found = store.anchors([node_id])[node_id]
    assert [h.text for h in found.headings] == ["anchored", "One", "Two"] or [
        h.text for h in found.headings] == ["One", "Two"]
    assert [b.id for b in found.blocks] == ["blk"]
    assert type(store._memories[node_id]) is tuple  # still packed: nothing was built
    memory = store.get_nodes([node_id])[node_id]
    assert isinstance(memory, MemoryNode)
    assert memory.anchors == found


@pytest.mark.parametrize("blob", [b"", b"\x94\x90\x80\x90\x90", b"\x95\x90\x80\x90\x90\x90\x00", "text"])
def test_a_snapshot_blob_that_is_not_a_packed_memory_is_refused(source: Brain, blob: Any) -> None:
    stream = values(source)
    at = first_nested_chunk(stream)
    stream[at][0] = blob
    if blob == b"\x95\x90\x80\x90\x90\x90\x00":  # the right lead byte: refused when unpacked
        _, image = decoded(stream)
        with pytest.raises(ValueError, match="extra data"):
            memory_of(image.memories[0])
        return
    with pytest.raises((ValueError, IndexError)):
        decoded(stream)


def test_empty_nested_fields_share_one_blob(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    for name in ("a", "b"):
        (root / "memory" / "shared" / f"{name}.md").write_text("---\ndescription: d\n---\nplain text\n")
    brain = Brain(root, MemoryStore())
    brain.sync()
    assert isinstance(brain.store, MemoryStore)
    blobs = [m[BLOB] for m in held(brain.store).values()]
    assert blobs[0] is blobs[1]
