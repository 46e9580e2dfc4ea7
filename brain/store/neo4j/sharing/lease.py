"""One writer per database: a lease in the database, taken atomically, kept by a heartbeat.

Two writers on one database would interleave their differences and change logs. So a
writer (`brain serve` or `brain ingest` on Neo4j, not a `--read-only` replica) takes the
lease, one `BrainLease` node, before its first write: holder id (host, pid, a random part),
the command, the time of its last heartbeat and its expiry, all in the server's clock
(`timestamp()`), so hosts with skewed clocks agree. A heartbeat thread renews it every third
of its time to live (`BRAIN_NEO4J_LEASE_SECONDS`, 15 s); a clean exit deletes it.

A second writer finds the lease held and watches it for a moment: a live holder renews it
(the newcomer is refused with the holder's name and how to run a replica instead); a holder
that crashed lets it expire, and the newcomer takes over. Every write transaction starts by
checking that the lease is still this process's (a fence): a writer that lost it (paused
past its expiry while another took over) fails its writes instead of mixing them in.

The check-and-take is atomic: the statement first writes the node (taking its write lock),
then reads the holder, so two writers starting at once cannot both win.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction

from brain.store.base import StoreUnavailable

log = logging.getLogger(__name__)

# One id per process: every store a process opens on a database is the same writer.
WRITER_ID = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
DEFAULT_SECONDS = 15.0

TAKE = """
MERGE (l:BrainLease {key: 'writer'})
SET l.locked = true
WITH l, timestamp() AS now
WITH l, now, l.holder AS holder, l.expiresAt AS expires, l.heartbeatAt AS beat
WITH l, now, holder, expires, beat,
     holder IS NULL OR holder = $holder OR expires < now AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
  SET l.holder = $holder, l.host = $host, l.pid = $pid, l.command = $command,
      l.heartbeatAt = now, l.expiresAt = now + $ttl,
      l.takenAt = CASE WHEN holder = $holder THEN l.takenAt ELSE now END)
REMOVE l.locked
RETURN free, now, properties(l) AS props
"""
RELEASE = "MATCH (l:BrainLease {key: 'writer'}) WHERE l.holder = $holder DELETE l"
HOLDER = "OPTIONAL MATCH (l:BrainLease {key: 'writer'}) RETURN properties(l) AS props, timestamp() AS now"
# The fence at the start of every write transaction: nobody else holds the lease.
FENCE = "OPTIONAL MATCH (l:BrainLease {key: 'writer'}) RETURN l.holder AS holder, properties(l) AS props"


class LeaseLost(StoreUnavailable):
    """This writer's lease is another writer's now: it must not write."""


def lease_seconds() -> float:
    """A store opened without the operator's settings (a test, an embedder): the environment's."""
    try:
        return max(0.5, float(os.environ.get("BRAIN_NEO4J_LEASE_SECONDS", DEFAULT_SECONDS)))
    except ValueError:
        return DEFAULT_SECONDS


def take(tx: ManagedTransaction, params: dict[str, Any]) -> tuple[bool, int, dict[str, Any]]:
    record = tx.run(TAKE, params).single(strict=True)
    return bool(record["free"]), int(record["now"]), dict(record["props"])


def release(tx: ManagedTransaction, holder: str) -> None:
    tx.run(RELEASE, {"holder": holder}).consume()


def fence(tx: ManagedTransaction, describe: str) -> None:
    """Raise LeaseLost inside a write transaction if another writer holds the lease."""
    check_fence(tx.run(FENCE).single(strict=True), describe)


def check_fence(record: Mapping[str, Any], describe: str) -> None:
    """Raise LeaseLost if `record` (a FENCE's `holder` and `props`) names another writer."""
    holder = record["holder"]
    if holder is not None and holder != WRITER_ID:
        raise LeaseLost(
            f"this writer lost its lease on {describe} to {holder_text(record['props'])}: "
            "it writes nothing more; restart it (as a read-only replica with --read-only, "
            "or as the writer once the other one stops)"
        )


def holder_text(props: Mapping[str, Any], now: int | None = None) -> str:
    """`brain serve (pid 12, host build-1, http://…/graphql, since 13:02:11 UTC)`."""
    parts = [f"pid {props.get('pid')}", f"host {props.get('host')}"]
    if props.get("url"):
        parts.append(str(props["url"]))
    taken = props.get("takenAt")
    if isinstance(taken, int):
        parts.append("since " + time.strftime("%H:%M:%S UTC", time.gmtime(taken / 1000)))
    if now is not None and isinstance(props.get("expiresAt"), int):
        parts.append(f"lease renewed until {max(0, props['expiresAt'] - now) / 1000:.0f} s from now")
    command = props.get("command")
    return f"{f'`brain {command}`' if command else 'a brain process'} ({', '.join(parts)})"


Commit = Callable[[Callable[[ManagedTransaction, Any], Any], Any], Any]


class WriterLease:
    """This process's lease on one database: taken once, renewed by a thread, released on close."""

    def __init__(self, commit: Commit, describe: str, root: str, seconds: float | None = None) -> None:
        self._commit = commit  # runs one write transaction (the store's, with its retries)
        self.describe = describe
        self.root = root
        self.seconds = seconds or lease_seconds()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None  # why the last renewal failed, if it did

    def _params(self) -> dict[str, Any]:
        # `brain serve` / `python -m brain ingest`; anything else (a test, a script) is a process.
        cli = Path(sys.argv[0]).name in ("brain", "__main__.py") and len(sys.argv) > 1
        command = sys.argv[1] if cli else ""
        return {"holder": WRITER_ID, "host": socket.gethostname(), "pid": os.getpid(),
                "command": command, "ttl": int(self.seconds * 1000)}

    def acquire(self) -> None:
        """Take the lease, or wait to see whether its holder is alive: refuse if it is."""
        free, now, props = self._commit(take, self._params())
        if not free:
            # A live holder renews within a third of its lease; a crashed one lets it expire.
            beat = props.get("heartbeatAt")
            deadline = time.monotonic() + max(0, int(props["expiresAt"]) - now) / 1000 + 0.5
            while time.monotonic() < deadline:
                time.sleep(min(0.25, self.seconds / 6))
                free, now, props = self._commit(take, self._params())
                if free or props.get("heartbeatAt") != beat:
                    break
            if not free:
                raise StoreUnavailable(
                    f"{self.describe} has a writer already: {holder_text(props, now)}. "
                    "One writer per database: run this one as a read-only replica "
                    f"(`brain serve {self.root} --store neo4j --read-only`), or stop that writer "
                    f"first (a writer that crashed is replaced once its lease expires, "
                    f"{self.seconds:g} s after its last heartbeat)"
                )
        if self._thread is None:
            self._thread = threading.Thread(target=self._beat, name="brain-neo4j-lease", daemon=True)
            self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                free, now, props = self._commit(take, self._params())
            except Exception as exc:  # the database is away: try again at the next beat
                self.error = str(exc)
                continue
            self.error = None if free else f"lease taken over by {holder_text(props, now)}"
            if not free:
                log.error("%s: this writer's %s", self.describe, self.error)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
            try:
                self._commit(release, WRITER_ID)
            except Exception as exc:  # it expires by itself
                log.warning("could not release the writer lease on %s: %s", self.describe, exc)
