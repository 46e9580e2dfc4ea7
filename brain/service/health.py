"""Memory health as every front end asks it: one caller's question, checked, and the answer.

The GraphQL field `memoryHealth` (brain/api/graph/health.py) and `brain stats`
(brain/cli/stats.py) both go through here, so they check the same bounds with the same words
and `brain stats --format json` prints the object the field answers (`report_json`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from brain.model import JSONValue
from brain.store.base import GraphStore
from brain.store.health import (
    MAX_PAGE,
    MAX_TOP,
    HealthAsk,
    HealthList,
    HealthReader,
    PageKey,
    ScopeHealth,
    total_of,
)
from brain.store.visibility import Reach

DAY = 86_400.0
MAX_STALE_DAYS = 36_500  # a century: past it a cutoff is before any file could have been written


class HealthRefused(ValueError):
    """A question health does not answer, in words that say what to ask instead."""


def health_ask(reach: Reach, scope: str | None, stale_days: int, now: float | None = None) -> HealthAsk:
    if not 0 <= stale_days <= MAX_STALE_DAYS:
        raise HealthRefused(f"staleDays is {stale_days}: give a number of days from 0 to {MAX_STALE_DAYS}")
    scope = scope or None
    if scope is not None and reach.scopes is not None and scope not in reach.scopes and ":" not in scope:
        raise HealthRefused(
            f"scope `{scope}` is not yours to read: ask for one of {', '.join(sorted(reach.scopes))}, "
            "or leave scope out for all of them"
        )
    # To the minute: a dashboard's polls within a minute are the same question (and the
    # embedded store answers them from its cache until the next write).
    moment = (time.time() if now is None else now) // 60 * 60
    return HealthAsk(reach, scope, moment - stale_days * DAY)


def checked_top(name: str, value: int) -> int:
    if not 0 <= value <= MAX_TOP:
        raise HealthRefused(f"{name} is {value}: a top list holds 0 to {MAX_TOP} entries")
    return value


def checked_page(value: int) -> int:
    if not 0 <= value <= MAX_PAGE:
        raise HealthRefused(f"first is {value}: a page holds 0 to {MAX_PAGE} notes (the next: `after`)")
    return value


def reader(store: GraphStore) -> HealthReader:
    if not isinstance(store, HealthReader):  # every store of brain is one; a test's fake may not be
        raise HealthRefused(f"this store ({type(store).__name__}) does not keep memory health")
    return store


@dataclass(frozen=True, slots=True)
class Page:
    keys: list[PageKey]
    has_next: bool
    count: int


def page_of(
    store: GraphStore, ask: HealthAsk, which: HealthList, after: PageKey | None, first: int,
    total: ScopeHealth,
) -> Page:
    """A page of a list, with whether more follow and the list's length (from `total`, the
    counts of the same ask: counted once for every list of a dashboard)."""
    found = reader(store).health_page(ask, which, after, checked_page(first) + 1)
    return Page(found[:first], len(found) > first, getattr(total, which.value))


def report_json(store: GraphStore, ask: HealthAsk, stale_days: int, hubs: int, wanted: int,
                first: int) -> dict[str, JSONValue]:
    """The answer of graphql/memory-health.graphql as plain JSON (notes by id)."""
    health = reader(store)
    rows = health.health_counts(ask)
    total = total_of(rows)

    def counts(row: ScopeHealth) -> dict[str, JSONValue]:
        return {
            "scope": row.scope or None, "notes": row.notes, "links": row.links, "broken": row.broken,
            "ambiguous": row.ambiguous, "missingAnchor": row.missing_anchor, "orphans": row.orphans,
            "stale": row.stale, "withoutDescription": row.without_description,
            "withoutType": row.without_type,
        }

    def listed(which: HealthList) -> dict[str, JSONValue]:
        page = page_of(store, ask, which, None, first, total)
        return {"totalCount": page.count, "hasNextPage": page.has_next, "ids": [key[1] for key in page.keys]}

    return {
        "scope": ask.scope,
        "staleDays": stale_days,
        "total": counts(total),
        "scopes": [counts(row) for row in rows],
        "hubs": [{"id": i, "links": n} for i, n in health.health_hubs(ask, checked_top("hubs", hubs))],
        "mostWanted": [
            {"id": i, "notes": n} for i, n in health.health_wanted(ask, checked_top("mostWanted", wanted))
        ],
        "orphans": listed(HealthList.ORPHANS),
        "stale": listed(HealthList.STALE),
        "withoutDescription": listed(HealthList.WITHOUT_DESCRIPTION),
        "withoutType": listed(HealthList.WITHOUT_TYPE),
    }
