"""Driver errors as one line a user can act on (StoreUnavailable), never a traceback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from brain.store.base import StoreUnavailable

BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"
# A transaction past the server's memory for transactions: all of them, or one's own limit.
OUT_OF_MEMORY = ("Neo.TransientError.General.MemoryPoolOutOfMemoryError",
                 "Neo.TransientError.General.TransactionMemoryLimit")
START_HINT = "is the server running? For development: tools/neo4j/neo4j.sh start"


@contextmanager
def connect_errors(uri: str, user: str | None, database: str) -> Iterator[None]:
    """Errors of connecting and setting up, worded for the person who typed the URI."""
    scheme = urlsplit(uri).scheme
    if scheme not in BOLT_SCHEMES:
        raise StoreUnavailable(
            f"{uri!r} is not a Neo4j Bolt URI: use bolt://host:7687 (one server) "
            "or neo4j://host:7687 (a cluster)"
        )
    try:
        yield
    except (ConfigurationError, ValueError) as exc:
        raise StoreUnavailable(f"cannot use Neo4j URI {uri!r}: {exc}") from exc
    except AuthError as exc:
        who = f"user {user!r}" if user else "no user (pass --neo4j-user and --neo4j-password)"
        raise StoreUnavailable(
            f"Neo4j at {uri} refused the credentials for {who}: {exc.message}"
        ) from exc
    except (ServiceUnavailable, SessionExpired) as exc:
        raise StoreUnavailable(f"cannot reach Neo4j at {uri}: {reason(exc)} ({START_HINT})") from exc
    except Neo4jError as exc:
        if exc.code == DATABASE_NOT_FOUND:
            raise StoreUnavailable(
                f"Neo4j at {uri} has no database {database!r}: create it, or pass "
                "--neo4j-database (NEO4J_DATABASE) with an existing one"
            ) from exc
        raise StoreUnavailable(f"Neo4j at {uri} refused to set up brain's schema: {exc.message}") from exc


@contextmanager
def runtime_errors(uri: str) -> Iterator[None]:
    """A server that went away (after the driver's retries): an error for this call only.

    The driver reconnects by itself, so the next call works as soon as the server is back.
    """
    try:
        yield
    except (ServiceUnavailable, SessionExpired) as exc:
        raise StoreUnavailable(f"Neo4j at {uri} is unavailable: {reason(exc)}") from exc
    except Neo4jError as exc:
        if exc.code == DATABASE_NOT_FOUND:
            raise StoreUnavailable(f"Neo4j at {uri}: {exc.message}") from exc
        if exc.code in OUT_OF_MEMORY:
            # The biggest is a rebuild's switch: 1,000,000 notes needed more than the 4.2 GB a
            # 6 GB heap allows (docs/neo4j.md, "How much memory the server needs").
            raise StoreUnavailable(
                f"Neo4j at {uri} has too little memory for one of brain's transactions "
                f"({exc.message}): give the server a bigger heap (server.memory.heap.max_size) "
                "or raise dbms.memory.transaction.total.max"
            ) from exc
        raise


def reason(exc: BaseException) -> str:
    """The root cause in a few words: `connection refused`, not three lines of addresses."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve the host name ({cause.strerror})"
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[:1].lower() + cause.strerror[1:]
        cause = cause.__cause__ or cause.__context__
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


#: A schema rule another brain created while this one was creating it (`IF NOT EXISTS` checks
#: before it takes the lock): the rule is there, which is what was wanted.
CREATED_MEANWHILE = frozenset({
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists", "Neo.ClientError.Schema.ConstraintAlreadyExists",
})
