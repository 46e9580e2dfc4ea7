"""Cypher round trips of a Neo4j store, counted at the driver (benchmarks and tests).

On Neo4j each read is a round trip to the server plus the driver's session and transaction
work around it, so a request that reads several times pays that several times (issue 43:
the dashboard's documents at 10,000 notes). `RoundTrips.around(store)` puts a counting
proxy in front of the store's driver: every `execute_query` is one statement, and so is
every `tx.run` of a session's transaction (`execute_read`, `execute_write`) and every
`session.run`. Nothing in the store knows it is counted; a test that counts a document's
statements keeps a read that became several from creeping back (tests/neo4j/test_round_trips.py).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol


class _HasDriver(Protocol):
    _driver: Any


class RoundTrips:
    """Statements sent through one driver, counted by kind of call, and the queries' first lines."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.counts: Counter[str] = Counter()
        self.queries: Counter[str] = Counter()  # what was sent, by its first words
        self.sent: list[str] = []  # every statement's text, in order (reset() empties it)
        self._lock = threading.Lock()

    @classmethod
    def around(cls, store: _HasDriver) -> RoundTrips:
        """Count every statement `store` sends from now on."""
        trips = cls(store._driver)
        store._driver = _CountingDriver(store._driver, trips)
        return trips

    def total(self) -> int:
        with self._lock:
            return sum(self.counts.values())

    def reset(self) -> None:
        with self._lock:
            self.counts.clear()
            self.queries.clear()
            self.sent.clear()

    def saw(self, kind: str, query: Any) -> None:
        text = str(getattr(query, "text", query))
        with self._lock:
            self.counts[kind] += 1
            self.queries[" ".join(text.split())[:80]] += 1
            self.sent.append(text)


class _CountingDriver:
    def __init__(self, driver: Any, trips: RoundTrips) -> None:
        self._inner = driver
        self._trips = trips

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def execute_query(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._trips.saw("execute_query", query)
        return self._inner.execute_query(query, *args, **kwargs)

    def session(self, *args: Any, **kwargs: Any) -> _CountingSession:
        return _CountingSession(self._inner.session(*args, **kwargs), self._trips)


class _CountingSession:
    def __init__(self, session: Any, trips: RoundTrips) -> None:
        self._inner = session
        self._trips = trips

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __enter__(self) -> _CountingSession:
        self._inner.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._inner.__exit__(*exc)

    def run(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._trips.saw("session.run", query)
        return self._inner.run(query, *args, **kwargs)

    def execute_read(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return self._inner.execute_read(self._counted(work, "execute_read"), *args, **kwargs)

    def execute_write(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return self._inner.execute_write(self._counted(work, "execute_write"), *args, **kwargs)

    def _counted(self, work: Callable[..., Any], kind: str) -> Callable[..., Any]:
        trips = self._trips

        def counted(tx: Any, *args: Any, **kwargs: Any) -> Any:
            return work(_CountingTransaction(tx, trips, kind), *args, **kwargs)

        return counted


class _CountingTransaction:
    def __init__(self, tx: Any, trips: RoundTrips, kind: str) -> None:
        self._inner = tx
        self._trips = trips
        self._kind = kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def run(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._trips.saw(self._kind, query)
        return self._inner.run(query, *args, **kwargs)
