"""One look at the graph token per request (brain/store/request_look.py, readcache.py).

A request that outlasts the kept answers' window (25 ms; a dashboard request on a loaded
machine does) read the token again between its own reads, a round trip each (issue 43).
Within `one_look()` a store reads it once, unless its own write dropped its answers, and
reads running side by side wait on one read of it, with or without a look.
"""

from __future__ import annotations

import threading
import time

from brain.store.neo4j.reads.readcache import ReadCache
from brain.store.request_look import one_look


class Tokens:
    """The graph token as the database would give it, counting the reads."""

    def __init__(self) -> None:
        self.value = "t1"
        self.reads = 0
        self.delay = 0.0

    def __call__(self) -> str:
        self.reads += 1
        time.sleep(self.delay)
        return self.value


def test_one_read_of_the_token_a_request_however_long() -> None:
    tokens = Tokens()
    cache = ReadCache(tokens, window=0.0)  # every read of it is stale at once: a long request
    with one_look():
        for _ in range(5):
            assert cache.current() == cache.epoch
    assert tokens.reads == 1
    for _ in range(3):  # outside a request, as before: once a window
        cache.current()
    assert tokens.reads == 4


def test_a_write_of_this_process_is_seen_within_the_request() -> None:
    tokens = Tokens()
    cache = ReadCache(tokens, window=0.0)
    with one_look():
        first = cache.current()
        cache.drop()  # this process committed a write
        tokens.value = "t2"
        assert cache.current() != first
        assert tokens.reads == 2
        cache.wrote("t3")  # a write that stamped its token: taken as read
        cache.current()
        assert tokens.reads == 3  # the window (0 here) still governs a write's token


def test_reads_side_by_side_wait_on_one_read_of_the_token() -> None:
    tokens = Tokens()
    tokens.delay = 0.05
    cache = ReadCache(tokens, window=10.0)  # (a loaded machine may start the threads apart)
    cache.drop()
    barrier = threading.Barrier(4)

    def read() -> None:
        barrier.wait()
        cache.current()

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tokens.reads == 1
