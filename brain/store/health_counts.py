"""The counters both stores answer memory health from (brain/store/health.py), kept in step.

A dashboard polls health; a pass over 100,000 notes and 550,000 links per poll would cost
seconds. So each store keeps, as its batches apply, what the answers are sums of:

* each note's incoming links counted by the *view key* of their source (`vis_of`: the
  private scope a source belongs to, or None for a note everyone sees), so any caller's
  in-degree of a note is a sum over the keys in its reach;
* links counted by (source scope, source key, status, the private scopes the link's status
  depends on): a link into a note out of a caller's reach is broken to it (visibility.py);
* for each missing target, the notes that want it, under the same key, and how many, merged
  over the keys whose status no caller sees differently (by scope and source key, or all);
* per (scope, view key) group, the sets the lists are made of: notes nothing in their own
  view links to (`base0`; `rescued` are those of them that another private scope links to,
  few), orphans, notes without description or type, and in-degrees for the hubs.

A batch subtracts the old links of each source it touches and adds the new ones, then
re-files the notes touched (sources and targets): O(links of the batch). The sorted forms of
a group's sets (the pages, the stale cutoff, the hubs) are built on the first query that
needs them and from then on edited in place, an insert or a removal per note re-filed, so
the first question after an edit costs what the edit changed, not a sort of the group.
A batch of more than `REBUILD_SORTED` sources (a first sync) drops them to be sorted again.
An agent's hubs and most wanted are sums over the keys it sees, kept per reach the same way
(brain/store/health_reach.py).

The embedded store feeds it from its tables (brain/store/memory/health.py), Neo4j from the
links each write changed, its own or another process's (brain/store/neo4j/health/counters.py).
"""

from __future__ import annotations

import bisect
import functools
import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from brain.model import LinkStatus, name_key, unresolved_id
from brain.store.base import WriteBatch
from brain.store.health import HealthAsk, HealthList, PageKey, ScopeHealth
from brain.store.health_reach import ReachSums
from brain.store.health_reach import resort as _resort
from brain.store.visibility import PRIVATE_PREFIXES

Vis = str | None  # the private scope a node is in, or None: every caller sees it
Group = tuple[str, Vis]  # (scope, view key) of notes
Facts = tuple[str, float, bool, bool]  # a note's (scope, modified_at, no description, no type)
Scopes = frozenset[str] | None  # a reach's scopes (None: everything)
WantedKey = tuple[str, Vis, frozenset[str]]  # a wanting link's (source scope, source key, hidden)
Askers = Counter[str] | str  # the notes wanting a target: one note wanting it once is its id
# A stored link as both stores hold it: brain.model.Link or the embedded store's LinkRow,
# read by position (2: target id, 3: status, 5: target as written, 12: candidates).
Row = tuple[Any, ...]
RowsOf = Callable[[str], Sequence[Row]]
_NONE: frozenset[str] = frozenset()
_BROKEN, _AMBIGUOUS = LinkStatus.BROKEN, LinkStatus.AMBIGUOUS
ALL = "\0every source key"  # a `merged` key over every source key (no scope is named so)
REBUILD_SORTED = 2_000  # sources in one batch past which sorting again beats inserting one by one


@functools.lru_cache(maxsize=1 << 18)  # a link's target is met again and again
def vis_of(node_id: str) -> Vis:
    """The scope whose callers alone see this node (Reach.sees), or None."""
    if not node_id.startswith(PRIVATE_PREFIXES):
        return None
    scope = node_id.split(":", 1)[1].split("/", 1)[0]
    return None if ":" in scope else scope


def scope_of_id(node_id: str) -> str:
    return node_id.split(":", 1)[1].split("/", 1)[0]


def in_view(vis: Vis, scopes: Scopes) -> bool:
    return vis is None or scopes is None or vis in scopes


def batch_sources(batch: WriteBatch) -> set[str]:
    """The notes whose links a batch may change: its nodes, its sources, its relinks' sources."""
    return {*batch.node_ids(), *batch.links, *(link.source for link in batch.relinks)}


