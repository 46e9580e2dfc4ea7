"""One look at the graph's version per request: a store reads it once, not once per window.

A Neo4j store keeps answers while the graph token they were read under is the database's
(brain/store/neo4j/reads/readcache.py); the token is read again once the last read of it is
older than a window (25 ms). A dashboard request on a loaded machine outlasts the window, so
one request read the token again and again between its own reads (issue 43: 2.5 reads of it
a memories page, 5 an entities document at 10,000 notes), each a round trip. A request now
takes one look: `one_look()` around it (the GraphQL endpoint), and a store that checked the
token during it trusts that check for the rest of it, up to `MAX_SECONDS` (so a long request
reads no older state than that), unless the store's own write dropped its answers meanwhile.
The look is a context variable: the request's store calls in worker threads share it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

MAX_SECONDS = 1.0


class Look:
    """What each store saw during one request: (its epoch then, when it looked), by store."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: dict[int, tuple[int, float]] = {}


_LOOK: ContextVar[Look | None] = ContextVar("brain_request_look", default=None)


@contextmanager
def one_look() -> Iterator[Look]:
    """Within this block (one request), a store checks the graph's version at most once."""
    look = Look()
    token = _LOOK.set(look)
    try:
        yield look
    finally:
        _LOOK.reset(token)


def current_look() -> Look | None:
    return _LOOK.get()
