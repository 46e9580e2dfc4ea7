"""The embedded store's name index after a restore (brain/store/memory/names.py): a key's
entries are built when first asked for, and every answer is the one a full index gives,
also after writes that land before a key is built."""

from __future__ import annotations

from dataclasses import replace

import pytest

from brain.model import Kind, MemoryNode, is_note_id, leaf_key
from brain.resolve import NameEntry
from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.memory.names import NameIndex
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import note, reference
from tests.unit.test_memory_compact import generated_workspace, restored


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Brain:
    root = tmp_path_factory.mktemp("names") / "ws"
    generated_workspace(root, notes=120, seed=7)
    for scope in ("shared", "bot"):  # one name in two scopes: a key of several ids
        (root / "memory" / scope).mkdir(exist_ok=True)
        (root / "memory" / scope / "Twice Named.md").write_text(note("twice"))
    return reference(root)


def every_key(store: MemoryStore) -> list[str]:
    export = store.export()
    return sorted({leaf_key(row[0].split("/", 1)[-1]) for row in export.nodes if is_note_id(row[0])}
                  | {"nothing-by-this-name", "bot", "twice named"})


def built_keys(store: MemoryStore) -> int:
    return len(store._names)


def test_a_restores_first_lookup_builds_the_entries_of_the_keys_it_asks_alone(source: Brain) -> None:
    """At 100,000 notes building every entry took 0.3 s of a warm first completion."""
    store, original = restored(source), source.store
    assert isinstance(original, MemoryStore)
    keys = every_key(original)
    assert len(keys) > 100
    asked = ["twice named", "bad", keys[40], "nothing-by-this-name"]
    assert store.name_entries(asked) == original.name_entries(asked)
    others = len(store._agents) + len(store._entities) + len(store._files)
    assert built_keys(store) <= others + len(asked)  # not one per name
    assert len(store.name_entries(["twice named"])["twice named"]) == 2
    assert store.name_entries(keys) == original.name_entries(keys)  # the rest, on demand
    assert store.find_memory("bot", "Twice Named") == original.find_memory("bot", "Twice Named")


def test_writes_before_a_key_is_built_give_the_answers_of_a_full_index(source: Brain) -> None:
    """A write indexes what it writes; a memory deleted before its key is built is left out."""
    original = source.store
    assert isinstance(original, MemoryStore)
    keys = every_key(original)
    lazy, eager = restored(source), restored(source)
    eager.name_entries(keys)  # every key built before the writes
    twice = original.name_entries(["twice named"])["twice named"]
    kept = original.get_nodes([twice[0].id])[twice[0].id]
    assert isinstance(kept, MemoryNode)
    memories = sorted(i for i in original._memories if i.startswith("memory:"))
    gone = memories[5]
    changed = original.get_nodes([memories[9]])[memories[9]]
    assert isinstance(changed, MemoryNode)
    batch = WriteBatch(
        memories=[
            replace(changed, description="changed"),
            replace(kept, scope="ops", path="memory/ops/Twice Named.md"),  # a third of that name
        ],
        deletes=[gone, twice[1].id],
    )
    for store in (lazy, eager):
        store.write(batch)
    assert lazy.name_entries(keys) == eager.name_entries(keys)
    entries = lazy.name_entries(["twice named"])["twice named"]
    assert sorted(e.scope or "" for e in entries) == sorted({twice[0].scope or "", "ops"})
    assert not any(e.id == gone for found in lazy.name_entries(keys).values() for e in found)
    assert lazy.find_memory("ops", "Twice Named") == eager.find_memory("ops", "Twice Named")


def test_a_key_of_one_node_holds_its_entry_and_one_of_several_a_dict() -> None:
    """Entries in the order indexed, whichever way a key holds them."""
    index = NameIndex()
    a, b, c = (NameEntry(f"memory:{s}/plan", Kind.MEMORY, "plan", s) for s in ("a", "b", "c"))
    assert index.entries("plan") == []
    index.put(a)
    assert index.entries("plan") == [a]
    index.put(a._replace(scope="again"))  # the same node again: replaced, not added
    assert index.entries("plan") == [a._replace(scope="again")]
    index.put(a)
    index.put(b)
    index.put(c)
    assert index.entries("plan") == [a, b, c]
    index.drop("plan", "memory:b/plan")
    assert index.entries("plan") == [a, c]
    index.drop("plan", "memory:a/plan")
    index.drop("plan", "memory:nobody/plan")  # not there: nothing changes
    assert index.entries("plan") == [c]
    index.put(b)
    assert index.entries("plan") == [c, b]
    index.drop("plan", "memory:c/plan")
    index.drop("plan", "memory:b/plan")
    assert index.entries("plan") == []
    assert len(index) == 0
    assert index.every_entry() == []