class _Group:
    """One (scope, view key)'s notes as sets, and their sorted forms once asked for."""

    __slots__ = ("_sorted", "base0", "indegree", "no_desc", "no_type", "notes", "orphans", "rescued")

    def __init__(self) -> None:
        self.notes = 0
        self.base0: dict[str, float] = {}  # nothing in the note's own view links to it: its modified_at
        self.rescued: dict[str, frozenset[str]] = {}  # of base0: the other private scopes linking to it
        self.orphans: set[str] = set()  # of base0: and it links to nothing
        self.no_desc: set[str] = set()
        self.no_type: set[str] = set()
        self.indegree: dict[str, int] = {}  # every link into the note (>0 only)
        self._sorted: dict[str, list[Any]] = {}

    def unsorted(self) -> None:
        self._sorted.clear()

    def sorted(self, which: str) -> list[Any]:
        found = self._sorted.get(which)
        if found is None:
            if which == "stale":
                found = sorted((t, n) for n, t in self.base0.items())
            elif which == "hubs":
                found = sorted((-d, n) for n, d in self.indegree.items())
            else:
                members = {"orphans": self.orphans, "without_description": self.no_desc,
                           "without_type": self.no_type}[which]
                found = [(0.0, n) for n in sorted(members)]
            self._sorted[which] = found
        return found

    def drop(self, node_id: str) -> None:
        """Take the note out of every set and sorted form."""
        self.notes -= 1
        at = self.base0.pop(node_id, None)
        if at is not None:
            self._unsort("stale", (at, node_id))
        self.rescued.pop(node_id, None)
        degree = self.indegree.pop(node_id, None)
        if degree is not None:
            self._unsort("hubs", (-degree, node_id))
        for which, members in (("orphans", self.orphans), ("without_description", self.no_desc),
                               ("without_type", self.no_type)):
            if node_id in members:
                members.discard(node_id)
                self._unsort(which, (0.0, node_id))

    def add(self, node_id: str, which: str, key: tuple[Any, str]) -> None:
        found = self._sorted.get(which)
        if found is not None:
            bisect.insort(found, key)

    def _unsort(self, which: str, key: tuple[Any, str]) -> None:
        found = self._sorted.get(which)
        if found is not None:
            i = bisect.bisect_left(found, key)
            if i < len(found) and found[i] == key:
                del found[i]

    def excluded(self, scopes: Scopes) -> set[str]:
        """Notes of base0 that a source in this view links to after all."""
        return {n for n, by in self.rescued.items() if scopes is None or not by.isdisjoint(scopes)}


