"""A read-only replica: answers from a shared Neo4j database and follows the writer's change log.

`brain serve --store neo4j --read-only` runs no ingest and watches no files: the writer (the
`brain serve` that follows the workspace) keeps the database in step and appends every
applied batch to a change log in the same database (brain/store/neo4j/sharing/database.py). A
`ReplicaFollower` takes the watcher's place in the app: it checks once that the database
holds this workspace, then polls the log (one round trip, one index seek when nothing
changed) and delivers each change to the replica's own `graphChanged` subscribers. Queries
do not wait for this poll: the store keeps answers only while the graph token is unchanged,
and reads the token at most every 25 ms (brain/store/neo4j/reads/readcache.py), so a write on disk
reaches a replica's GraphQL as soon as the writer commits it, give or take 25 ms; reading
log entries drops the kept answers before the events go out, so a subscriber that asks
again on an event is answered with the change. The writer may restart, or the
database go away for a while: the follower keeps polling and reports the error on /healthz
meanwhile; a replaced graph starts a new log, which the follower follows from its start.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import anyio
import anyio.to_thread

from brain.ingest.ingester import Progress, SyncResult
from brain.service.brain import Brain
from brain.store.base import SharedStore, StoreUnavailable, WriteBatch

logger = logging.getLogger("brain.service.replica")
DEFAULT_POLL_SECONDS = 0.1
BATCHES_PER_POLL = 100


class ReplicaFollower:
    """Follows the change log of the shared database a read-only Brain answers from."""

    def __init__(self, brain: Brain, *, poll_seconds: float = DEFAULT_POLL_SECONDS) -> None:
        if not isinstance(brain.store, SharedStore) or not brain.read_only:
            raise TypeError("a replica follows a read-only shared store (--store neo4j --read-only)")
        self.brain = brain
        self.store: SharedStore = brain.store
        self.poll_seconds = poll_seconds
        self.running = False
        self.events = 0
        self.last_event_at: float | None = None
        self.last_rescan_at: float | None = None  # the last successful poll
        self.error: str | None = None
        self.sync_error: str | None = None  # /healthz asks: a replica applies no file changes itself

    async def run(
        self,
        stop: anyio.Event,
        progress: Progress | None = None,
        on_ready: Callable[[SyncResult], None] | None = None,
    ) -> None:
        started = time.perf_counter()
        await anyio.to_thread.run_sync(self.store.claim, str(self.brain.root))
        position = await anyio.to_thread.run_sync(self.store.log_position)
        self.running = True
        if on_ready is not None:
            on_ready(SyncResult(WriteBatch(), seconds=time.perf_counter() - started))
        failures = 0
        try:
            while not stop.is_set():
                try:
                    position, entries = await anyio.to_thread.run_sync(
                        self.store.changes_after, position, BATCHES_PER_POLL
                    )
                except StoreUnavailable as exc:
                    failures += 1
                    if self.error is None:
                        logger.warning("following the writer's change log: %s", exc)
                    self.error = str(exc)
                    entries = []
                else:
                    failures = 0
                    self.error = None
                    self.last_rescan_at = time.time()
                if entries:
                    self.events += len(entries)
                    self.last_event_at = time.time()
                    self.brain.publish(entries)
                    continue  # there may be more: poll again at once
                # Back off while the database is away: up to 2 s between tries.
                wait = self.poll_seconds if not failures else min(2.0, self.poll_seconds * 2**failures)
                with anyio.move_on_after(wait):
                    await stop.wait()
        finally:
            self.running = False
