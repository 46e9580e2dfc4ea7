"""Memory health: what a dashboard shows of a workspace's notes, counted per scope.

Per scope, and as the caller sees the graph (brain/store/visibility.py): its notes and the
links written in them by status, its orphans (no link in or out), its stale notes (not
changed since a moment, and nothing links to them), its notes without a description or a
type; and over the scopes asked for, the hubs (the notes most links point to) and the most
wanted missing notes (the unresolved targets most notes link to).

An agent's token sees the answer it would get if other agents' private notes did not
exist: their notes are not counted, their links neither make a note linked nor a target
wanted, and a link into one of them is broken (and wants its target) as it sees it.

Both stores answer from the same counters (brain/store/health_counts.py), kept in step with
their writes, never a scan of every note per question: the embedded store feeds them from its
tables (brain/store/memory/health.py), Neo4j from the links each of its writes replaced
(brain/store/neo4j/health/counters.py). `HealthAnswers` is the half they share: the four answers,
each kept until the next write.
"""

from __future__ import annotations

import enum
import heapq
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from brain.store.visibility import EVERYTHING, Reach

if TYPE_CHECKING:  # the counters import this module's types
    from brain.store.health_counts import HealthIndex

MAX_TOP = 100  # hubs and most wanted: a dashboard's top list, not an export
MAX_PAGE = 100  # the paged lists' `first` (the API's other pages are 100 too)


class HealthList(enum.Enum):
    """The paged lists of notes: each in id order, except `STALE` (oldest change first)."""

    ORPHANS = "orphans"
    STALE = "stale"
    WITHOUT_DESCRIPTION = "without_description"
    WITHOUT_TYPE = "without_type"


@dataclass(frozen=True, slots=True)
class HealthAsk:
    """One caller's question: `scope` None is every scope in `reach`; a note is stale if it
    changed before `stale_before` (seconds since the epoch) and nothing links to it."""

    reach: Reach = EVERYTHING
    scope: str | None = None
    stale_before: float = 0.0

    def cache_key(self) -> tuple[object, ...]:
        return (self.reach.scopes, self.scope, self.stale_before)


@dataclass(frozen=True, slots=True)
class ScopeHealth:
    scope: str
    notes: int = 0
    links: int = 0
    broken: int = 0
    ambiguous: int = 0
    missing_anchor: int = 0
    orphans: int = 0
    stale: int = 0
    without_description: int = 0
    without_type: int = 0

    def plus(self, other: ScopeHealth, scope: str) -> ScopeHealth:
        return ScopeHealth(scope, *(getattr(self, f) + getattr(other, f) for f in COUNTED))


COUNTED = (
    "notes", "links", "broken", "ambiguous", "missing_anchor", "orphans", "stale",
    "without_description", "without_type",
)

# A page's key: (modified_at, id) for STALE, (0.0, id) for the others.
PageKey = tuple[float, str]


@runtime_checkable
class HealthReader(Protocol):
    """The health queries both stores answer (results are in the caller's view)."""

    def health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        """One entry per scope in view that holds a note (only `ask.scope` if given), by scope."""
        ...

    def health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        """The next `limit` notes of the list after `after`, in the list's order."""
        ...

    def health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        """The `top` notes most links point to (links seen by the caller), most first, then by id."""
        ...

    def health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        """The `top` Unresolved ids most notes link to, by how many notes, then by id."""
        ...


def total_of(rows: list[ScopeHealth]) -> ScopeHealth:
    """The scopes' counts added up (scopes never share a note or a link)."""
    total = ScopeHealth("")
    for row in rows:
        total = total.plus(row, "")
    return total


def ranked(counts: dict[str, int], top: int) -> list[tuple[str, int]]:
    """The `top` entries with the highest counts (ties by id), zeros left out."""
    return heapq.nsmallest(top, ((k, n) for k, n in counts.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))


MAX_ANSWERS = 256  # different questions kept between two writes (a dashboard asks a few)


class HealthAnswers:
    """The HealthReader both stores mix in: each answer made from the kept counters
    (`_health_kept`, in step with the store) and kept until the next write clears them."""

    def _health_guard(self) -> AbstractContextManager[Any]:
        """The lock the store's writes hold while they change the counters."""
        raise NotImplementedError

    def _health_kept(self) -> HealthIndex:
        """The counters, in step with the store (counted first if they were not)."""
        raise NotImplementedError

    def health_recounts(self) -> int:
        """How many times the counters were counted from the whole store, not kept in step
        by the writes (tests and benchmarks: a poll or an edit must not add one)."""
        with self._health_guard():
            return self._health_counters().counted

    def _health_counters(self) -> HealthIndex:
        """The counters as they are (in step or not)."""
        raise NotImplementedError

    def _health_answer(self, name: str, ask: HealthAsk, *extra: object) -> Any:
        with self._health_guard():
            index = self._health_kept()
            key = (name, ask.cache_key(), *extra)
            found = index.answers.get(key)
            if found is None:
                if len(index.answers) > MAX_ANSWERS:
                    index.answers.clear()
                found = index.answers[key] = getattr(index, name)(ask, *extra)
            return found

    def health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        found: list[ScopeHealth] = self._health_answer("counts", ask)
        return found

    def health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        found: list[PageKey] = self._health_answer("page", ask, which, after, limit)
        return found

    def health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._health_answer("hubs", ask, top)
        return found

    def health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._health_answer("most_wanted", ask, top)
        return found
