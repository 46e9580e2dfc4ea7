"""The embedded store's link indexes (brain/store/memory/links/index.py) as packed numbers answer as
sets of (source, ordinal) did: the same links to each target and asking for each key, in
(source id, ordinal) order, through adds and removes of many links to one target."""

from __future__ import annotations

import random
from array import array

import pytest

from brain.model import LinkStatus
from brain.store.memory.links import index as memory_links
from brain.store.memory.links.index import LinkIndex, _discard
from brain.store.memory.rows import LinkRow


def row(source: str, ordinal: int, target: str, key: str) -> LinkRow:
    return (source, ordinal, target, LinkStatus.RESOLVED, f"[[{key}]]", key, key, None, None,
            False, 1, 1, ())


class Model:
    """The index as it was: a set per target and per key."""

    def __init__(self) -> None:
        self.incoming: dict[str, set[tuple[str, int]]] = {}
        self.by_key: dict[str, set[tuple[str, int]]] = {}

    def add(self, r: LinkRow) -> None:
        self.incoming.setdefault(r[2], set()).add((r[0], r[1]))
        self.by_key.setdefault(r[6], set()).add((r[0], r[1]))

    def remove(self, r: LinkRow) -> None:
        self.incoming.get(r[2], set()).discard((r[0], r[1]))
        self.by_key.get(r[6], set()).discard((r[0], r[1]))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("set_after", [10**6, 20])
def test_adds_and_removes_answer_as_sets_did(
    seed: int, set_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrays only (a hub of hundreds of links), and hubs turned into sets (after 20)."""
    monkeypatch.setattr(memory_links, "SET_AFTER", set_after)
    rng = random.Random(seed)
    # Sources numbered in an order unlike their ids' (z before a): reads sort by id.
    sources = [f"memory:s/{name}" for name in rng.sample([f"n{i:03}" for i in range(300)], 300)]
    targets = ["memory:s/hub", "unresolved:gone", *[f"memory:s/t{i}" for i in range(20)]]
    index, model = LinkIndex(), Model()
    held: list[LinkRow] = []
    for _ in range(3000):
        if held and rng.random() < 0.35:
            r = held.pop(rng.randrange(len(held)))
            touched: set[str] = set()
            index.remove(r, touched)
            model.remove(r)
            assert touched == {r[2]}
        else:
            target = rng.choice(targets[:2]) if rng.random() < 0.6 else rng.choice(targets)
            source = rng.choice(sources)
            ordinal = rng.randrange(1 << 20)
            if any((h[0], h[1]) == (source, ordinal) for h in held):
                continue  # a link sits in one place
            r = row(source, ordinal, target, target.rsplit("/", 1)[-1])
            held.append(r)
            index.add(r)
            model.add(r)
    assert len(model.incoming["memory:s/hub"]) > 100  # removes from a long array were tried
    assert isinstance(index.incoming["memory:s/hub"], set) == (set_after == 20)
    for target, refs in model.incoming.items():
        assert index.to(target) == sorted(refs)
        assert index.has_incoming(target) == bool(refs)
    for key, refs in model.by_key.items():
        assert index.asking(key) == sorted(refs)
    assert set(index.unresolved) == {"unresolved:gone"}
    rebuilt = LinkIndex()
    by_source: dict[str, list[LinkRow]] = {}
    for r in held:
        by_source.setdefault(r[0], []).append(r)
    rebuilt.build(by_source.values())
    for target, refs in model.incoming.items():
        assert rebuilt.to(target) == sorted(refs)


def test_a_number_is_found_only_where_a_number_starts() -> None:
    # 0x0100...00 and 0x00...01 side by side hold the bytes of 1 << 8 across their border.
    refs = array("q", [1 << 56, 0] * 10 + [1 << 8])
    _discard(refs, 1 << 8)
    assert list(refs) == [1 << 56, 0] * 10
    _discard(refs, 12345)  # not there: nothing removed
    assert len(refs) == 20
    _discard(refs, 0)
    assert list(refs) == [1 << 56] + [1 << 56, 0] * 9
