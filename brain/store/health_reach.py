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
the link's source. An agent's hubs are the head of its list, and so is its most wanted:
a target's count there is how many notes in view want it under a key broken to the agent,
a note counted once however many of its links want the target. Links into other agents'
private notes are such keys for this agent and not for others (at 100,000 notes, 1,700
targets for one agent): each reach keeps, per target, its notes wanting it only under those
(`hidden`), so the count moves exactly when a note starts or stops wanting the target.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

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

    __slots__ = ("counts", "hidden", "ordered")

    def __init__(self, parts: Iterable[Mapping[str, int]], hidden: Mapping[str, Counter[str]] = {},
                 plain: Callable[[str, str], bool] | None = None) -> None:
        total: Counter[str] = Counter()
        for part in parts:
            total.update(part)
        # Most wanted: per target, the links of each note in view under keys with hidden
        # scopes not all in the reach; such a note counts if it does not want it plainly too.
        self.hidden: dict[str, Counter[str]] = dict(hidden)
        for target, notes in self.hidden.items():
            total[target] += sum(1 for source in notes if plain is None or not plain(source, target))
        self.counts: dict[str, int] = {t: n for t, n in total.items() if n}
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

    def wanted_of(
        self, scope: str | None, scopes: frozenset[str],
        merged: Mapping[tuple[str | None, str | None], Mapping[str, int]],
        wanted: Mapping[tuple[str, str | None, frozenset[str]], Mapping[str, Counter[str] | str]],
        plain: Callable[[str, str], bool],
    ) -> Summed:
        """`merged`: notes wanting each target under keys broken to every caller, by (scope
        or None, source key); `wanted`: each key's targets and the notes wanting them;
        `plain(source, target)`: whether the note wants the target under a key of the first kind."""
        key = (scope, scopes)
        found = self.wanted.get(key)
        if found is None:
            if len(self.wanted) >= MAX_REACHES:
                self.wanted.clear()
            hidden: dict[str, Counter[str]] = {}
            for (source_scope, svis, behind), targets in wanted.items():
                if behind and not behind <= scopes and _sees(scope, scopes, source_scope, svis):
                    for target, notes in targets.items():  # an id: that note, once
                        counted = hidden.setdefault(target, Counter())
                        if type(notes) is str:
                            counted[notes] += 1
                        else:
                            counted.update(notes)
            found = self.wanted[key] = Summed(
                (part for svis in (None, *scopes) if (part := merged.get((scope, svis))) is not None),
                hidden, plain,
            )
        return found

    def column_changed(self, svis: str | None, target: str, delta: int) -> None:
        """`delta` links from a source of key `svis` into `target`."""
        for scopes, summed in self.hubs.items():
            if svis is None or svis in scopes:
                summed.change(target, delta)

    def wanting_changed(self, scope: str, svis: str | None, source: str, target: str, delta: int) -> None:
        """Note `source` of (scope, svis) started (1) or stopped (-1) wanting `target` under a
        key broken to every caller."""
        for (asked, scopes), summed in self.wanted.items():
            if not _sees(asked, scopes, scope, svis):
                continue
            notes = summed.hidden.get(target)
            if notes is None or not notes.get(source):  # else it wants the target anyway
                summed.change(target, delta)

    def hidden_changed(self, scope: str, svis: str | None, behind: frozenset[str], source: str,
                       target: str, sign: int, plain: bool) -> None:
        """A link of note `source` wanting `target` under hidden scopes `behind` was added (1)
        or taken away (-1); `plain`: the note wants the target under a key of every caller."""
        for (asked, scopes), summed in self.wanted.items():
            if behind <= scopes or not _sees(asked, scopes, scope, svis):
                continue
            notes = summed.hidden.get(target)
            if notes is None:
                notes = summed.hidden[target] = Counter()
            was = notes[source]
            if was + sign:
                notes[source] = was + sign
            else:
                del notes[source]
                if not notes:
                    del summed.hidden[target]
            if not plain and (was == 0) != (was + sign == 0):
                summed.change(target, sign)


def _sees(asked: str | None, scopes: frozenset[str], scope: str, svis: str | None) -> bool:
    """Whether a reach's question (about scope `asked`, or all) counts sources of (scope, svis)."""
    return (asked is None or asked == scope) and (svis is None or svis in scopes)
