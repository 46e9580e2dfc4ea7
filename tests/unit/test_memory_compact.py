"""The embedded store's compact forms: a store restored from a snapshot's columns, whose
memories are rows and whose indexes are not built yet, answers every read and takes every
write exactly as the store it was taken from."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from bench.workload import generate
from brain.ingest.note_bodies import DiskBodies
from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.snapshot.columns import decode, encode
from brain.store.base import MemoryFilter, SearchWhere
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import answers, note, reference

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"


def generated_workspace(root: Path, notes: int, seed: int) -> None:
    """The benchmark workload, small, with the example workspace's notes and entities."""
    generate(root, notes=notes, agents=3, seed=seed)
    for sub in ("memory", "agents", "workflows", "chats", "work-items"):
        shutil.copytree(EXAMPLE / sub, root / sub, dirs_exist_ok=True)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Brain:
    root = tmp_path_factory.mktemp("compact") / "ws"
    generated_workspace(root, notes=150, seed=11)
    (root / "memory" / "shared" / "bad.md").write_text(note("bad [unclosed", "[[nowhere]] [[also#gone]]"))
    return reference(root)


def restored(brain: Brain) -> MemoryStore:
    """A store restored from `brain`'s through the snapshot's encoding (bytes and back)."""
    store = brain.store
    assert isinstance(store, MemoryStore)
    packed = [msgpack.packb(v, use_bin_type=True) for v in encode(brain.ingester.state(), store.contents())]
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, max_buffer_size=1 << 30)
    for chunk in packed:
        unpacker.feed(chunk)
    state, image = decode(unpacker.unpack)
    image.keywords = store.contents().keywords
    assert state.files == brain.ingester.state().files
    assert state.claims == brain.ingester.state().claims
    copy = MemoryStore()  # as a snapshot's store: of the same workspace, its bodies in the files
    copy.read_bodies_from(DiskBodies(brain.root, brain.ingester.overlays))
    copy.restore(image)
    return copy


def leaf(node_id: str) -> str:
    return node_id.rsplit("/", 1)[-1]


READS: dict[str, Callable[[MemoryStore, list[str]], Any]] = {
    "get_nodes": lambda s, ids: s.get_nodes([*ids, "unresolved:nowhere", "bogus"]),
    "links_from": lambda s, ids: s.links_from(ids),
    "links_to": lambda s, ids: s.links_to([*ids, "unresolved:nowhere"]),
    "links_with_keys": lambda s, ids: s.links_with_keys(["nowhere", "also", *(leaf(i) for i in ids)]),
    "name_entries": lambda s, ids: s.name_entries([leaf(i) for i in ids]),
    "anchors": lambda s, ids: s.anchors(ids),
    "problems": lambda s, ids: s.problems(),
    "problems_at": lambda s, ids: s.problems(["memory/shared/bad.md"]),
    "stats": lambda s, ids: s.stats(),
    "list": lambda s, ids: s.list_memories(MemoryFilter(has_problems=True)),
    "count": lambda s, ids: s.count_memories(MemoryFilter(text="e")),
    "type_counts": lambda s, ids: s.memory_type_counts(["shared", "nobody"]),
    "find": lambda s, ids: [s.find_memory(*i.split(":", 1)[1].split("/", 1)) for i in ids],
    "by_path": lambda s, ids: s.memory_by_path("memory/shared/bad.md"),
    "neighborhood": lambda s, ids: [s.neighborhood(i, 2, 20) for i in ids[:5]],
    "search": lambda s, ids: s.keyword_search(["release"], SearchWhere(), 10),
    "export": lambda s, ids: s.export(),
}


@pytest.mark.parametrize("read", list(READS))
def test_each_read_of_a_fresh_restore_is_the_original_answer(source: Brain, read: str) -> None:
    """Each read first, on its own: the one that builds a row or an index is tested too."""
    original = source.store
    assert isinstance(original, MemoryStore)
    ids = sorted(original._memories)[::7]
    assert READS[read](restored(source), ids) == READS[read](original, ids)


