"""The link index built from the columns (`LinkTable.index_into`, grouped by `grouped_into`)
is the index `LinkIndex.build` makes from the rows, and the one the code before it made
(tests/unit/link_index_before.py): the same refs for each target and key, arrays and sets
alike, names in the order they first appear, sources numbered alike. On a table of cases, on
random tables written as a first sync writes them (each batch listing its strings again), and
after first syncs of generated workspaces of both workload shapes and of the examples."""

from __future__ import annotations

import random
import shutil
from array import array
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.workload import generate
from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.store.memory.links.image import STATUSES
from brain.store.memory.links.index import SET_AFTER, LinkIndex, Refs, grouped_into
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import LinkRow
from brain.store.memory.store import MemoryStore
from tests.unit.link_index_before import index_before, refs_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def grouped_by_hand(strings: list[str | None], names: list[int], refs: list[int]) -> dict[str | None, Refs]:
    """What adding each link in turn leaves (the refs of a name in link order; a set past
    SET_AFTER)."""
    out: dict[str | None, array[int]] = {}
    for name, ref in zip(names, refs, strict=True):
        out.setdefault(strings[name], array("q")).append(ref)
    return {name: refs_of(found) for name, found in out.items()}


HUB = SET_AFTER + 1


@pytest.mark.parametrize(("strings", "names"), [
    ([None], []),  # no link
    ([None, "a"], [1]),
    ([None, "b", "a"], [2, 1, 2, 1]),  # first appearance, not string order
    ([None, "a", "b", "a"], [3, 2, 1, 3]),  # "a" listed twice (two batches): one name
    ([None, "x", "y", "x", "y", "x"], [5, 4, 3, 2, 1]),
    ([None, "a", "unused", "b"], [3, 3, 1]),  # a string no link uses
    ([None, "k"], [0, 1, 0]),  # None (index 0) is a name like any other
    ([None, "hub", "a"], [1] * SET_AFTER + [2]),  # just an array
    ([None, "hub", "a"], [2] + [1] * HUB),  # a set, past SET_AFTER
    ([None, "hub", "a", "hub"], [1, 3] * (HUB // 2 + 1) + [2]),  # a set, from two strings
    ([None, "ab", "x", "a" + str(len("b")).replace("1", "b")], [3, 2, 1]),  # equal, not the same object
])
def test_grouped_into_is_adding_each_link_in_turn(strings: list[str | None], names: list[int]) -> None:
    refs = [(i % 7) << 32 | i for i in range(len(names))]
    out: dict[str, Refs] = {}
    grouped_into(out, strings, np.array(names, np.uint32), np.array(refs, np.int64))
    expected = grouped_by_hand(strings, names, refs)
    assert out == expected
    assert list(out) == list(expected)
    assert [type(v) for v in out.values()] == [type(v) for v in expected.values()]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=60), st.integers(1, 12), st.randoms(use_true_random=False))
def test_grouped_into_any_names(picks: list[int], copies: int, rng: random.Random) -> None:
    """Names drawn from a few, each string listed up to `copies` times over (as a first
    sync's batches list them), the links' indexes picked among the copies at random."""
    words = [f"w{i}" for i in range(10)]
    # A copy is the same object or an equal one (a batch's own parse of the name).
    strings: list[str | None] = [None] + [
        w if rng.random() < 0.5 else w[:1] + w[1:] for _ in range(copies) for w in words]
    names = [1 + pick + 10 * rng.randrange(copies) for pick in picks]
    refs = [rng.randrange(1 << 40) for _ in names]
    out: dict[str, Refs] = {}
    grouped_into(out, strings, np.array(names, np.uint32), np.array(refs, np.int64))
    expected = grouped_by_hand(strings, names, refs)
    assert out == expected
    assert list(out) == list(expected)


