"""Faults at the driver boundary: a real driver whose write transactions fail on cue.

`FaultyDriver` wraps a real `neo4j.Driver`. Inside `execute_write`, the transaction handed to
the store's function raises one of the driver's own exceptions before the chosen `tx.run`
call, exactly where a lost connection or a deadlock would surface, and the driver's retry
machinery handles it as it would handle the real thing. `commit_lost` lets the chosen
transaction commit and then raises `IncompleteCommit`, the driver's "outcome unknown" error.
`cut` runs a callback instead (e.g. a proxy dropping every connection: a real fault).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from neo4j import Driver, ManagedTransaction, Result, Session
from neo4j.exceptions import IncompleteCommit, Neo4jError, ServiceUnavailable


class Crash(Exception):
    """The process dies here: nothing retries it."""


@dataclass
class Injector:
    fault: str | None = None  # service-unavailable | transient | out-of-memory | commit-lost | crash | cut
    at: int = 0  # the n-th tx.run (or, for commit-lost, the n-th commit) of write transactions
    times: int = 1  # how many times in a row it fails
    cut: Callable[[], None] | None = None
    runs: int = 0
    commits: int = 0
    fired: int = 0

    def before_run(self) -> None:
        self.runs += 1
        if self.fault in (None, "commit-lost") or not self._due(self.runs):
            return
        self.fired += 1
        if self.fault == "cut":
            assert self.cut is not None
            self.cut()
        elif self.fault == "service-unavailable":
            raise ServiceUnavailable("injected: the connection to the server was lost")
        elif self.fault == "transient":
            # What the driver builds from a server FAILURE message with this code.
            raise Neo4jError._hydrate_neo4j(
                code="Neo.TransientError.Transaction.DeadlockDetected", message="injected deadlock"
            )
        elif self.fault == "out-of-memory":  # the server's words for a 1,000,000-note switch
            raise Neo4jError._hydrate_neo4j(
                code="Neo.TransientError.General.MemoryPoolOutOfMemoryError",
                message="The allocation of an extra 2.0 MiB would use more than the limit 2.8 GiB. "
                "Currently using 2.8 GiB. dbms.memory.transaction.total.max threshold reached",
            )
        elif self.fault == "crash":
            raise Crash("injected crash")

    def after_commit(self) -> None:
        self.commits += 1
        if self.fault == "commit-lost" and self._due(self.commits):
            self.fired += 1
            raise IncompleteCommit("injected: connection lost while waiting for the commit response")

    def _due(self, count: int) -> bool:
        return self.at <= count < self.at + self.times


class FaultyTransaction:
    def __init__(self, tx: ManagedTransaction, injector: Injector) -> None:
        self._tx = tx
        self._injector = injector

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> Result:
        self._injector.before_run()
        return self._tx.run(query, parameters, **kwargs)


class FaultySession:
    def __init__(self, session: Session, injector: Injector) -> None:
        self._session = session
        self._injector = injector

    def __enter__(self) -> FaultySession:
        self._session.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._session.__exit__(*exc)  # type: ignore[arg-type]

    def execute_write(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        def faulty(tx: ManagedTransaction, *a: Any, **k: Any) -> Any:
            return work(FaultyTransaction(tx, self._injector), *a, **k)

        result = self._session.execute_write(faulty, *args, **kwargs)
        self._injector.after_commit()
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class FaultyDriver:
    def __init__(self, driver: Driver, injector: Injector) -> None:
        self._driver = driver
        self.injector = injector

    def session(self, **config: Any) -> FaultySession:
        return FaultySession(self._driver.session(**config), self.injector)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)
