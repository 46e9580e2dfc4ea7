"""Refusing hostile documents before any resolver runs.

Every limit is a schema extension passed as a factory, so each request gets its own
instance (a shared instance would leak state between concurrent requests). Depth, aliases
and tokens use strawberry's limiters; argument bounds (page sizes, neighbourhood depth) are
a validation rule built per request because they must see the request's variables too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from graphql import (
    ArgumentNode,
    DirectiveNode,
    FieldNode,
    GraphQLError,
    IntValueNode,
    OperationDefinitionNode,
    ValidationContext,
    ValidationRule,
    ValueNode,
    VariableNode,
)
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)

from brain.api.errors import MASKED_MESSAGE, should_mask

ExtensionFactory = Callable[[], SchemaExtension]


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

    def extensions(self) -> list[ExtensionFactory]:
        return [
            partial(MaxTokensLimiter, max_token_count=self.max_tokens),
            partial(QueryDepthLimiter, max_depth=self.max_depth),
            partial(MaxAliasesLimiter, max_alias_count=self.max_aliases),
            partial(ArgumentLimiter, self.bounds()),
            partial(MaskErrors, should_mask_error=should_mask, error_message=MASKED_MESSAGE),
        ]


class ArgumentLimiter(SchemaExtension):
    """Validates integer arguments against `Bound`s, literal or passed as variables."""

    def __init__(self, bounds: Mapping[str, Bound]) -> None:
        self.bounds = dict(bounds)

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        rule = bounds_rule(self.bounds, dict(context.variables or {}))
        context.validation_rules = (*context.validation_rules, rule)
        yield


def bounds_rule(bounds: Mapping[str, Bound], variables: Mapping[str, Any]) -> type[ValidationRule]:
    class ArgumentBounds(ValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            self.fields: list[str] = []
            self.in_directive = 0
            self.defaults: dict[str, list[ValueNode]] = {}
            for definition in context.document.definitions:
                if isinstance(definition, OperationDefinitionNode):
                    for var in definition.variable_definitions or ():
                        if var.default_value is not None:
                            name = var.variable.name.value
                            self.defaults.setdefault(name, []).append(var.default_value)

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
            field_name = self.fields[-1]
            arg = node.name.value
            bound = bounds.get(f"{field_name}.{arg}") or bounds.get(f"*.{arg}")
            if bound is None:
                return
            for value in self.values_of(node.value):
                if not bound.low <= value <= bound.high:
                    coordinate = f"{field_name}({arg}:)"
                    self.report_error(GraphQLError(bound.message(coordinate, value), node))
                    return

        def values_of(self, node: ValueNode) -> list[int]:
            if isinstance(node, IntValueNode):
                return [int(node.value)]
            if isinstance(node, VariableNode):
                name = node.name.value
                if name in variables:
                    value = variables[name]
                    return [value] if isinstance(value, int) and not isinstance(value, bool) else []
                return [v for d in self.defaults.get(name, []) for v in self.values_of(d)]
            return []

    return ArgumentBounds
