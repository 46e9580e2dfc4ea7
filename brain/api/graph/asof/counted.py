"""`asOf` questions the kept counts answer, without the moment's graph (issue 44).

A whole moment is 1 to 37 s to build at 10,000 notes (bench/bench_as_of.py); the counts kept
after each record (brain/tool/asof/series.py, `stats(asOf:)`) answer in a bisect. So a query
that asks only what those counts say is answered from them:
- `linkReport(asOf:) { total byStatus { status count } }`: LinkReport.of reads exactly these
  from the moment's Stats;
- `memories(asOf:) { totalCount }` with no filter: the moment's notes, Stats.memories;
- `memoryHealth(asOf:) { total { notes links broken ambiguous missingAnchor } }` asked with
  the admin's reach and no scope: every note and every link is in view, and only notes hold
  links, so these are the moment's Stats.
Anything more (a report's problems by code, errors, most wanted; a page of notes; the health
lists, per-scope counts, an agent's reach and what `staleDays` decides) still needs the whole
moment: the kept counts do not hold them. tests/tool/test_as_of_series.py compares
both answers at every moment of a timeline.
"""

from __future__ import annotations

from datetime import datetime

from brain.api.graph.asof.moments import Level, asks_only, stats_at
from brain.api.graph.connections import MemoryConnection
from brain.api.graph.paging.cursors import PageInfo
from brain.api.graph.reports import LinkReport
from brain.api.graphql.context import Info
from brain.store.base import MemoryFilter
from brain.store.health import HealthAsk, ScopeHealth

_TYPENAME = frozenset({"__typename"})
_REPORT: Level = (_TYPENAME | {"total"}, {"byStatus": (_TYPENAME | {"status", "count"}, {})})
_HEALTH: Level = (_TYPENAME | {"scope", "staleDays"}, {"total": (
    _TYPENAME | {"scope", "notes", "links", "broken", "ambiguous", "missingAnchor"}, {})})
_MEMORIES: Level = (_TYPENAME | {"totalCount"}, {"pageInfo": (_TYPENAME | {"hasNextPage"}, {})})


async def counted_link_report(info: Info, as_of: datetime | None) -> LinkReport | None:
    """The link report of `as_of` from the kept counts, when the query asks no more of it."""
    if as_of is None or not asks_only(info, _REPORT):
        return None
    return LinkReport.of(await stats_at(info, as_of), [])


async def counted_memories(
    info: Info, where: MemoryFilter, first: int, as_of: datetime | None,
) -> MemoryConnection | None:
    """`memories(asOf:)` asking only how many there were (no filter), from the kept counts."""
    if as_of is None or where != MemoryFilter() or not asks_only(info, _MEMORIES):
        return None
    total = (await stats_at(info, as_of)).memories
    return MemoryConnection(edges=[], page_info=PageInfo(has_next_page=total > first, end_cursor=None),
                            where=where, known_total=total)


async def counted_health(info: Info, ask: HealthAsk, as_of: datetime | None) -> list[ScopeHealth] | None:
    """`memoryHealth(asOf:)`'s total, the admin's and of every scope, from the kept counts
    (one row: the total of the rows is the row), when the query asks no more of it."""
    if as_of is None or ask.reach.scopes is not None or ask.scope is not None or not asks_only(info, _HEALTH):
        return None
    stats = await stats_at(info, as_of)
    return [ScopeHealth("", notes=stats.memories, links=stats.links, broken=stats.broken,
                        ambiguous=stats.ambiguous, missing_anchor=stats.missing_anchor)]
