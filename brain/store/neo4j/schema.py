"""Setting up brain's constraints and indexes on connect: only the ones the database lacks.

Every brain process that writes connects with the schema set up (a serve, each check, each
test), and the schema is some fifty `CREATE ... IF NOT EXISTS` statements. Run each time, each
in its own write transaction, they were most of a connect's work on a database that already
had them all, and the server compiled every one of them again. So the names on the server
are read first (SHOW CONSTRAINTS, SHOW INDEXES) and only the statements whose named
constraint or index is missing run: the same end state, since a statement whose name exists
does nothing (IF NOT EXISTS), and the same handling of brains that set up at once
(CREATED_MEANWHILE) for the ones that run. A user the server does not let list the schema
runs them all, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from neo4j import ManagedTransaction, Session
from neo4j.exceptions import ClientError

from brain.store.neo4j.errors import CREATED_MEANWHILE

_NAMED = re.compile(r"CREATE (?:\w+ )?(?:CONSTRAINT|INDEX) (\w+) IF NOT EXISTS ")
SHOW_NAMES = ("SHOW CONSTRAINTS YIELD name", "SHOW INDEXES YIELD name")


def schema_name(statement: str) -> str:
    """The name of the constraint or index a schema statement creates (each names its own)."""
    found = _NAMED.match(statement)
    if found is None:
        raise ValueError(f"a schema statement that names nothing: {statement!r}")
    return found.group(1)


def names_on_server(session: Session) -> set[str] | None:
    """Every constraint's and index's name in the session's database (a constraint's backing
    index shares its name); None if the user may not list them."""
    names: set[str] = set()
    for show in SHOW_NAMES:
        try:
            names.update(record["name"] for record in session.run(show))
        except ClientError as exc:
            if not (exc.code or "").startswith("Neo.ClientError.Security."):
                raise
            return None
    return names


def ensure(session: Session, statements: Sequence[str]) -> int:
    """Run the statements whose constraint or index is missing; how many ran."""
    present = names_on_server(session)
    missing = [s for s in statements if present is None or schema_name(s) not in present]
    for statement in missing:
        # Brains setting up at once (replicas, a check beside a serve): a managed
        # transaction retries a deadlock on the schema lock (errors: CREATED_MEANWHILE).
        try:
            session.execute_write(_run, statement)
        except ClientError as exc:
            if exc.code not in CREATED_MEANWHILE:
                raise
    return len(missing)


def _run(tx: ManagedTransaction, statement: str) -> None:
    tx.run(statement).consume()