def assert_same_index(table: LinkTable) -> None:
    built, from_rows, before = LinkIndex(), LinkIndex(), LinkIndex()
    table.index_into(built)
    from_rows.build(rows for _, rows in table.items())
    index_before(table, before)
    for expected in (from_rows, before):
        for name in ("incoming", "by_key", "unresolved"):
            assert getattr(built, name) == getattr(expected, name)
            assert list(getattr(built, name)) == list(getattr(expected, name))
            assert [type(v) for v in getattr(built, name).values()] == [
                type(v) for v in getattr(expected, name).values()]
        assert built._sources == expected._sources
        assert built._numbers == expected._numbers
        for target in list(built.incoming)[:50]:
            assert built.to(target) == expected.to(target)


def some_rows(rng: random.Random, source: str, targets: list[str], hub: bool) -> list[LinkRow]:
    rows: list[LinkRow] = []
    for ordinal in range(rng.randrange(0, 5 if not hub else 3)):
        target = "memory:a/hub" if hub and rng.random() < 0.8 else rng.choice(targets)
        key = target.rsplit("/", 1)[-1].split(":")[-1]
        status = rng.choice(STATUSES)
        rows.append((source, ordinal, target, status, None, key, key, None, None, False, 1, 1, ()))
    return rows


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_an_index_from_any_written_table_is_the_rows_index(seed: int) -> None:
    """Batches written as a first sync writes them (each lists its strings again), some
    sources written again, some dropped, statuses set in place: the index built from the
    columns is the rows' (and hubs' refs become sets alike)."""
    rng = random.Random(seed)
    sources = [f"memory:a/n{i}" for i in range(rng.randrange(1, 400))]
    targets = [*sources[:20], "unresolved:gone", "unresolved:later", "workflow:w", "memory:a/hub"]
    table = LinkTable()
    for _ in range(rng.randrange(1, 12)):
        batch = rng.sample(sources, rng.randrange(1, len(sources) + 1))
        table.put_many((s, some_rows(rng, s, targets, rng.random() < 0.7)) for s in batch)
        if rng.random() < 0.3:
            table.pop(rng.choice(sources))
        held = [(s, rows) for s, rows in table.items() if rows]
        if held and rng.random() < 0.3:
            s, rows = rng.choice(held)
            table.set_statuses([(s, rows[0][1], LinkStatus.BROKEN)])
    assert_same_index(table)


def synced(root: Path) -> MemoryStore:
    store = MemoryStore()
    Brain(root, store).sync()
    assert not store._indexed  # a first sync leaves it for the first read
    return store


@pytest.mark.parametrize("profile", ["default", "real"])
def test_the_index_after_a_first_sync_of_a_generated_workspace(tmp_path: Path, profile: str) -> None:
    root = tmp_path / "ws"
    generate(root, 400, agents=3, seed=3, profile=profile)
    assert_same_index(synced(root)._out)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_the_index_after_a_first_sync_of_an_example(tmp_path: Path, example: str) -> None:
    shutil.copytree(EXAMPLES / example, tmp_path / example)
    store = synced(tmp_path / example)
    assert_same_index(store._out)
    # And the store's first read, which builds it, answers as a store indexed by the rows.
    ids = sorted(store._memories)
    expected = LinkIndex()
    expected.build(rows for _, rows in store._out.items())
    assert store.links_to(ids) == {
        i: [store.links_from([s])[s][o] for s, o in expected.to(i)] for i in ids}


def test_a_server_builds_the_index_before_its_ready_line(tmp_path: Path) -> None:
    """`Brain.build_indexes` (called by `brain serve` before it prints "ready") leaves the
    first read nothing to build, and the answers are the lazily built store's."""
    shutil.copytree(EXAMPLES / "workspace", tmp_path / "ws")
    built, lazy = MemoryStore(), MemoryStore()
    brain = Brain(tmp_path / "ws", built)
    brain.sync()
    Brain(tmp_path / "ws", lazy).sync()
    brain.build_indexes()
    assert built._indexed
    assert not lazy._indexed
    assert built.stats() == lazy.stats()
    ids = sorted(built._memories)
    assert built.links_to(ids) == lazy.links_to(ids)
    assert built.backlinks(ids, 5) == lazy.backlinks(ids, 5)
