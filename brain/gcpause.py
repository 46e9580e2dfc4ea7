"""Building a whole graph at once allocates millions of acyclic objects: the cyclic
collector would rescan them again and again for nothing (a full ingest, a snapshot load)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