def test_a_restore_answers_everything_and_takes_writes_as_the_original(
    source: Brain, tmp_path: Path
) -> None:
    copy = restored(source)
    assert any(type(held) is tuple for held in copy._memories.values())  # rows until read
    assert answers(copy) == answers(source.store)
    fresh = restored(source)  # writes before any read: the indexes are built by the write
    root = tmp_path / "ws"
    shutil.copytree(source.ingester.root, root)  # mtimes kept: only the edits below are read
    twin = Brain(root, fresh)
    twin.ingester.restore(source.ingester.state())
    (root / "memory" / "shared" / "nowhere.md").write_text(note("now it is here"))
    (root / "memory" / "shared" / "bad.md").unlink()
    twin.sync(["memory/shared/nowhere.md", "memory/shared/bad.md"])
    assert answers(fresh) == answers(reference(root).store)


def test_links_share_their_ids(source: Brain) -> None:
    store = restored(source)
    rows = [row for _, held in store._out.items() for row in held]
    # One source string per note with links, one copy of each target id.
    assert len({id(row[0]) for row in rows}) == sum(1 for _, held in store._out.items() if held)
    by_target: dict[str, set[int]] = {}
    for row in rows:
        by_target.setdefault(row[2], set()).add(id(row[2]))
    assert all(len(copies) == 1 for copies in by_target.values())
    assert any(row[3] is not LinkStatus.RESOLVED for row in rows)


def test_a_live_stores_own_image_restores_as_its_snapshot_does(source: Brain) -> None:
    """`restore` of `contents()` itself (memories as nodes, links a live table's columns) gives what
    the snapshot's decoded rows give: the same tables, the same answers."""
    original = source.store
    assert isinstance(original, MemoryStore)
    # A first sync holds memories as rows; reading them builds their nodes, as a live store that
    # has answered reads holds them (alone, the module's other tests had not read them first).
    expected = answers(original)
    image = original.contents()
    assert all(type(held) is not tuple for held in image.memories)  # nodes, as read
    nodes = MemoryStore()
    nodes.read_bodies_from(DiskBodies(source.root, {}))
    nodes.restore(image)
    rows = restored(source)
    assert nodes._by_path == rows._by_path == original._by_path
    assert nodes._bodies.held == rows._bodies.held == original._bodies.held
    assert nodes._out == rows._out == original._out
    assert answers(nodes) == answers(rows) == answers(original) == expected
    empty = MemoryStore()
    empty.restore(type(image)(memory_ids=["m"], memories=[rows._memories[next(iter(rows._memories))]],
                              bodies=[None], keywords=image.keywords))
    assert empty._bodies.held == {}  # a memory kept without its body


@pytest.mark.parametrize(
    "name", ["Plain", "drafts/Plan", "Ünïcode Straße", "e\u0301cole", "notes.md ", "A/B/c.MD"]
)
def test_a_rows_name_entry_is_its_nodes(name: str) -> None:
    """The index built from rows folds names without the cache; the keys are the same."""
    from brain.model import MemoryNode
    from brain.store.linking import entry_of
    from brain.store.memory.rows import memory_row, name_entry

    node = MemoryNode(scope="bot", name=name, path=f"memory/bot/{name}.md", description="", type=None,
                      hash="h", size=1, modified_at=0.0, body="")
    assert name_entry(memory_row(node), node.id) == entry_of(node)


def test_memories_without_properties_share_one_empty_mapping(tmp_path: Path) -> None:
    from brain.store.memory.rows import NO_PROPERTIES

    root = tmp_path / "ws"
    generated_workspace(root, notes=20, seed=3)
    (root / "memory" / "shared" / "tagged.md").write_text(
        "---\ndescription: tagged\ntype: project\ntags: [a, b]\n---\nbody\n")
    brain = reference(root)
    for store in (brain.store, restored(brain)):
        assert isinstance(store, MemoryStore)
        memories = store._all_memories()
        assert all(m.properties is NO_PROPERTIES for m in memories if not m.properties)
        tagged = store.memory_by_path("memory/shared/tagged.md")
        assert tagged is not None
        assert tagged.properties == {"tags": ["a", "b"]}
    assert NO_PROPERTIES == {}  # never written to
