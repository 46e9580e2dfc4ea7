"""The small moments asked for lately (note.py, around.py), kept by exactly what they are
built from, so asking the same note at the same moment again is a lookup, not a build.

A note's page as of t asks for it again on each view, and GraphQL asks `memory(asOf:)` per
field group; each ask built the same small graph again (about 20 ms at 10,000 notes, most of
it the ingest of a dozen files). A small moment is a function of: which answer (the note's
own, or with its backlinks), the note, the moment `at`, the records then (their count and the
first and last one's tags: retention rewriting the history moves them) and the graph now (its
count of changes: a file no record names is read as it is now). So that is its key, and a
hit is the very graph a build would make. Bounded by `KEPT` entries (least recently asked
dropped); a few hundred kB each.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from brain.registry import OnePer
from brain.tool.asof.counts.series import tag
from brain.tool.asof.graph import MomentBrain, Moments
from brain.tool.history.log import HistoryRecord

KEPT = 64

Key = tuple[object, ...]


class _Kept:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.graphs: OrderedDict[Key, MomentBrain] = OrderedDict()


_KEPT: OnePer[Moments, _Kept] = OnePer(lambda moments: _Kept())


def small_key(kind: str, moments: Moments, rel: str, at: float,
              records: Sequence[HistoryRecord]) -> Key:
    """What a small moment is built from (see the module's docstring)."""
    ends = (tag(records[0]), tag(records[-1])) if records else ()
    return (kind, rel, at, len(records), ends, moments.live.changes)


def kept_or_built(moments: Moments, key: Key, build: Callable[[], MomentBrain]) -> MomentBrain:
    """The small moment of `key`: kept, or built now and kept (a refusal is not kept)."""
    kept = _KEPT(moments)
    with kept.lock:
        found = kept.graphs.get(key)
        if found is not None:
            kept.graphs.move_to_end(key)
            return found
    built = build()
    with kept.lock:
        kept.graphs[key] = built
        while len(kept.graphs) > KEPT:
            kept.graphs.popitem(last=False)
    return built


__all__ = ["KEPT", "kept_or_built", "small_key"]
