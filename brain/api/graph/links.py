"""Wikilinks as edges: where each one is written, what it says, and where it landed."""

from __future__ import annotations

from typing import Annotated

import strawberry

from brain import model
from brain.api.graph.nodes import (
    Agent,
    Chat,
    DailyNote,
    File,
    Memory,
    Skill,
    Tool,
    Unresolved,
    Workflow,
    WorkItem,
    graph_node,
    note_of,
)
from brain.api.graphql.context import Info
from brain.api.graphql.enums import LinkStatus
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.service.brain import Brain

LinkTarget = Annotated[
    Memory | Agent | Workflow | Chat | WorkItem | Unresolved | DailyNote | Skill | Tool | File,
    strawberry.union("LinkTarget", description="Whatever a wikilink can land on."),
]


@strawberry.type(description="One `[[wikilink]]` as written in a note, and where it resolved.")
class Link:
    text: str = strawberry.field(description="The link exactly as written, e.g. `[[x#Top|see x]]`.")
    target_text: str = strawberry.field(description="The target part as written.")
    target_id: strawberry.ID = strawberry.field(
        description="Id of the target node (an `unresolved:` id when the link is broken or ambiguous)."
    )
    label: str | None
    anchor: str | None = strawberry.field(description="The `#Heading` part, without the `#`.")
    embed: bool = strawberry.field(description="Written as `![[...]]`.")
    line: int = strawberry.field(description="1-based line of the first `[` (or `!`).")
    column: int = strawberry.field(description="1-based column in characters.")
    status: LinkStatus
    record: strawberry.Private[model.Link]
    moment: strawberry.Private[Brain | None] = None  # the graph of an `asOf:` query (nodes.Memory)
    # The source node, when the list it came in fetched every source at once (None: not
    # fetched, or not found: `source` asks the loader, and says if it is gone).
    known_source: strawberry.Private[model.Node | None] = None

    @classmethod
    def of(cls, link: model.Link, moment: Brain | None = None, source: model.Node | None = None) -> Link:
        return cls(
            text=link.raw,
            target_text=link.target,
            target_id=strawberry.ID(link.target_id),
            label=link.label,
            anchor=link.anchor,
            embed=link.embed,
            line=link.line,
            column=link.column,
            status=LinkStatus.of(link.status),
            record=link,
            moment=moment,
            known_source=source,
        )

    @field(description="Pass as `after` to get the links that follow this one.")
    def cursor(self) -> str:
        from brain.api.graph.paging.links import link_cursor

        return link_cursor(self.record)

    # Not a coroutine function: a source the list fetched already is answered at once, without
    # a future and an await per link (8,300 of them in the entities document at 10,000 notes);
    # graphql-core awaits what it returns otherwise.
    @field(description="The note the link is written in.")
    def source(self, info: Info) -> Memory:
        if self.known_source is None:
            return self._source(info)  # type: ignore[return-value]  # awaited by graphql-core
        return self._source_of(self.known_source)

    async def _source(self, info: Info) -> Memory:
        return self._source_of(await info.context.loaders_of(self.moment).nodes.load(self.record.source))

    def _source_of(self, node: object) -> Memory:
        if not isinstance(node, model.MemoryNode):
            raise _changed_meanwhile(self.record.source)
        return note_of(node, self.moment)

    @field(description="Where it landed: a node, or the Unresolved node it waits on.")
    async def target(self, info: Info) -> LinkTarget:
        target_id = self.record.target_id
        node = await info.context.loaders_of(self.moment).nodes.load(target_id)
        if node is None and target_id.startswith("unresolved:"):
            node = model.UnresolvedNode(target_id.split(":", 1)[1])
        if node is None:
            raise _changed_meanwhile(target_id)
        return graph_node(node, self.moment)

    @field(
        description=(
            "Ambiguous: every node the link could mean. Broken: notes of that name it cannot "
            "reach (another agent's private folder)."
        )
    )
    async def candidates(self, info: Info) -> list[LinkTarget]:
        if not self.record.candidates:
            return []
        loaders = info.context.loaders_of(self.moment)
        return [graph_node(n, self.moment) for n in await loaders.nodes_of(self.record.candidates)]


def _changed_meanwhile(node_id: str) -> UserError:
    return UserError(f"`{node_id}` was removed while this query ran: the workspace changed; ask again")
