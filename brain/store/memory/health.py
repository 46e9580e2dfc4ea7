"""The embedded store's memory health (brain/store/health.py), from counters kept in step.

A dashboard polls health; a pass over 100,000 notes and 550,000 links per poll would cost
seconds. So the store keeps, as batches apply, what the answers are sums of:

* each note's incoming links counted by the *view key* of their source (`vis_of`: the
  private scope a source belongs to, or None for a note everyone sees), so any caller's
  in-degree of a note is a sum over the keys in its reach;
* links counted by (source scope, source key, status, the private scopes the link's status
  depends on): a link into a note out of a caller's reach is broken to it (visibility.py);
* for each missing target, the notes that want it, under the same key;
* per (scope, view key) group, the sets the lists are made of: notes nothing in their own
  view links to (`base0`; `rescued` are those of them that another private scope links to,
  few), orphans, notes without description or type, and in-degrees for the hubs.

A batch subtracts the old links of each source it touches and adds the new ones, then
re-files the notes touched (sources and targets): O(links of the batch). The sorted forms of
a group's sets are built on the first query after a change of that group and kept. The
counters are not kept until the first health query asks (a first sync pays nothing, and a
snapshot's restore neither): that query counts them once from the store's tables.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from brain.model import LinkStatus, MemoryNode, name_key, unresolved_id
from brain.store.base import WriteBatch
from brain.store.health import HealthAsk, HealthList, PageKey, ScopeHealth, ranked
from brain.store.memory.link_table import LinkTable
from brain.store.memory.rows import LinkRow
from brain.store.visibility import PRIVATE_PREFIXES

Vis = str | None  # the private scope a node is in, or None: every caller sees it
Group = tuple[str, Vis]  # (scope, view key) of notes
Facts = tuple[str, float, bool, bool]  # a note's (scope, modified_at, no description, no type)
Scopes = frozenset[str] | None  # a reach's scopes (None: everything)
_NONE: frozenset[str] = frozenset()
_BROKEN, _AMBIGUOUS = LinkStatus.BROKEN, LinkStatus.AMBIGUOUS


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

    def changed(self) -> None:
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

    def excluded(self, scopes: Scopes) -> set[str]:
        """Notes of base0 that a source in this view links to after all."""
        return {n for n, by in self.rescued.items() if scopes is None or not by.isdisjoint(scopes)}


class HealthIndex:
    """The counters; every method runs under the store's lock."""

    def __init__(self) -> None:
        self.valid = False  # counted yet (the first health query counts)
        self.notes: dict[str, Group] = {}
        self.out: dict[str, int] = {}
        self.inc: dict[str, Counter[Vis]] = {}
        # The same counts by source key: target -> links (an agent's hubs walk these, sorted).
        self.columns: dict[Vis, dict[str, int]] = {}
        self.sorted_columns: dict[Vis, list[tuple[int, str]]] = {}
        self.links: Counter[tuple[str, Vis, LinkStatus, frozenset[str]]] = Counter()
        self.wanted: dict[tuple[str, Vis, frozenset[str]], dict[str, Counter[str]]] = {}
        self.groups: dict[Group, _Group] = {}
        self.answers: dict[tuple[object, ...], Any] = {}

    # ------------------------------------------------------------------ keeping step

    def build(self, notes: Iterable[str], links: Iterable[tuple[str, list[LinkRow]]],
              facts: Callable[[str], Facts | None]) -> None:
        self.__init__()  # type: ignore[misc]
        for source, rows in links:
            self._apply(source, rows, 1)
        for note in notes:
            self._refile(note, facts)
        self.valid = True

    def begin(self, batch: WriteBatch, rows_of: Callable[[str], list[LinkRow]]) -> tuple[set[str], set[str]]:
        """Before a batch: take away the links of every source it touches."""
        if not self.valid:
            return set(), set()
        self.answers.clear()
        sources = {*batch.node_ids(), *batch.links, *(link.source for link in batch.relinks)}
        touched = set(sources)
        for source in sources:
            rows = rows_of(source)
            if rows:
                self._apply(source, rows, -1)
                touched.update(row[2] for row in rows)
        return sources, touched

    def finish(self, begun: tuple[set[str], set[str]], rows_of: Callable[[str], list[LinkRow]],
               facts: Callable[[str], Facts | None]) -> None:
        """After it: add their links as they are now, and re-file every note touched."""
        sources, touched = begun
        if not self.valid:
            return
        for source in sources:
            rows = rows_of(source)
            if rows:
                self._apply(source, rows, 1)
                touched.update(row[2] for row in rows)
        for node_id in touched:
            self._refile(node_id, facts)

    def _apply(self, source: str, rows: list[LinkRow], sign: int) -> None:
        scope, svis = scope_of_id(source), vis_of(source)
        self.out[source] = self.out.get(source, 0) + sign * len(rows)
        if not self.out[source]:
            del self.out[source]
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
            column = self.columns.setdefault(svis, {})
            if column.setdefault(target_id, 0) + sign:
                column[target_id] += sign
            else:
                del column[target_id]
            self.sorted_columns.pop(svis, None)
            by = self.inc.setdefault(target_id, Counter())
            by[svis] += sign
            if not by[svis]:
                del by[svis]
                if not by:
                    del self.inc[target_id]
            if wants is not None:
                askers = self.wanted.setdefault((scope, svis, hidden), {}).setdefault(wants, Counter())
                askers[source] += sign
                if not askers[source]:
                    del askers[source]
                    if not askers:
                        del self.wanted[(scope, svis, hidden)][wants]

    def _refile(self, node_id: str, facts: Callable[[str], Facts | None]) -> None:
        old = self.notes.pop(node_id, None)
        if old is not None:
            group = self.groups[old]
            group.notes -= 1
            group.base0.pop(node_id, None)
            group.rescued.pop(node_id, None)
            group.indegree.pop(node_id, None)
            for members in (group.orphans, group.no_desc, group.no_type):
                members.discard(node_id)
            group.changed()
        found = facts(node_id)
        if found is None:
            return
        scope, modified, no_desc, no_type = found
        vis = vis_of(node_id)
        key = self.notes[node_id] = (scope, vis)
        group = self.groups.get(key) or self.groups.setdefault(key, _Group())
        group.notes += 1
        by = self.inc.get(node_id) or Counter()
        if by.get(None, 0) + (by.get(vis, 0) if vis is not None else 0) == 0:
            group.base0[node_id] = modified
            others = frozenset(k for k in by if k is not None and k != vis)
            if others:
                group.rescued[node_id] = others
            if not self.out.get(node_id):
                group.orphans.add(node_id)
        total = sum(by.values())
        if total:
            group.indegree[node_id] = total
        if no_desc:
            group.no_desc.add(node_id)
        if no_type:
            group.no_type.add(node_id)
        group.changed()

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
        sum over the source keys it sees: walk those keys' sorted counts side by side (the
        threshold algorithm) until `top` notes are found that no note not yet met can pass."""
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
        keys = [k for k in (None, *sorted(scopes)) if self.columns.get(k)]
        columns = [self._sorted_column(k) for k in keys]
        at = [0] * len(columns)
        met: set[str] = set()
        while True:
            live = [i for i, column in enumerate(columns) if at[i] < len(column)]
            if not live:
                break
            bound = sum(-columns[i][at[i]][0] for i in live)  # the most a note not yet met has
            if len(best) >= top and -best[-1][0] > bound:
                break
            for i in live:
                node_id = columns[i][at[i]][1]
                at[i] += 1
                if node_id in met:
                    continue
                met.add(node_id)
                group = self.notes.get(node_id)
                if group is None or not in_view(group[1], scopes) or ask.scope not in (None, group[0]):
                    continue
                seen = sum(n for k, n in self.inc[node_id].items() if in_view(k, scopes))
                bisect.insort(best, (-seen, node_id))
                del best[top:]
        return [(node_id, -negative) for negative, node_id in best]

    def _sorted_column(self, key: Vis) -> list[tuple[int, str]]:
        found = self.sorted_columns.get(key)
        if found is None:
            found = self.sorted_columns[key] = sorted((-n, t) for t, n in self.columns[key].items())
        return found

    def most_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        scopes = ask.reach.scopes
        per_source_group: dict[tuple[str, Vis], list[dict[str, Counter[str]]]] = {}
        for (scope, svis, hidden), wanted in self.wanted.items():
            if not in_view(svis, scopes) or (ask.scope is not None and scope != ask.scope):
                continue
            if hidden and (scopes is None or hidden <= scopes):
                continue  # resolved as this caller sees it
            per_source_group.setdefault((scope, svis), []).append(wanted)
        totals: Counter[str] = Counter()
        for parts in per_source_group.values():
            if len(parts) == 1:  # one source group's notes are nobody else's: counts add
                for target, askers in parts[0].items():
                    totals[target] += len(askers)
            else:  # the same note may want a target under two keys: count it once
                union: dict[str, set[str]] = {}
                for part in parts:
                    for target, askers in part.items():
                        union.setdefault(target, set()).update(askers)
                for target, names in union.items():
                    totals[target] += len(names)
        return ranked(totals, top)


def _tail(keys: list[PageKey], start: int) -> Iterator[PageKey]:
    """The keys from `start` on, without copying them."""
    for i in range(start, len(keys)):
        yield keys[i]


class HealthQueries:
    """The HealthReader half of MemoryStore (brain/store/memory/store.py): answers from the
    index, counted first if it was not, and kept until the next write."""

    _health: HealthIndex
    _lock: Any
    _memories: Mapping[str, object]
    _out: LinkTable

    def _memory(self, node_id: str) -> MemoryNode | None:
        raise NotImplementedError

    def _health_facts(self, node_id: str) -> Facts | None:
        m = self._memory(node_id)
        return None if m is None else (m.scope, m.modified_at, not m.description.strip(), not m.type)

    def _answer(self, name: str, ask: HealthAsk, *extra: object) -> Any:
        with self._lock:
            index = self._health
            if not index.valid:
                index.build(list(self._memories), self._out.items(), self._health_facts)
            key = (name, ask.cache_key(), *extra)
            found = index.answers.get(key)
            if found is None:
                if len(index.answers) > 256:  # many different asks between two writes
                    index.answers.clear()
                found = index.answers[key] = getattr(index, name)(ask, *extra)
            return found

    def health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        found: list[ScopeHealth] = self._answer("counts", ask)
        return found

    def health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        found: list[PageKey] = self._answer("page", ask, which, after, limit)
        return found

    def health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._answer("hubs", ask, top)
        return found

    def health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._answer("most_wanted", ask, top)
        return found
