"""Refusing hostile documents before any resolver runs.

Every limit is a schema extension passed as a factory, so each request gets its own
instance (a shared instance would leak state between concurrent requests). Tokens use
strawberry's limiter (the parser stops counting at the limit); depth, aliases, operations,
fragments, directives and the number of fields with every fragment expanded are measured in
one linear pass (cost.py, validation.py beside this) before the spec's rules run;
argument bounds (page sizes, neighbourhood depth) are checked in one more pass that sees the
request's variables. Parsing and validation are cached per document text (bounded), which
is most of the cost of a small query. docs/security.md lists every limit.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from graphql import (
    ArgumentNode,
    DirectiveNode,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    IntValueNode,
    OperationDefinitionNode,
    ValidationContext,
    ValidationRule,
    ValueNode,
    VariableNode,
    validate,
)
from strawberry.extensions import MaskErrors, MaxTokensLimiter, ParserCache, SchemaExtension
from strawberry.schema.schema import validate_document

from brain.api.graphql.errors import MASKED_MESSAGE, should_mask
from brain.api.graphql.limits.cost import DocumentLimits
from brain.api.graphql.limits.validation import CheckedDocuments, DocumentChecks, IntrospectionPolicy

ExtensionFactory = Callable[[], SchemaExtension]
CACHE_SIZE = 256  # distinct documents whose parse and validation are kept (dashboards send few)


@dataclass(frozen=True, slots=True)
class Bound:
    """The allowed range of one integer argument, and how to ask for more."""

    low: int
    high: int
    hint: str

    def message(self, coordinate: str, value: int) -> str:
        return f"{coordinate}: {value} is out of range {self.low}..{self.high}; {self.hint}"


@dataclass(frozen=True, slots=True)
class Limits:
    max_depth: int = 10
    max_aliases: int = 30
    max_tokens: int = 2000
    # Fields with every fragment expanded: the biggest document in graphql/ selects 47 and the
    # full introspection query 229; the spec's overlapping-fields rule is quadratic in
    # same-named fields, so keep it modest.
    max_fields: int = 300
    max_operations: int = 20
    max_fragments: int = 100
    max_directives: int = 100
    # `__schema`/`__type` for agents' tokens too (development mode always allows it).
    agent_introspection: bool = False
    max_page_size: int = 100
    max_neighborhood_depth: int = 3
    max_neighborhood_nodes: int = 500
    extra_bounds: Mapping[str, Bound] = field(default_factory=dict)

    def bounds(self) -> dict[str, Bound]:
        """Bounds by coordinate: `Type.field.argument`, or `*.argument` for every field."""
        return {
            "*.first": Bound(
                0, self.max_page_size,
                f"a page holds at most {self.max_page_size} items: ask for the next one with `after`",
            ),
            "Query.neighborhood.depth": Bound(
                0, self.max_neighborhood_depth,
                "explore further by asking for the neighbourhood of a node at the edge",
            ),
            "Query.neighborhood.limit": Bound(
                1, self.max_neighborhood_nodes,
                f"a graph view gets at most {self.max_neighborhood_nodes} nodes per query",
            ),
            **self.extra_bounds,
        }

    def document_limits(self) -> DocumentLimits:
        return DocumentLimits(
            max_fields=self.max_fields, max_aliases=self.max_aliases, max_depth=self.max_depth,
            max_operations=self.max_operations, max_fragments=self.max_fragments,
            max_directives=self.max_directives,
        )

    def extensions(self, *, dev: bool = False) -> list[ExtensionFactory]:
        # One cache of validation results per schema, shared by its requests.
        checked = CheckedDocuments(self.document_limits(), CACHE_SIZE)
        return [
            partial(MaxTokensLimiter, max_token_count=self.max_tokens),
            partial(ParserCache, maxsize=CACHE_SIZE),
            partial(DocumentChecks, checked),
            partial(IntrospectionPolicy, checked, dev or self.agent_introspection),
            partial(ArgumentLimiter, ArgumentBounds(self.bounds())),
            partial(MaskErrors, should_mask_error=should_mask, error_message=MASKED_MESSAGE),
        ]


class ArgumentLimiter(SchemaExtension):
    """Checks integer arguments against `Bound`s, literal or passed as variables.

    It runs after the (cached) validation of the document and sees this request's
    variables; where the bounded arguments are in a document is found once per document.
    """

    def __init__(self, checker: ArgumentBounds) -> None:
        self.checker = checker

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None:
            errors = context.pre_execution_errors
            if errors is None:  # nothing validated the document yet
                errors = validate_document(context.schema._schema, document, context.validation_rules)
            if not errors:
                errors = self.checker.check(context.schema._schema, document, context.variables or {})
            context.pre_execution_errors = errors
        yield


@dataclass(frozen=True, slots=True)
class _Site:
    """One bounded argument as written in a document."""

    coordinate: str
    bound: Bound
    node: ArgumentNode


@dataclass(frozen=True, slots=True)
class _Sites:
    document: DocumentNode  # kept alive so its id() stays its own
    sites: tuple[_Site, ...]
    defaults: Mapping[str, tuple[ValueNode, ...]]


class ArgumentBounds:
    """The bounds, and a bounded cache of where each document uses bounded arguments."""

    def __init__(self, bounds: Mapping[str, Bound], cache_size: int = CACHE_SIZE) -> None:
        self.bounds = dict(bounds)
        self.cache_size = cache_size
        self._cache: OrderedDict[int, _Sites] = OrderedDict()
        self._lock = threading.Lock()

    def check(
        self, schema: GraphQLSchema, document: DocumentNode, variables: Mapping[str, Any]
    ) -> list[GraphQLError]:
        found = self._sites(schema, document)
        errors: list[GraphQLError] = []
        for site in found.sites:
            for value in _values(site.node.value, variables, found.defaults):
                if not site.bound.low <= value <= site.bound.high:
                    errors.append(GraphQLError(site.bound.message(site.coordinate, value), site.node))
                    break
        return errors

    def _sites(self, schema: GraphQLSchema, document: DocumentNode) -> _Sites:
        key = id(document)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.document is document:
                self._cache.move_to_end(key)
                return cached
        found = _Sites(document, _find_sites(schema, document, self.bounds), _defaults(document))
        with self._lock:
            self._cache[key] = found
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return found


def _find_sites(
    schema: GraphQLSchema, document: DocumentNode, bounds: Mapping[str, Bound]
) -> tuple[_Site, ...]:
    sites: list[_Site] = []

    class FindBoundedArguments(ValidationRule):
        # A validation rule only for its visitor with type info: it reports nothing.
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            self.fields: list[str] = []
            self.in_directive = 0

        def enter_field(self, node: FieldNode, *_: object) -> None:
            parent = self.context.get_parent_type()
            self.fields.append(f"{parent.name if parent else '?'}.{node.name.value}")

        def leave_field(self, *_: object) -> None:
            self.fields.pop()

        def enter_directive(self, node: DirectiveNode, *_: object) -> None:
            self.in_directive += 1

        def leave_directive(self, *_: object) -> None:
            self.in_directive -= 1

        def enter_argument(self, node: ArgumentNode, *_: object) -> None:
            if self.in_directive or not self.fields:
                return
            field_name, arg = self.fields[-1], node.name.value
            bound = bounds.get(f"{field_name}.{arg}") or bounds.get(f"*.{arg}")
            if bound is not None:
                sites.append(_Site(f"{field_name}({arg}:)", bound, node))

    validate(schema, document, [FindBoundedArguments])
    return tuple(sites)


def _defaults(document: DocumentNode) -> dict[str, tuple[ValueNode, ...]]:
    defaults: dict[str, list[ValueNode]] = {}
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            for var in definition.variable_definitions or ():
                if var.default_value is not None:
                    defaults.setdefault(var.variable.name.value, []).append(var.default_value)
    return {name: tuple(values) for name, values in defaults.items()}


def _values(
    node: ValueNode, variables: Mapping[str, Any], defaults: Mapping[str, tuple[ValueNode, ...]]
) -> list[int]:
    """The integers an argument can take in this request: its literal, variable or default."""
    if isinstance(node, IntValueNode):
        return [int(node.value)]
    if isinstance(node, VariableNode):
        name = node.name.value
        if name in variables:
            value = variables[name]
            return [value] if isinstance(value, int) and not isinstance(value, bool) else []
        return [v for default in defaults.get(name, ()) for v in _values(default, variables, defaults)]
    return []
