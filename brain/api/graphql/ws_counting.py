"""GraphQL operations over the WebSocket, counted as those over HTTP are (GET /metrics).

A dashboard may send its queries and mutations over the graphql-transport-ws connection it
already holds for `graphChanged`; without this they ran uncounted. A query or mutation is
counted when its result is sent, with its time; a subscription once, when it ends, without a
duration (its lifetime is the client's choice: `brain_subscriptions` counts the live ones).
"""

from __future__ import annotations

import time
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode, parse
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import Message

from brain.api.http.metrics import operation_label

#: A query's text past this is not parsed again to learn its kind (strawberry refuses it anyway).
KIND_BYTES = 64 * 1024


def operation_kind(query: object, name: object) -> str:
    """`query`, `mutation` or `subscription`: the kind of the operation a document runs
    (`name`, else its only one); `query` when the text does not say, or is no text at all
    (a client's `"query": null`: strawberry refuses the operation, and it is counted so)."""
    if not isinstance(query, str) or len(query) > KIND_BYTES:
        return "query"
    try:
        document = parse(query, no_location=True)
    except GraphQLError:
        return "query"
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = next((o for o in operations if o.name and o.name.value == name), None) if name else None
    if chosen is None and len(operations) == 1:
        chosen = operations[0]
    return chosen.operation.value if chosen is not None else "query"


class CountingTransportWS(BaseGraphQLTransportWSHandler[Any, Any]):
    """strawberry's graphql-transport-ws handler, counting each operation it runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failed: set[str] = set()  # ids of running operations that sent an error

    async def send_message(self, message: Message) -> None:
        # Every message of an operation comes through here: an `error`, or a `next` with
        # errors, makes its outcome `error`.
        kind, payload = message.get("type"), message.get("payload")
        if kind == "error" or (kind == "next" and isinstance(payload, dict) and payload.get("errors")):
            self.failed.add(str(message.get("id")))
        await super().send_message(message)

    async def run_operation(self, operation: Operation[Any, Any]) -> None:
        metrics = self.view.services.brain.metrics  # type: ignore[attr-defined]
        if metrics is None:
            await super().run_operation(operation)
            return
        started = time.perf_counter()
        # What a client sent, unchecked yet (strawberry refuses a `"query": null` when it runs).
        query, name = operation.query, operation.operation_name
        label = operation_label(name if isinstance(name, str) else None,
                                query if isinstance(query, str) else None)
        kind = operation_kind(query, name)
        try:
            await super().run_operation(operation)
        finally:
            outcome = "error" if operation.id in self.failed else "ok"
            self.failed.discard(operation.id)
            metrics.graphql_operations.labels(label, outcome).inc()
            if kind != "subscription":
                metrics.graphql_seconds.labels(label).observe(time.perf_counter() - started)