class HealthIndex:
    """The counters. The store calls every method under its own lock."""

    def __init__(self, valid: bool = False) -> None:
        self.valid = valid  # in step with the store (else counted again before a question)
        self.counted = 0  # times counted from the whole store (tests and benchmarks read it)
        self.notes: dict[str, Group] = {}
        self.out: dict[str, int] = {}
        # A note's incoming links by source key; a plain int where every source has the
        # note's own key (`vis_of` of the note: its agent's notes link to it, or, for a shared
        # note, shared notes), most notes: a Counter a note was about 200 bytes of a first
        # sync's count of 880 a note (brain/store/memory/health.py; 860 MB at 1,000,000).
        self.inc: dict[str, Counter[Vis] | int] = {}
        # Each (scope, view key) once: a tuple a note in `notes` was 56 bytes more.
        self.group_keys: dict[Group, Group] = {}
        # The same counts by source key: target -> links (an agent's hubs walk these, sorted).
        self.columns: dict[Vis, dict[str, int]] = {}
        self.links: Counter[tuple[str, Vis, LinkStatus, frozenset[str]]] = Counter()
        # Each key's wanted targets and the notes wanting them: the one note's id where one
        # note wants it once (most), else a Counter (`_want`; about 170 bytes a note less).
        self.wanted: dict[WantedKey, dict[str, Askers]] = {}
        # The notes wanting each target over the keys no caller sees broken differently (no
        # hidden scope), merged by (scope or None: every scope, source key or ALL): an admin's
        # most wanted is the head of one list, an agent's a walk over two or three.
        self.merged: dict[tuple[str | None, str | None], dict[str, int]] = {}
        self.merged_sorted: dict[tuple[str | None, str | None], list[tuple[int, str]]] = {}
        self.groups: dict[Group, _Group] = {}
        self.reaches = ReachSums()  # agents' hubs and most wanted, summed (health_reach.py)
        self.answers: dict[tuple[object, ...], Any] = {}  # brain/store/health.py HealthAnswers

    # ------------------------------------------------------------------ keeping step

    def build(self, notes: Iterable[str], links: Iterable[tuple[str, Sequence[Row]]],
              facts: Callable[[str], Facts | None]) -> None:
        counted = self.counted
        self.__init__()  # type: ignore[misc]
        self.counted = counted + 1
        for source, rows in links:
            self._apply(source, rows, 1)
        for note in notes:
            self._refile(note, facts)
        self.valid = True

    def begin(self, sources: set[str], rows_of: RowsOf) -> set[str]:
        """Before a batch: take away the links of every source it touches; the notes touched."""
        self.answers.clear()
        if len(sources) > REBUILD_SORTED:
            for group in self.groups.values():
                group.unsorted()
            self.merged_sorted.clear()
            self.reaches.clear()
        touched = set(sources)
        for source in sources:
            rows = rows_of(source)
            if rows:
                self._apply(source, rows, -1)
                touched.update(row[2] for row in rows)
        return touched

    def finish(self, sources: set[str], touched: set[str], rows_of: RowsOf,
               facts: Callable[[str], Facts | None]) -> None:
        """After it: add their links as they are now, and re-file every note touched."""
        for source in sources:
            rows = rows_of(source)
            if rows:
                self._apply(source, rows, 1)
                touched.update(row[2] for row in rows)
        for node_id in touched:
            self._refile(node_id, facts)

    def _apply(self, source: str, rows: Sequence[Row], sign: int) -> None:
        scope, svis = scope_of_id(source), vis_of(source)
        self.out[source] = self.out.get(source, 0) + sign * len(rows)
        if not self.out[source]:
            del self.out[source]
        column = self.columns.setdefault(svis, {})
        for row in rows:
            target_id, status = row[2], row[3]
            hidden, wants = _NONE, target_id if status is _BROKEN else None
            if status is not _BROKEN:
                tvis = vis_of(target_id)
                private = {tvis} if tvis is not None and tvis != svis else set()
                if status is _AMBIGUOUS:
                    private.update(v for c in row[12] if (v := vis_of(c)) is not None and v != svis)
                if private:  # broken to a caller that does not see them (Reach.link)
                    hidden = frozenset(private)
                    wants = target_id if tvis is None else unresolved_id(name_key(row[5]))
            self.links[(scope, svis, status, hidden)] += sign
            was = column.get(target_id, 0)
            if was + sign:
                column[target_id] = was + sign
            else:
                del column[target_id]
            if self.reaches.hubs:  # agents' sums, kept sorted in place
                self.reaches.column_changed(svis, target_id, sign)
            self._count_in(target_id, svis, sign)
            if wants is not None:
                key = (scope, svis, hidden)
                part = self.wanted.get(key)
                if part is None:
                    part = self.wanted[key] = {}
                was, now = _want(part, wants, source, sign)
                if now != was and not hidden:  # the merged counts (see `merged`)
                    for merged in ((scope, svis), (None, svis), (scope, ALL), (None, ALL)):
                        self._merge(merged, wants, now - was)
                    if self.reaches.wanted:
                        self.reaches.wanting_changed(scope, svis, source, wants, now - was)
                elif hidden and self.reaches.wanted:
                    self.reaches.hidden_changed(scope, svis, hidden, source, wants, sign,
                                                self._plain(source, wants))

    def _count_in(self, target_id: str, svis: Vis, sign: int) -> None:
        """One link into `target_id` from a source of key `svis`, added or taken away. The
        held form is canonical (an int exactly when only the note's own key counts), so
        counting once and counting write by write hold the same."""
        inc = self.inc
        by = inc.get(target_id)
        own = vis_of(target_id)
        if svis == own and (by is None or type(by) is int):
            left = (by or 0) + sign
            if left:
                inc[target_id] = left
            else:
                del inc[target_id]
            return
        if by is None:
            by = inc[target_id] = Counter()
        elif type(by) is int:
            by = inc[target_id] = Counter({own: by})
        assert not isinstance(by, int)
        by[svis] += sign
        if not by[svis]:
            del by[svis]
            if not by:
                del inc[target_id]
            elif len(by) == 1 and own in by:
                inc[target_id] = by[own]

    def _incoming(self, node_id: str) -> Counter[Vis] | dict[Vis, int]:
        by = self.inc.get(node_id)
        if by is None:
            return {}
        return {vis_of(node_id): by} if type(by) is int else by  # type: ignore[return-value]

    def _refile(self, node_id: str, facts: Callable[[str], Facts | None]) -> None:
        old = self.notes.pop(node_id, None)
        if old is not None:
            self.groups[old].drop(node_id)
        found = facts(node_id)
        if found is None:
            return
        scope, modified, no_desc, no_type = found
        vis = vis_of(node_id)
        key = (scope, vis)
        key = self.notes[node_id] = self.group_keys.setdefault(key, key)
        group = self.groups.get(key) or self.groups.setdefault(key, _Group())
        group.notes += 1
        by = self._incoming(node_id)
        if by.get(None, 0) + (by.get(vis, 0) if vis is not None else 0) == 0:
            group.base0[node_id] = modified
            group.add(node_id, "stale", (modified, node_id))
            others = frozenset(k for k in by if k is not None and k != vis)
            if others:
                group.rescued[node_id] = others
            if not self.out.get(node_id):
                group.orphans.add(node_id)
                group.add(node_id, "orphans", (0.0, node_id))
        total = sum(by.values())
        if total:
            group.indegree[node_id] = total
            group.add(node_id, "hubs", (-total, node_id))
        if no_desc:
            group.no_desc.add(node_id)
            group.add(node_id, "without_description", (0.0, node_id))
        if no_type:
            group.no_type.add(node_id)
            group.add(node_id, "without_type", (0.0, node_id))

    # ------------------------------------------------------------------ answers

    def _in_view(self, ask: HealthAsk) -> list[tuple[Group, _Group]]:
        scopes = ask.reach.scopes
        return sorted(
            (key, group) for key, group in self.groups.items()
            if group.notes and in_view(key[1], scopes) and (ask.scope is None or key[0] == ask.scope)
        )

    def counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        scopes, cutoff = ask.reach.scopes, ask.stale_before
        rows: dict[str, dict[str, int]] = {}
        for (scope, _), group in self._in_view(ask):
            row = rows.setdefault(scope, Counter())
            excluded = group.excluded(scopes)
            stale = group.sorted("stale")
            row["notes"] += group.notes
            row["orphans"] += len(group.orphans) - len(excluded & group.orphans)
            row["stale"] += bisect.bisect_left(stale, (cutoff, "")) - sum(
                1 for n in excluded if group.base0[n] < cutoff
            )
            row["without_description"] += len(group.no_desc)
            row["without_type"] += len(group.no_type)
        for (scope, svis, status, hidden), n in self.links.items():
            row_of = rows.get(scope)
            if not n or row_of is None or not in_view(svis, scopes):
                continue
            if hidden and scopes is not None and not hidden <= scopes:
                status = _BROKEN
            row_of["links"] += n
            if status is not LinkStatus.RESOLVED:
                row_of[status.name.lower()] += n
        return [ScopeHealth(scope, **row) for scope, row in sorted(rows.items())]

    def page(self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int) -> list[PageKey]:
        scopes = ask.reach.scopes
        name = which.value
        skip: set[str] = set()
        lists: list[Iterator[PageKey]] = []
        for _, group in self._in_view(ask):
            keys: list[PageKey] = group.sorted(name)
            start = 0 if after is None else bisect.bisect_right(keys, after)
            lists.append(_tail(keys, start))
            if which in (HealthList.ORPHANS, HealthList.STALE):
                skip |= group.excluded(scopes)
        out: list[PageKey] = []
        for key in heapq.merge(*lists):
            if len(out) >= limit or (which is HealthList.STALE and key[0] >= ask.stale_before):
                break
            if key[1] not in skip:
                out.append(key if which is HealthList.STALE else (0.0, key[1]))
        return out

    def hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        """The notes by in-degree, most first. An admin's: a merge of the groups' sorted
        in-degrees (the first `top` are the answer). Another caller's in-degree of a note is a
        sum over the source keys it sees: the head of that sum, kept sorted for its reach
        (brain/store/health_reach.py), passing targets that are not notes in view."""
        if top <= 0:
            return []
        scopes = ask.reach.scopes
        best: list[tuple[int, str]] = []  # (-seen, id), sorted
        if scopes is None:
            for negative, node_id in heapq.merge(*(g.sorted("hubs") for _, g in self._in_view(ask))):
                if len(best) >= top:
                    break
                best.append((negative, node_id))
            return [(node_id, -negative) for negative, node_id in best]
        for negative, node_id in self.reaches.hubs_of(scopes, self.columns).ordered:
            group = self.notes.get(node_id)  # an Unresolved target, or a note out of view: passed
            if group is None or not in_view(group[1], scopes) or ask.scope not in (None, group[0]):
                continue
            best.append((negative, node_id))
            if len(best) >= top:
                break
        return [(node_id, -negative) for negative, node_id in best]

    def most_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        """The targets most notes want, as the caller sees it. A target's count is, over the
        source groups in view, how many notes of the group want it under any key that is
        broken to the caller (a note may want it under two: counted once). An admin's is the
        head of one merged list. An agent's: the head of its source keys' merged lists summed
        and kept sorted for its reach (brain/store/health_reach.py), merged with the targets
        its hidden keys (links into other agents' notes) add notes to, counted here."""
        if top <= 0:
            return []
        scopes = ask.reach.scopes
        if scopes is None:  # no hidden key is broken to an admin: one merged list
            return [(t, -n) for n, t in self._sorted_merged((ask.scope, ALL))[:top]]
        summed = self.reaches.wanted_of(ask.scope, scopes, self.merged, self.wanted, self._plain)
        return [(target, -negative) for negative, target in summed.ordered[:top]]

    def _plain(self, source: str, target: str) -> bool:
        """Whether the note wants the target under a key broken to every caller (no hidden scope)."""
        found = self.wanted.get((scope_of_id(source), vis_of(source), _NONE), {}).get(target)
        return found == source if type(found) is str else found is not None and source in found

    def _merge(self, key: tuple[str | None, str | None], target: str, change: int) -> None:
        counts = self.merged.setdefault(key, {})
        was = counts.get(target, 0)
        if was + change:
            counts[target] = was + change
        else:
            del counts[target]
        _resort(self.merged_sorted.get(key), target, was, was + change)

    def _sorted_merged(self, key: tuple[str | None, str | None]) -> list[tuple[int, str]]:
        found = self.merged_sorted.get(key)
        if found is None:
            found = self.merged_sorted[key] = sorted((-n, t) for t, n in self.merged.get(key, {}).items())
        return found


def _want(part: dict[str, Askers], wants: str, source: str, sign: int) -> tuple[int, int]:
    """Note `source` wants `wants` once more (`sign` 1) or once less (-1); how many notes
    wanted it before and after. Canonical: a str exactly where one note wants it once."""
    askers = part.get(wants)
    if type(askers) is str:
        if askers == source and sign < 0:
            del part[wants]
            return 1, 0
        askers = part[wants] = Counter({askers: 1})
    elif askers is None:
        if sign > 0:
            part[wants] = source
            return 0, 1
        askers = part[wants] = Counter()
    assert isinstance(askers, Counter)
    was = len(askers)
    askers[source] += sign
    if not askers[source]:
        del askers[source]
        if not askers:
            del part[wants]
    if len(askers) == 1:
        (only, times), = askers.items()
        if times == 1:
            part[wants] = only
    return was, len(askers)


def _tail(keys: list[PageKey], start: int) -> Iterator[PageKey]:
    """The keys from `start` on, without copying them."""
    for i in range(start, len(keys)):
        yield keys[i]
