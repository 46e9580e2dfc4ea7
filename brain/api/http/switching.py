"""How often `brain serve`'s threads hand each other the GIL (sys.setswitchinterval).

A server's threads share one interpreter lock: the event loop's (HTTP, GraphQL), the
watcher's sync, and the worker threads that wait on the store's sockets. A thread whose
answer has arrived (a Neo4j round trip, a file read) runs only when the thread holding the
lock gives it up, which Python asks for after the switch interval: 5 ms by default. A sync of
one note on Neo4j makes several round trips, and a GraphQL request asking for 16 notes at
once 16 reads, each in its own thread: each wakes, then waits up to 5 ms for a thread that is
building an answer. At 16 writes/s with pollers on the writer and on each replica, the last of
64 writes reached a replica's GraphQL 1.8-2.3 s after the burst, 0.6-0.9 s with the interval
lowered (issue 43 goal 4, measured in its previous round; at load 28-35 the two differed by
less than the runs: docs/neo4j.md). A lower interval costs a busy thread only when another waits for the
lock (a switch is a few microseconds); a thread alone, such as a first sync's, is never asked.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL = 0.001  # seconds (Python's default: 0.005)


def for_serving() -> None:
    """Set the interval for a serving process (`brain serve`)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
