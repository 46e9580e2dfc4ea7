"""The read side of the graph: what dashboards ask. Thin resolvers over the store."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from brain import model
from brain.api.graph.connections import (
    MemoryConnection,
    MemoryFilterInput,
    ProblemConnection,
    memory_page,
    problem_page,
)
from brain.api.graph.link_pages import PAGE, node_page
from brain.api.graph.memory_view import memory_at
from brain.api.graph.moments import AS_OF, moment_at
from brain.api.graph.nodes import Agent, Chat, Memory, Node, Workflow, WorkItem, entity_of, graph_node
from brain.api.graph.reports import LinkReport, Stats, Subgraph, subgraph_of
from brain.api.graphql.context import Info
from brain.api.graphql.enums import Severity
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.graphql.permissions import ADMIN_ONLY
from brain.layouts import LayoutChoice
from brain.store.base import MemoryFilter

# Lists that grow with the workspace are paged (docs/security.md).
PAGED = "; `first` (at most 100) after the node whose id is `after`."


def _entities(info: Info, kind: model.Kind) -> list[model.EntityNode]:
    return info.context.brain.store.list_entities(kind)


@strawberry.type
class GraphQuery:
    @field(
        description="Any node by its stable id, e.g. `memory:shared/glossary`.",
        permission_classes=ADMIN_ONLY,
    )
    async def node(self, info: Info, id: strawberry.ID) -> Node | None:
        found = await info.context.loaders.nodes.load(str(id))
        return None if found is None else graph_node(found)

    @field(
        description=(
            "One memory, by `path` (e.g. `memory/shared/glossary.md`) or by `scope` and `name`; "
            "names match case-insensitively."
        ),
        permission_classes=ADMIN_ONLY,
    )
    async def memory(
        self, info: Info, path: str | None = None, scope: str | None = None, name: str | None = None,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> Memory | None:
        moment = await moment_at(info, as_of)
        store = (info.context.brain if moment is None else moment).store
        if path is not None and scope is None and name is None:
            clean = path.strip().removeprefix("./").lstrip("/")
            found = await (in_thread(store.memory_by_path, clean) if moment is not None
                           else memory_at(info.context.loaders, store, clean))
        elif path is None and scope is not None and name is not None:
            found = await in_thread(store.find_memory, scope, name)
        else:
            raise UserError(
                "memory() takes either `path` (e.g. path: \"memory/shared/glossary.md\") "
                "or both `scope` and `name` (e.g. scope: \"shared\", name: \"glossary\")"
            )
        return None if found is None else Memory.of(found, moment)

    @field(description="Memories in id order, filtered and paged.", permission_classes=ADMIN_ONLY)
    async def memories(
        self,
        info: Info,
        filter: MemoryFilterInput | None = None,
        first: int = 20,
        after: str | None = None,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> MemoryConnection:
        where = filter.to_model() if filter is not None else MemoryFilter()
        return await memory_page(info, where, first, after, await moment_at(info, as_of))

    @field(description="Agents by id" + PAGED, permission_classes=ADMIN_ONLY)
    async def agents(self, info: Info, first: int = PAGE, after: str | None = None) -> list[Agent]:
        found = await in_thread(info.context.brain.store.list_agents)
        return [Agent.of(a) for a in node_page(found, first, after)]

    @field(description="One agent by name (open to agents' tokens too, for `memoryPrompt`).")
    async def agent(self, info: Info, name: str) -> Agent | None:
        found = await info.context.loaders.nodes.load(model.agent_id(name))
        return Agent.of(found) if isinstance(found, model.AgentNode) else None

    @field(description="Workflows by id" + PAGED, permission_classes=ADMIN_ONLY)
    async def workflows(self, info: Info, first: int = PAGE, after: str | None = None) -> list[Workflow]:
        found = node_page(await in_thread(_entities, info, model.Kind.WORKFLOW), first, after)
        return [w for w in map(entity_of, found) if isinstance(w, Workflow)]

    @field(description="Chats by id" + PAGED, permission_classes=ADMIN_ONLY)
    async def chats(self, info: Info, first: int = PAGE, after: str | None = None) -> list[Chat]:
        found = node_page(await in_thread(_entities, info, model.Kind.CHAT), first, after)
        return [c for c in map(entity_of, found) if isinstance(c, Chat)]

    @field(description="Work items by id" + PAGED, permission_classes=ADMIN_ONLY)
    async def work_items(self, info: Info, first: int = PAGE, after: str | None = None) -> list[WorkItem]:
        found = node_page(await in_thread(_entities, info, model.Kind.WORK_ITEM), first, after)
        return [w for w in map(entity_of, found) if isinstance(w, WorkItem)]

    @field(
        description="Problems in path and line order, as `brain check` reports them.",
        permission_classes=ADMIN_ONLY,
    )
    async def problems(
        self,
        info: Info,
        severity: Severity | None = None,
        code: str | None = None,
        path: str | None = None,
        first: int = 50,
        after: str | None = None,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> ProblemConnection:
        moment = await moment_at(info, as_of)
        return await problem_page(info, severity, code, path, first, after, moment)

    @field(
        description="Link integrity: counts by status and by problem code, and what is missing.",
        permission_classes=ADMIN_ONLY,
    )
    async def link_report(
        self, info: Info, as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> LinkReport:
        brain = await moment_at(info, as_of) or info.context.brain
        stats = await in_thread(brain.stats)
        problems = await in_thread(brain.problems)
        return LinkReport.of(stats, problems)

    @field(
        description=(
            "The nodes within `depth` hops of a node (links both ways, agents and their memories) "
            "and the edges among them, at most `limit` nodes; null if the node does not exist."
        ),
        permission_classes=ADMIN_ONLY,
    )
    async def neighborhood(
        self, info: Info, id: strawberry.ID, depth: int = 1, limit: int = 100,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> Subgraph | None:
        moment = await moment_at(info, as_of)
        store = (info.context.brain if moment is None else moment).store
        sub = await in_thread(store.neighborhood, str(id), depth, limit)
        if not sub.nodes:
            return None
        return subgraph_of(sub.nodes, sub.edges, sub.truncated, moment)

    @field(description="Counts of the whole graph.", permission_classes=ADMIN_ONLY)
    async def stats(
        self, info: Info, as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> Stats:
        brain = await moment_at(info, as_of) or info.context.brain
        return Stats.of(await in_thread(brain.stats))

    @field(
        description="The workspace's layout (latchai, space, mindlink or lab) and how it was chosen.",
        permission_classes=ADMIN_ONLY,
    )
    def layout(self, info: Info) -> WorkspaceLayout:
        return WorkspaceLayout.of(info.context.brain.layout_choice)


@strawberry.type(description="How brain reads the workspace's folders (design.md section 8).")
class WorkspaceLayout:
    name: str = strawberry.field(description="`latchai`, `space`, `mindlink` or `lab`.")
    detected: bool = strawberry.field(description="Read from the folders (true) or set in brain.toml.")
    reason: str = strawberry.field(description="Why, in words: what was found, or brain.toml.")

    @classmethod
    def of(cls, choice: LayoutChoice) -> WorkspaceLayout:
        return cls(name=choice.name, detected=choice.detected, reason=choice.reason)
