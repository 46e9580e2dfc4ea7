"""A Brain dropped after its first sync is freed by reference counts alone.

A first sync freezes what it built (brain/gcpause.py): the cyclic collector never looks at it
again. A Brain in a reference cycle (its ingester and its store's vector index held bound
methods of their owners) was then never freed once dropped: about 23 MB a 10,000-note
workspace, again for each Brain a long-lived process replaced (a language server's session, an
as-of base). Checked with the collector off, so nothing but reference counts can free it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.gcpause import weakly
from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"


@pytest.fixture
def collector_off() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures("collector_off")
def test_a_synced_brain_once_dropped_is_freed_with_its_store_and_ingester() -> None:
    brain = Brain(EXAMPLE, MemoryStore(), cache=False)
    assert brain.sync().parsed > 0
    seen = [weakref.ref(brain), weakref.ref(brain.store), weakref.ref(brain.ingester)]
    brain.close()
    del brain
    assert [ref() is None for ref in seen] == [True, True, True]


@pytest.mark.usefixtures("collector_off")
def test_a_dropped_brain_that_was_never_closed_is_freed_too() -> None:
    brain = Brain(EXAMPLE, MemoryStore(), cache=False)
    brain.sync()
    seen = weakref.ref(brain)
    del brain
    assert seen() is None


class Owner:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def told(self, n: int) -> int:
        self.calls.append(n)
        return n * 2


def test_weakly_calls_the_method_while_its_object_lives_and_none_after() -> None:
    owner = Owner()
    call = weakly(owner.told)
    assert call(3) == 6
    assert owner.calls == [3]
    seen = weakref.ref(owner)
    del owner
    assert seen() is None  # the callback did not keep it
    assert call(4) is None
