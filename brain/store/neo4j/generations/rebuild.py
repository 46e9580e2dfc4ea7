"""New generations of the Neo4j graph: a rebuild, and a first sync written in parts.

Both write a whole graph under the `BrainStaged…` labels no reader matches, in as many
transactions as it takes, and switch it in under the documented labels: one transaction, or
pages past `Limits.switch_nodes` (brain/store/neo4j/generations/staged.py, switch.py). They differ
in who holds the graph:

- `_rebuild`: a difference too big for one transaction, from a caller that holds all of
  it (the first sync's whole graph, or a big incremental batch written onto a copy of the
  live generation);
- `staging` and `switch_in`: the first sync of a database that holds no graph yet. The
  ingester writes its parts into the store `staging` returns (brain/ingest/parts.py, as into
  the embedded store), and `switch_in` makes them the graph. Nothing is held but the part
  being written: at 1,000,000 notes the ingester kept the whole graph for one rebuild.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from neo4j import Driver, ManagedTransaction, Session

from brain.store.base import BodySource, WriteBatch
from brain.store.neo4j import cypher
from brain.store.neo4j.errors import runtime_errors
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.generations.switch import (
    reads_back,
    relabel_page,
    switch_at_once,
    switch_reads,
    switch_size,
)
from brain.store.neo4j.sharing.database import Committer
from brain.store.neo4j.write import (
    Limits,
    Transaction,
    copy_page,
    drop_some,
    mark_staging,
    run_transaction,
    stream_transactions,
)

A = TypeVar("A")
R = TypeVar("R")


class Neo4jGenerations(Committer):
    """The generation half of Neo4jStore (mixed in; uses its sessions and commits)."""

    _driver: Driver
    database: str
    uri: str
    read_only: bool
    limits: Limits
    clear_rows: int
    switch_grace: float
    rebuilds: int
    last_rebuild: dict[str, float]
    last_write: Counter[str]
    _bodies: BodySource | None
    staging_token = ""  # a staged store's: the rebuild its switch belongs to

    def describe(self) -> str:
        raise NotImplementedError

    def replaying_vectors(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _staged_store(self) -> Neo4jGenerations:
        """A store on the set of labels that is not live, sharing this one's driver."""
        raise NotImplementedError

    def _is_empty(self) -> bool:
        raise NotImplementedError

    # ---------------------------------------------------------------- a rebuild

    def _rebuild(self, whole: WriteBatch, entry: dict[str, Any] | None, copy_live: bool = False) -> None:
        """`whole` as a new generation, switched in at once (brain/store/neo4j/generations/staged.py);
        `copy_live`: `whole` is a change of the live graph, written onto a copy of it."""
        started = time.perf_counter()
        with self.replaying_vectors(), runtime_errors(self.uri), self._session() as session:
            token = self._begin_staging(session)
            rewritten = generation.Rewritten.by(whole)
            for label, statements, page in generation.COPY_STEPS if copy_live else ():
                after: str | None = ""
                while after is not None:
                    after = self._commit(session, copy_page, (label, statements, after, page, rewritten))
            copied = time.perf_counter()
            self._write_staged(session, whole)
            orphans = (generation.DROP_STAGED_ORPHANS, self.clear_rows)  # of the links it rewrote
            while copy_live and self._commit(session, drop_some, orphans):
                pass
            staged = time.perf_counter()
            self._switch(session, token, [entry] if entry is not None else [])
        switched = time.perf_counter()
        self.last_rebuild = {
            "copy_s": copied - started, "staged_s": staged - copied, "switch_s": switched - staged,
        }

    def _begin_staging(self, session: Session) -> str:
        """Clear what a rebuild that did not finish staged, and name this one."""
        self._drop_old_generation()
        token = uuid.uuid4().hex
        self._commit(session, mark_staging, token, graph=False)
        return token

    def _write_staged(self, session: Session, batch: WriteBatch) -> None:
        for transaction in stream_transactions(batch, self.limits, staged=True, bodies=self._bodies):
            transaction.fence = self.describe()
            self.last_write.update(self._commit(session, run_transaction, transaction))
            transaction.forget_rows()

    def _switch(self, session: Session, token: str, entries: list[dict[str, Any]]) -> None:
        """The staged generation becomes the graph under the documented labels, with the
        change-log `entries` (brain/store/neo4j/generations/switch.py): in one transaction up to
        `limits.switch_nodes` nodes, else brain's reads move to the staged labels first and
        the documented ones change hands page by page."""
        switch = Transaction(fence=self.describe(), token=token, logs=entries)
        nodes = session.execute_read(switch_size, generation.STAGED_PREFIX)
        if nodes <= self.limits.switch_nodes:
            self._commit(session, switch_at_once, switch)
        else:
            self._commit(session, switch_reads, switch)
            time.sleep(self.switch_grace)  # reads that looked up the documented labels just before
            self._finish_switch(session, generation.STAGED_PREFIX)
        self.rebuilds += 1

    def _finish_switch(self, session: Session, prefix: str) -> None:
        """The paged steps of a switch of the set `prefix`, whose reads brain already moved
        there (idempotent: a writer's start finishes a switch cut short)."""
        relabel, drop, unstage = generation.relabel_steps(prefix)
        for statement in (*relabel, *drop):
            while self._commit(session, relabel_page, (statement, self.describe(), self.clear_rows)):
                pass
        self._commit(session, reads_back, self.describe())
        time.sleep(self.switch_grace)  # reads that looked up `prefix` just before keep it whole
        for statement in unstage:
            while self._commit(session, relabel_page, (statement, self.describe(), self.clear_rows)):
                pass

    def _drop_old_generation(self) -> None:
        """Finish a switch cut short (an older brain's `BrainB…` generation included), then
        delete what a rebuild that did not switch staged. A read first: a start with nothing
        left behind writes nothing."""
        # (Quiet: the labels of older brains are named, which a new database never saw.)
        with runtime_errors(self.uri), self._driver.session(
            database=self.database, default_access_mode="READ", notifications_min_severity="OFF"
        ) as quiet:
            live = quiet.execute_read(_left_behind)
            if live is None:
                return
        with runtime_errors(self.uri), self._session() as session:
            if live:
                self._finish_switch(session, live)
            for prefix in (generation.STAGED_PREFIX, generation.LEGACY_PREFIX):  # a step 3 cut short
                for statement in generation.relabel_steps(prefix)[2]:
                    while self._commit(session, relabel_page, (statement, self.describe(), self.clear_rows)):
                        pass
            while self._commit(session, drop_some, (generation.DROP_STAGED, self.clear_rows), graph=False):
                pass

    # ---------------------------------------------------------------- a first sync in parts

    def staging(self) -> Neo4jGenerations | None:
        """A store on the staged generation for a first sync to write in parts, if the
        database holds no graph yet (else None: the first sync writes the difference)."""
        if self.read_only or not self._is_empty():
            return None
        self._drop_old_generation()  # what a first sync that did not finish staged (read first)
        staged = self._staged_store()
        staged.staging_token = uuid.uuid4().hex
        with runtime_errors(self.uri), self._session() as session:
            self._commit(session, mark_staging, staged.staging_token, graph=False)
        return staged

    def write_staged(self, batch: WriteBatch) -> None:
        """A part, onto the staged generation: as many transactions as it takes."""
        with runtime_errors(self.uri), self._session() as session:
            self._write_staged(session, batch)

    def switch_in(self, staged: Neo4jGenerations, changes: Sequence[str]) -> None:
        """Make what `staged` holds the graph, at once, with the change-log entries
        `changes` (each a JSON list of one part's changes) in the same transaction."""
        entries = [self._log_params(text) for text in changes]
        placeholders = (generation.staged(cypher.DROP_PLACEHOLDERS), self.clear_rows)
        with runtime_errors(self.uri), self._session() as session:
            while self._commit(session, drop_some, placeholders):
                pass
            self._switch(session, staged.staging_token, entries)

    def _log_params(self, changes: str) -> dict[str, Any]:
        raise NotImplementedError


def _left_behind(tx: ManagedTransaction) -> str | None:
    """None if no switch is unfinished and nothing is staged, else the prefix brain reads
    ("": the documented labels)."""
    if not tx.run(generation.ANY_STAGED).single(strict=True)["left"]:
        return None
    return generation.live_labels(tx) or ""

