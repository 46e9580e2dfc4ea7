"""Validating a document: its size first, in linear time, then the spec's rules, off the loop.

The order matters: graphql-core's rules (and strawberry's own depth and alias limiters,
which brain no longer uses) walk fragments once per spread, so a document that fans out
through fragments must be refused by `document_errors` (brain/api/cost.py) before any of
them sees it. What passes is validated in a worker thread, so even a slow validation never
stops the event loop from answering `/healthz` and other requests. Results are cached per
parsed document (the parser cache hands back the same object for the same text).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence

import anyio.to_thread
from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from brain.api.cost import DocumentLimits, document_errors


class CheckedDocuments:
    """A bounded cache of validation results, keyed by the parsed document's identity."""

    def __init__(self, limits: DocumentLimits, cache_size: int) -> None:
        self.limits = limits
        self.cache_size = cache_size
        self._cache: OrderedDict[int, tuple[DocumentNode, list[GraphQLError]]] = OrderedDict()
        self._lock = threading.Lock()

    def cached(self, document: DocumentNode) -> list[GraphQLError] | None:
        with self._lock:
            found = self._cache.get(id(document))
            if found is None or found[0] is not document:
                return None
            self._cache.move_to_end(id(document))
            return found[1]

    def check(
        self, schema: GraphQLSchema, document: DocumentNode, rules: Sequence[type[ASTValidationRule]]
    ) -> list[GraphQLError]:
        errors = document_errors(document, self.limits)
        if not errors:
            errors = validate_document(schema, document, tuple(rules))
        with self._lock:
            # The document is kept with its result so its id() cannot be reused meanwhile.
            self._cache[id(document)] = (document, errors)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return errors


class DocumentChecks(SchemaExtension):
    """Replaces strawberry's validation step: limits first, then the rules, in a thread."""

    def __init__(self, checked: CheckedDocuments) -> None:
        self.checked = checked

    async def on_validate(self) -> AsyncIterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and context.pre_execution_errors is None:
            errors = self.checked.cached(document)
            if errors is None:
                errors = await anyio.to_thread.run_sync(
                    self.checked.check, context.schema._schema, document, context.validation_rules
                )
            context.pre_execution_errors = errors
        yield
