"""The one line a user reads for each way connecting can fail (the driver's own exceptions).

The bundled server runs without auth, so a refused password cannot be met for real; the
error the driver raises for it is built here exactly as the driver builds it from the
server's FAILURE message. Unreachable servers and missing databases are tested for real in
test_connect.py.
"""

from __future__ import annotations

import pytest
from neo4j.exceptions import ConfigurationError, Neo4jError, ServiceUnavailable

from brain.store.base import StoreUnavailable
from brain.store.neo4j.errors import connect_errors, runtime_errors

URI = "bolt://db.example:7687"


def server_error(code: str, message: str) -> Neo4jError:
    return Neo4jError._hydrate_neo4j(code=code, message=message)


@pytest.mark.parametrize(
    ("user", "raised", "expected"),
    [
        ("brain", server_error("Neo.ClientError.Security.Unauthorized",
                               "The client is unauthorized due to authentication failure."),
         f"Neo4j at {URI} refused the credentials for user 'brain': "
         "The client is unauthorized due to authentication failure."),
        (None, server_error("Neo.ClientError.Security.Unauthorized", "Unsupported authentication token"),
         f"Neo4j at {URI} refused the credentials for no user (pass --neo4j-user and --neo4j-password): "
         "Unsupported authentication token"),
        ("brain", server_error("Neo.ClientError.Database.DatabaseNotFound", "Graph not found: memories"),
         f"Neo4j at {URI} has no database 'memories': create it, or pass --neo4j-database "
         "(NEO4J_DATABASE) with an existing one"),
        ("brain", server_error("Neo.ClientError.Security.Forbidden", "Schema operations are not allowed"),
         f"Neo4j at {URI} refused to set up brain's schema: Schema operations are not allowed"),
        ("brain", ServiceUnavailable("Unable to retrieve routing information"),
         f"cannot reach Neo4j at {URI}: Unable to retrieve routing information (is the server running? "
         "For development: tools/neo4j/neo4j.sh start)"),
        ("brain", ConfigurationError("Unsupported URI scheme"),
         f"cannot use Neo4j URI '{URI}': Unsupported URI scheme"),
    ],
)
def test_connect_errors_are_one_actionable_line(user: str | None, raised: Exception, expected: str) -> None:
    with pytest.raises(StoreUnavailable) as caught, connect_errors(URI, user, "memories"):
        raise raised
    assert str(caught.value) == expected
    assert "\n" not in str(caught.value)


def test_runtime_errors_name_the_server_and_let_bugs_through() -> None:
    gone = rf"^Neo4j at {URI} is unavailable: gone$"
    with pytest.raises(StoreUnavailable, match=gone), runtime_errors(URI):
        raise ServiceUnavailable("gone")
    with pytest.raises(Neo4jError), runtime_errors(URI):
        raise server_error("Neo.ClientError.Statement.SyntaxError", "Invalid input")
