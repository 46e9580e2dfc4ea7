"""Which set of labels is live, as this process last looked it up (brain/store/neo4j/generations/staged.py).

A read of brain's labels must know the live set. Looking it up in the read's own
transaction made every read two round trips, and cost a replica about a third of its read
throughput (bench/bench_replicas.py). So an answer is trusted for `LIVE_TTL`: a read in that
time runs its query alone, in one round trip, as a query on no label does. An answer is
forgotten at once when this process commits a write (its own switch among them), and
replaced by the set read after them when it reads entries of the change log (another
writer's switch is one: brain/store/neo4j/sharing/database.py `changes_after`), so neither a
writer nor a replica that announced a switch reads the replaced set after it. A change written onto the
live labels cannot switch them: the set its fenced read found is kept as a lookup begun
before that transaction (brain/store/neo4j/store.py `_write_plan`).

A process that did neither may start a read on the replaced set up to `LIVE_TTL` after a
switch: the writer keeps that set whole for `Neo4jStore.switch_grace`, which covers it
(brain/store/neo4j/generations/switch.py: a paged switch moves `BrainLive` twice).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from neo4j import Driver, ManagedTransaction, Record

from brain.store.neo4j.generations import staged as generation

LIVE_TTL = 0.2  # seconds


class LiveSet:
    """The live set (None: the plain labels) as last looked up, with when the lookup began."""

    def __init__(self, ttl: float = LIVE_TTL) -> None:
        self.ttl = ttl
        self._lock = threading.Lock()
        self._seen: tuple[float, str | None] | None = None
        self._epoch = 0  # bumped by `forget`: a lookup begun before it is not kept

    def fresh(self) -> tuple[float, str | None] | None:
        """(when, live) if looked up less than `ttl` ago, else None."""
        seen = self._seen
        return seen if seen is not None and time.monotonic() - seen[0] < self.ttl else None

    def begin(self) -> tuple[int, float]:
        """A lookup's token: `saw` keeps its answer only if nothing was forgotten since."""
        return self._epoch, time.monotonic()

    def saw(self, token: tuple[int, float], live: str | None) -> None:
        with self._lock:
            if token[0] == self._epoch:
                self._seen = (token[1], live)

    def renew(self, token: tuple[int, float], live: str | None) -> None:
        """Forget what was looked up, and keep `live`, found by a lookup begun at `token`
        that is newer than any other: the live set a replica read with change-log entries
        (brain/store/neo4j/sharing/database.py `changes_after`), a switch among them applied."""
        with self._lock:
            self._epoch += 1
            self._seen = (token[1], live)

    def forget(self) -> None:
        with self._lock:
            self._epoch += 1
            self._seen = None

    def read(self, driver: Driver, database: str, query: str, params: dict[str, Any]) -> list[Record]:
        """`query` on the live set, looked up in the same transaction (and kept)."""
        token = self.begin()
        with driver.session(
            database=database, default_access_mode="READ",
            bookmark_manager=driver.execute_query_bookmark_manager,
        ) as session:
            records, live = session.execute_read(_read_live, query, params)
        self.saw(token, live)
        return records


def _read_live(tx: ManagedTransaction, query: str, params: dict[str, Any]) -> tuple[list[Record], str | None]:
    live = generation.live_labels(tx)
    return list(tx.run(generation.on(query, live), params)), live
