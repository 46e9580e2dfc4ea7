"""One read as an auto-commit query: one round trip where a managed transaction took two.

`Driver.execute_query` runs a read as a managed transaction: BEGIN, RUN and PULL go out
together, then COMMIT waits for its own answer. A read-only query commits nothing, so the
second round trip buys nothing but retries; on a loaded machine each round trip is one more
wait for the server's thread and for this process's GIL. A replica's cache misses after
every write of the writer (issue 43 goal 4: at 16 writes/s most of its reads were these), and
so does the graph token it reads every 25 ms (brain/store/neo4j/reads/readcache.py).

So a read is sent as an auto-commit query (RUN and PULL only), with the same bookmarks as
`execute_query` (the driver's query bookmark manager: a read still sees this process's own
commits). What a managed transaction gave besides, the retries of a read that met a
retryable error (a server restarting, a cluster's leader moving), is kept: such a read is
asked again through `execute_query`, which retries it as before.
"""

from __future__ import annotations

from typing import Any

from neo4j import READ_ACCESS, Driver, Record, RoutingControl
from neo4j.exceptions import DriverError, Neo4jError


def read(driver: Driver, database: str, query: str, params: dict[str, Any]) -> list[Record]:
    """The records of one read-only `query` (auto-commit; retried as a managed read on an error
    the driver calls retryable)."""
    try:
        with driver.session(
            database=database, default_access_mode=READ_ACCESS,
            bookmark_manager=driver.execute_query_bookmark_manager,
        ) as session:
            return list(session.run(query, params))
    except (Neo4jError, DriverError) as exc:
        if not exc.is_retryable():
            raise
    return list(driver.execute_query(
        query, params, routing_=RoutingControl.READ, database_=database
    ).records)
