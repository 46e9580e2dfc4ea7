"""`asOf` questions the kept counts answer, without the moment's graph (issue 44).

A whole moment is 1 to 37 s to build at 10,000 notes (bench/bench_as_of.py); the counts kept
after each record (brain/tool/asof/counts/series.py, `stats(asOf:)`) and their detail (per-scope
health rows, problems by code: brain/tool/asof/counts/detail.py) answer in a bisect and a few merges.
So a query that asks only what those say is answered from them:
- `linkReport(asOf:) { total byStatus { status count } byCode { code severity count } errors
  warnings }`: LinkReport.of reads exactly these from the moment's Stats and problems;
- `memories(asOf:) { totalCount }` with no filter, or a `scope` filter alone: the moment's
  notes, of every scope or of that one;
- `memoryHealth(asOf:) { total {...} scopes {...} }`, of one scope or all, without `stale`:
  the moment's health rows as the whole moment's store counts them, the admin's or, for an
  agent's token (which sees other agents' links as broken), the admin's plus that agent's
  kept difference (brain/tool/asof/counts/agents.py).
Anything more (a report's most wanted; a page of notes; the health lists and `stale`, which
depends on each question's `staleDays`) still needs the whole moment; so does a moment whose
detail is not walked yet, or one with more agents than the detail keeps.
tests/tool/test_as_of_series.py and tests/tool/test_as_of_detail.py compare both answers at
every moment of a timeline.
"""

from __future__ import annotations

from datetime import UTC, datetime

from brain.api.graph.asof.moments import Level, asks_only, stats_at
from brain.api.graph.connections import MemoryConnection
from brain.api.graph.paging.cursors import PageInfo
from brain.api.graph.reports import LinkReport
from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.loaders import in_thread
from brain.model import Stats
from brain.store.base import MemoryFilter
from brain.store.health import HealthAsk, ScopeHealth
from brain.tool import memory_service
from brain.tool.asof.counts.counted import kept_as_of
from brain.tool.asof.counts.detail import Detail
from brain.tool.calls.refusal import Refusal

_TYPENAME = frozenset({"__typename"})
_BY_STATUS: Level = (_TYPENAME | {"status", "count"}, {})
_TOTALS: Level = (_TYPENAME | {"total"}, {"byStatus": _BY_STATUS})
_REPORT: Level = (_TYPENAME | {"total", "errors", "warnings"},
                  {"byStatus": _BY_STATUS, "byCode": (_TYPENAME | {"code", "severity", "count"}, {})})
_STATS_ROW = _TYPENAME | {"scope", "notes", "links", "broken", "ambiguous", "missingAnchor"}
_ROW = _STATS_ROW | {"orphans", "withoutDescription", "withoutType"}
_HEALTH_TOTAL: Level = (_TYPENAME | {"scope", "staleDays"}, {"total": (_STATS_ROW, {})})
_HEALTH: Level = (_TYPENAME | {"scope", "staleDays"}, {"total": (_ROW, {}), "scopes": (_ROW, {})})
_MEMORIES: Level = (_TYPENAME | {"totalCount"}, {"pageInfo": (_TYPENAME | {"hasNextPage"}, {})})


async def _kept(info: Info, as_of: datetime) -> tuple[Stats, Detail] | None:
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    try:
        return await in_thread(kept_as_of, memory_service(info.context.brain), when.isoformat())
    except Refusal as refusal:
        raise UserError(f"asOf: {refusal.message}") from None


async def counted_link_report(info: Info, as_of: datetime | None) -> LinkReport | None:
    """The link report of `as_of` from the kept counts, when the query asks no more of it."""
    if as_of is None:
        return None
    if asks_only(info, _TOTALS):
        return LinkReport.of(await stats_at(info, as_of), [])
    if not asks_only(info, _REPORT) or (found := await _kept(info, as_of)) is None:
        return None
    return LinkReport.of_counts(found[0], found[1].codes)


async def counted_memories(
    info: Info, where: MemoryFilter, first: int, as_of: datetime | None,
) -> MemoryConnection | None:
    """`memories(asOf:)` asking only how many there were (no filter, or a scope's), from the
    kept counts."""
    if as_of is None or where not in (MemoryFilter(), MemoryFilter(scope=where.scope)) \
            or not asks_only(info, _MEMORIES):
        return None
    if where.scope is None:
        total = (await stats_at(info, as_of)).memories
    else:
        found = await _kept(info, as_of)
        if found is None:
            return None
        rows = found[1].scope_rows(where.scope)
        total = rows[0].notes if rows else 0
    return MemoryConnection(edges=[], page_info=PageInfo(has_next_page=total > first, end_cursor=None),
                            where=where, known_total=total)


async def counted_health(info: Info, ask: HealthAsk, as_of: datetime | None) -> list[ScopeHealth] | None:
    """`memoryHealth(asOf:)`'s counts from the kept counts, when the
    query asks no more of them: the admin's total of every scope from the moment's Stats (one
    row: the total of the rows is the row), else each scope's row from the detail, as the
    caller sees it (None: not kept, the whole moment answers)."""
    if as_of is None:
        return None
    if ask.reach.scopes is None and ask.scope is None and asks_only(info, _HEALTH_TOTAL):
        stats = await stats_at(info, as_of)
        return [ScopeHealth("", notes=stats.memories, links=stats.links, broken=stats.broken,
                            ambiguous=stats.ambiguous, missing_anchor=stats.missing_anchor)]
    if not asks_only(info, _HEALTH) or (found := await _kept(info, as_of)) is None:
        return None
    return found[1].reach_rows(ask.reach, ask.scope)
