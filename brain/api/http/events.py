"""From the Brain's change listener (a sync thread) to subscribers (the event loop).

The listener runs inside `Brain.sync`, under its lock, so it only hands each change to the
loop. Each subscriber has a bounded queue: one that falls too far behind is told so and
dropped, instead of holding an ever-growing backlog in memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from brain.api.graphql.errors import UserError
from brain.service.brain import Brain, GraphChange


def change_scope(change: GraphChange) -> str | None:
    """The scope a change belongs to: a memory's scope, or an agent's own name."""
    if change.scope is not None:
        return change.scope
    if change.id.startswith("agent:"):
        return change.id.split(":", 1)[1]
    return None


class SubscriberLagged(UserError):
    pass


class _Subscriber:
    def __init__(self, scope: str | None, size: int) -> None:
        self.scope = scope
        self.queue: asyncio.Queue[GraphChange] = asyncio.Queue(size)
        self.lagged = False

    def offer(self, change: GraphChange) -> None:
        if self.lagged or (self.scope is not None and change_scope(change) != self.scope):
            return
        try:
            self.queue.put_nowait(change)
        except asyncio.QueueFull:
            self.lagged = True


class ChangeHub:
    """Fans applied changes out to every live subscription."""

    def __init__(self, brain: Brain, queue_size: int = 10_000) -> None:
        self.brain = brain
        self.queue_size = queue_size
        self._subscribers: set[_Subscriber] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Start listening to the Brain; call from the event loop that serves subscribers."""
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self.brain.subscribe(self._on_change)

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def _on_change(self, change: GraphChange) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._publish, change)

    def _publish(self, change: GraphChange) -> None:
        for subscriber in self._subscribers:
            subscriber.offer(change)

    @asynccontextmanager
    async def listen(self, scope: str | None = None) -> AsyncIterator[AsyncIterator[GraphChange]]:
        """The changes applied from now on (of one scope, if given), until the block ends."""
        subscriber = _Subscriber(scope, self.queue_size)
        self._subscribers.add(subscriber)
        try:
            yield self._drain(subscriber)
        finally:
            self._subscribers.discard(subscriber)

    async def _drain(self, subscriber: _Subscriber) -> AsyncIterator[GraphChange]:
        while True:
            if subscriber.lagged and subscriber.queue.empty():
                raise SubscriberLagged(
                    f"this subscription fell more than {self.queue_size} changes behind and was "
                    "stopped: query what you show again, then subscribe again"
                )
            yield await subscriber.queue.get()
