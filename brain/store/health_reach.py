"""An agent's hubs and most wanted notes, kept summed per reach.

An admin's hubs and most wanted are the heads of lists the counters keep sorted
(brain/store/health_counts.py). An agent sees a sum: a note's in-degree is over the source
keys in its reach (shared notes' links and its own scope's), a target's wanting notes too.
Walking those keys' sorted lists side by side until no note not yet met could pass the
top N (the threshold algorithm) met thousands of notes at 100,000: the counts are small
and tied, so the bound falls slowly (p95 208 ms after an edit, bench/results/health.json).

So the sums themselves are kept, per reach asked about (a dashboard's agents are a few;
at most MAX_REACHES, then they are summed again on their next question): built from the
counters on the first question (a sum of two or three dicts and a sort), then changed in
place by every link the counters add or take away, one bisect per reach whose keys hold
the link's source. An agent's hubs are the head of its list; its most wanted the head of
its list merged with the few targets only links into other agents' private notes make
wanted (counted at the question: health_counts.py `most_wanted`).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping

MAX_REACHES = 16  # reaches whose sums are kept; past it they are dropped and summed again


def resort(listed: list[tuple[int, str]] | None, target: str, was: int, now: int) -> None:
    """A sorted (-count, target) list, if built, with the target's count moved from `was` to `now`."""
    if listed is None or was == now:
        return
    if was:
        del listed[bisect.bisect_left(listed, (-was, target))]
    if now:
        bisect.insort(listed, (-now, target))


class Summed:
    """Counts summed over some keys, kept in step, with their (-count, id) sorted form."""

    __slots__ = ("counts", "ordered")

    def __init__(self, parts: Iterable[Mapping[str, int]]) -> None:
        total: Counter[str] = Counter()
        for part in parts:
            total.update(part)
        self.counts: dict[str, int] = dict(total)
        self.ordered = sorted((-n, t) for t, n in self.counts.items())

    def change(self, target: str, delta: int) -> None:
        was = self.counts.get(target, 0)
        now = was + delta
        if now:
            self.counts[target] = now
        else:
            self.counts.pop(target, None)
        resort(self.ordered, target, was, now)


class ReachSums:
    """Per reach: links into each node from the source keys it sees (hubs), and per (scope
    asked, reach) the notes wanting each target under keys broken to every caller (most wanted)."""

    __slots__ = ("hubs", "wanted")

    def __init__(self) -> None:
        self.hubs: dict[frozenset[str], Summed] = {}
        self.wanted: dict[tuple[str | None, frozenset[str]], Summed] = {}

    def clear(self) -> None:
        self.hubs.clear()
        self.wanted.clear()

    def hubs_of(self, scopes: frozenset[str], columns: Mapping[str | None, Mapping[str, int]]) -> Summed:
        found = self.hubs.get(scopes)
        if found is None:
            if len(self.hubs) >= MAX_REACHES:
                self.hubs.clear()
            found = self.hubs[scopes] = Summed(
                part for k in (None, *scopes) if (part := columns.get(k)) is not None
            )
        return found

    def wanted_of(self, scope: str | None, scopes: frozenset[str],
                  merged: Mapping[tuple[str | None, str | None], Mapping[str, int]]) -> Summed:
        key = (scope, scopes)
        found = self.wanted.get(key)
        if found is None:
            if len(self.wanted) >= MAX_REACHES:
                self.wanted.clear()
            found = self.wanted[key] = Summed(
                part for svis in (None, *scopes) if (part := merged.get((scope, svis))) is not None
            )
        return found

    def column_changed(self, svis: str | None, target: str, delta: int) -> None:
        """`delta` links from a source of key `svis` into `target`."""
        for scopes, summed in self.hubs.items():
            if svis is None or svis in scopes:
                summed.change(target, delta)

    def wanting_changed(self, scope: str, svis: str | None, target: str, delta: int) -> None:
        """`delta` notes of (scope, svis) now want `target` under a key broken to every caller."""
        for (asked, scopes), summed in self.wanted.items():
            if (asked is None or asked == scope) and (svis is None or svis in scopes):
                summed.change(target, delta)
