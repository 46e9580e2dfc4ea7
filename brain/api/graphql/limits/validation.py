"""Validating a document: its size first, in linear time, then the spec's rules, off the loop.

The order matters: graphql-core's rules (and strawberry's own depth and alias limiters,
which brain no longer uses) walk fragments once per spread, so a document that fans out
through fragments must be refused by `document_errors` (brain/api/graphql/limits/cost.py) before any of
them sees it. What passes is validated in a worker thread, so even a slow validation never
stops the event loop from answering `/healthz` and other requests. Results are cached per
parsed document (the parser cache hands back the same object for the same text).

Introspection (`__schema`, `__type`) is then allowed or refused per caller: admins and
development mode get it; agents' tokens do not (see `IntrospectionPolicy`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass

import anyio.to_thread
from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from brain.api.graphql.limits.cost import DocumentLimits, document_errors, uses_introspection

AGENT_INTROSPECTION = (
    "introspection (`__schema`, `__type`) is open to admin tokens only: the schema is "
    "published with brain as schema/brain.graphql; an agent's token may ask for `__typename`"
)


@dataclass(frozen=True, slots=True)
class Checked:
    document: DocumentNode  # kept alive with its result, so its id() is not reused meanwhile
    errors: list[GraphQLError]
    introspects: bool


class CheckedDocuments:
    """A bounded cache of validation results, keyed by the parsed document's identity."""

    def __init__(self, limits: DocumentLimits, cache_size: int) -> None:
        self.limits = limits
        self.cache_size = cache_size
        self._cache: OrderedDict[int, Checked] = OrderedDict()
        self._lock = threading.Lock()

    def cached(self, document: DocumentNode) -> Checked | None:
        with self._lock:
            found = self._cache.get(id(document))
            if found is None or found.document is not document:
                return None
            self._cache.move_to_end(id(document))
            return found

    def check(
        self, schema: GraphQLSchema, document: DocumentNode, rules: Sequence[type[ASTValidationRule]]
    ) -> Checked:
        errors = document_errors(document, self.limits)
        if not errors:
            errors = validate_document(schema, document, tuple(rules))
        checked = Checked(document, errors, uses_introspection(document))
        with self._lock:
            self._cache[id(document)] = checked
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return checked


class DocumentChecks(SchemaExtension):
    """Replaces strawberry's validation step: limits first, then the rules, in a thread.

    Async only: `Schema.execute_sync` cannot run it (brain serves over ASGI alone).
    """

    def __init__(self, checked: CheckedDocuments) -> None:
        self.checked = checked

    async def on_validate(self) -> AsyncIterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and context.pre_execution_errors is None:
            found = self.checked.cached(document)
            if found is None:
                found = await anyio.to_thread.run_sync(
                    self.checked.check, context.schema._schema, document, context.validation_rules
                )
            context.pre_execution_errors = found.errors
        yield


class IntrospectionPolicy(SchemaExtension):
    """Refuses `__schema` and `__type` to agents' tokens (unless `allow_agents`).

    Why agents: they hold tokens and run model-written queries; the schema is no secret,
    but the introspection query is the biggest document a client sends, and an agent has
    the published SDL already. Dashboards (admin tokens) and GraphiQL (`--dev`) keep it.
    """

    def __init__(self, checked: CheckedDocuments, allow_agents: bool) -> None:
        self.checked = checked
        self.allow_agents = allow_agents

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        principal = getattr(context.context, "principal", None)
        if (
            not self.allow_agents
            and document is not None
            and not context.pre_execution_errors
            and getattr(principal, "agent", None) is not None
        ):
            found = self.checked.cached(document)
            if found is not None and found.introspects:
                context.pre_execution_errors = [GraphQLError(AGENT_INTROSPECTION)]
        yield
