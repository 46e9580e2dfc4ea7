"""Building a whole graph at once allocates millions of acyclic objects: the cyclic
collector would rescan them again and again for nothing (a full ingest, a snapshot load)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused(settle: bool = True) -> Iterator[None]:
    """No cyclic GC while the block allocates; `settle` then moves what survived to the
    permanent generation, so later collections don't rescan the graph."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        if settle:
            gc.freeze()
