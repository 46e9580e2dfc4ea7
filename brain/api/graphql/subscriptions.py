"""`Subscription.graphChanged`: one event per applied change, so dashboards never poll."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import UTC, datetime

import strawberry

from brain.api.graph.nodes import Node, graph_node
from brain.api.graphql.context import Info
from brain.api.graphql.enums import ChangeKind
from brain.api.graphql.fields import field, subscription
from brain.api.graphql.permissions import ADMIN_ONLY
from brain.api.http.events import change_scope
from brain.service.brain import GraphChange

# Model field names -> the schema's field names, for `GraphChangeEvent.fields`.
_FIELD_NAMES = {
    "memory_enabled": "memoryEnabled",
    "memory_off": "memoryOff",
}


@strawberry.type(description="One applied change of one node.")
class GraphChangeEvent:
    seq: int = strawberry.field(description="Increases by one per change, for ordering and gap checks.")
    kind: ChangeKind
    id: strawberry.ID = strawberry.field(description="The node that changed.")
    scope: str | None = strawberry.field(description="A memory's scope, or an agent's name.")
    fields: list[str] = strawberry.field(
        description="For CHANGED: the fields that differ (e.g. description, body, links)."
    )
    at: datetime

    @classmethod
    def of(cls, change: GraphChange) -> GraphChangeEvent:
        return cls(
            seq=change.seq,
            kind=ChangeKind(change.kind),
            id=strawberry.ID(change.id),
            scope=change_scope(change),
            fields=[_FIELD_NAMES.get(f, f) for f in change.fields],
            at=datetime.fromtimestamp(change.at, tz=UTC),
        )

    @field(description="The node as it is now; null once deleted.")
    async def node(self, info: Info) -> Node | None:
        found = await info.context.loaders.nodes.load(str(self.id))
        return None if found is None else graph_node(found)


@strawberry.type
class Subscription:
    @subscription(
        description="Every change applied to the graph from now on; only one scope's if `scope` is given.",
        permission_classes=ADMIN_ONLY,
    )
    async def graph_changed(
        self, info: Info, scope: str | None = None
    ) -> AsyncGenerator[GraphChangeEvent, None]:
        async with info.context.services.hub.listen(scope) as changes:
            async for change in changes:
                yield GraphChangeEvent.of(change)
