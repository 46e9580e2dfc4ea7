"""How big a GraphQL document really is, with every fragment expanded, in linear time.

A document of a few hundred bytes can describe an exponential amount of work: fragment
F0 spreads F1 twice, F1 spreads F2 twice, and so on. Counting such a document by walking
it (as strawberry's depth and alias limiters do) is itself exponential, so the counting
alone blocked the server. Here each fragment is measured once and its figures are reused
wherever it is spread, so measuring costs one pass over the document's text whatever it
expands to, and the expanded figures are exact (they may be astronomically large; Python
integers do not overflow).

Fragment cycles and unknown fragments count as empty: the standard validation rules report
them by name once the document is known to be small enough to validate at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)


@dataclass(frozen=True, slots=True)
class Measure:
    """A selection's figures with fragments expanded."""

    fields: int = 0  # field selections, each spread counted as often as it is spread
    aliases: int = 0  # aliased field selections, counted the same way
    depth: int = 0  # the deepest nesting of fields (a field with no sub-selection is 1)

    def __add__(self, other: Measure) -> Measure:
        return Measure(self.fields + other.fields, self.aliases + other.aliases,
                       max(self.depth, other.depth))


EMPTY = Measure()


@dataclass(frozen=True, slots=True)
class DocumentLimits:
    max_fields: int
    max_aliases: int
    max_depth: int
    max_operations: int
    max_fragments: int
    max_directives: int


class _Measurer:
    def __init__(self, document: DocumentNode) -> None:
        self.fragments: dict[str, FragmentDefinitionNode] = {}
        for definition in document.definitions:
            if isinstance(definition, FragmentDefinitionNode):
                self.fragments.setdefault(definition.name.value, definition)
        self.done: dict[str, Measure] = {}
        self.open: set[str] = set()  # fragments being measured: a spread of one is a cycle

    def selection_set(self, node: SelectionSetNode | None) -> Measure:
        total = EMPTY
        for selection in node.selections if node is not None else ():
            if isinstance(selection, FieldNode):
                inner = self.selection_set(selection.selection_set)
                # `ofType` only unwraps a list or non-null type (a short chain, one object
                # per level): the spec's introspection query nests it seven deep.
                deeper = 0 if selection.name.value == "ofType" else 1
                total += Measure(inner.fields + 1, inner.aliases + (selection.alias is not None),
                                 inner.depth + deeper)
            elif isinstance(selection, InlineFragmentNode):
                total += self.selection_set(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                total += self.fragment(selection.name.value)
        return total

    def fragment(self, name: str) -> Measure:
        found = self.done.get(name)
        if found is not None:
            return found
        if name not in self.fragments or name in self.open:
            return EMPTY  # unknown, or a cycle back to a fragment being measured
        self._measure_from(name)
        return self.done[name]

    def _measure_from(self, name: str) -> None:
        """Measure `name` and the fragments it needs, those first, without recursion: a
        chain of fragments is as long as the document allows, Python's stack is not."""
        stack = [name]
        while stack:
            top = stack[-1]
            if top in self.done:
                stack.pop()
            elif top not in self.open:  # first visit: measure what it spreads first
                self.open.add(top)
                stack.extend(
                    spread for spread in _spreads(self.fragments[top].selection_set)
                    if spread in self.fragments and spread not in self.done and spread not in self.open
                )
            else:  # what it spreads is measured (or is a cycle back to it)
                stack.pop()
                self.done[top] = self.selection_set(self.fragments[top].selection_set)
                self.open.discard(top)


def _spreads(node: SelectionSetNode) -> list[str]:
    """The fragments a selection set spreads, at any depth, in order."""
    names: list[str] = []
    stack: list[SelectionSetNode] = [node]
    while stack:
        for selection in stack.pop().selections:
            if isinstance(selection, FragmentSpreadNode):
                names.append(selection.name.value)
            elif isinstance(selection, FieldNode | InlineFragmentNode) and selection.selection_set:
                stack.append(selection.selection_set)
    return names


def measure_operations(document: DocumentNode) -> list[tuple[str, Measure]]:
    """Each operation's name ("" when anonymous) and figures, in order (names may repeat:
    that is a validation error reported later, but each operation is measured)."""
    measurer = _Measurer(document)
    return [
        (definition.name.value if definition.name else "", measurer.selection_set(definition.selection_set))
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode)
    ]


INTROSPECTION_FIELDS = frozenset({"__schema", "__type"})


def uses_introspection(document: DocumentNode) -> bool:
    """Whether any selection (in an operation or a fragment) asks for `__schema` or `__type`."""
    stack: list[object] = list(document.definitions)
    while stack:
        node = stack.pop()
        if isinstance(node, FieldNode) and node.name.value in INTROSPECTION_FIELDS:
            return True
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)
    return False


def count_directives(document: DocumentNode) -> int:
    """Directives written in the document (not expanded: each is checked once per use)."""
    count = 0
    stack: list[object] = list(document.definitions)
    while stack:
        node = stack.pop()
        count += len(getattr(node, "directives", None) or ())
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)
    return count


def document_errors(document: DocumentNode, limits: DocumentLimits) -> list[GraphQLError]:
    """The limits this document breaks, each named with its figure and what to do instead."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    errors: list[GraphQLError] = []
    if len(operations) > limits.max_operations:
        errors.append(GraphQLError(
            f"the document holds {len(operations)} operations; at most {limits.max_operations} "
            "are allowed: send only the operations you run"
        ))
    if len(fragments) > limits.max_fragments:
        errors.append(GraphQLError(
            f"the document holds {len(fragments)} fragments; at most {limits.max_fragments} are allowed"
        ))
    directives = count_directives(document)
    if directives > limits.max_directives:
        errors.append(GraphQLError(
            f"the document holds {directives} directives; at most {limits.max_directives} are allowed"
        ))
    if errors:
        return errors
    for name, measure in measure_operations(document):
        errors.extend(_operation_errors(name, measure, limits))
    return errors


def _operation_errors(name: str, measure: Measure, limits: DocumentLimits) -> list[GraphQLError]:
    label = f"operation '{name}'" if name else "the operation"
    errors: list[GraphQLError] = []
    if measure.fields > limits.max_fields:
        errors.append(GraphQLError(
            f"{label} selects {_figure(measure.fields)} fields once its fragments are expanded; "
            f"the limit is {limits.max_fields} (max_fields): ask for fewer fields, or split the "
            "query into several"
        ))
    if measure.aliases > limits.max_aliases:
        errors.append(GraphQLError(
            f"{label} uses {_figure(measure.aliases)} aliases once its fragments are expanded; "
            f"the limit is {limits.max_aliases} (max_aliases)"
        ))
    if measure.depth > limits.max_depth:
        errors.append(GraphQLError(
            f"{label} exceeds maximum operation depth of {limits.max_depth} "
            f"(max_depth; it nests {_figure(measure.depth)} fields deep): ask for the "
            "neighbourhood of a node at the edge instead"
        ))
    return errors


def _figure(number: int) -> str:
    """A count, written out unless it is absurdly long (2**1000 has 302 digits)."""
    text = f"{number:,}"
    return text if len(text) <= 20 else f"about 10^{len(str(number)) - 1}"
