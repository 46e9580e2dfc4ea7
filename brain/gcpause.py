"""Building a whole graph at once allocates millions of acyclic objects: the cyclic
collector would rescan them again and again for nothing (a full ingest, a snapshot load).

What such a block froze is freed by reference counts alone, never by the collector: an object
that calls back into its owner holds it `weakly`, or the owner, the graph and all would stay
in memory once dropped (a cycle, frozen)."""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def gc_paused(settle: bool = True) -> Iterator[None]:
    """No cyclic GC while the block allocates; `settle` then moves what survived to the
    permanent generation, so later collections don't rescan the graph. Only when the block
    completes: what a block that raised leaves (a first sync cut short: the driver's rows in
    cycles through the exception's frames) is garbage, which frozen would never be freed."""
    enabled = gc.isenabled()
    gc.disable()
    completed = False
    try:
        yield
        completed = True
    finally:
        if enabled:
            gc.enable()
        if settle and completed:
            gc.freeze()


def weakly(method: Callable[P, R]) -> Callable[P, R | None]:
    """`method` (a bound method) called through a weak reference to its object: None once the
    object is gone. A Brain's ingester and a store's vector index call back into their owner;
    a strong bound method made a cycle (owner -> ingester -> method -> owner), and after a
    first sync's freeze a Brain that a long-lived process dropped (each as-of moment `brain
    serve` builds) was never freed: about 23 MB a 10,000-note workspace."""
    ref = weakref.WeakMethod(method)

    def call(*args: P.args, **kwargs: P.kwargs) -> R | None:
        bound = ref()
        return None if bound is None else bound(*args, **kwargs)

    return call
