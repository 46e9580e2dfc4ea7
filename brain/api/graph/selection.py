"""Whether a query asks for a field below the one being resolved (fragments followed).

A list field that knows what its items' fields will ask for can fetch it for all of them at
once and hand each item its answer: the dashboard's entities document resolves ~8,300
backlinks at 10,000 notes, and each link's `source` as an awaited DataLoader load cost a
future, a task step and graphql-core's awaitable path per link (issue 43: 1.5-2.1 s of CPU a
request). Reading the document's own AST is exact and costs a few microseconds a list.
"""

from __future__ import annotations

from typing import Any

from graphql import FieldNode, FragmentSpreadNode, GraphQLResolveInfo, InlineFragmentNode, SelectionSetNode

from brain.api.graphql.context import Info


def asks_below(info: Info, name: str) -> bool:
    """Whether the field being resolved selects `name` (a GraphQL field name) on its items."""
    raw: GraphQLResolveInfo[Any] = info._raw_info
    return any(_selects(node.selection_set, name, raw, set()) for node in raw.field_nodes)


def _selects(
    selection: SelectionSetNode | None, name: str, raw: GraphQLResolveInfo[Any], seen: set[str],
) -> bool:
    if selection is None:
        return False
    for node in selection.selections:
        if isinstance(node, FieldNode):
            if node.name.value == name:
                return True
        elif isinstance(node, InlineFragmentNode):
            if _selects(node.selection_set, name, raw, seen):
                return True
        elif isinstance(node, FragmentSpreadNode):
            fragment = raw.fragments.get(node.name.value)
            if fragment is not None and node.name.value not in seen:
                seen.add(node.name.value)
                if _selects(fragment.selection_set, name, raw, seen):
                    return True
    return False
