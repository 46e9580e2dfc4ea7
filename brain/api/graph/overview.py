"""The whole graph in one compact answer, for a workspace overview (the web UI's graph view).

`neighborhood` answers one node's surroundings as full objects; drawing every note at once
needs every node and edge, and resolving tens of thousands of typed objects (or list items:
graphql-core completes each one) takes seconds at 10,000 notes. So `nodes` are small typed
objects for those who want them, and `columns` is the same graph as one JSON value of
parallel arrays, which costs no more than its JSON encoding (the web UI asks for that).
With `edgeBudget` the answer holds only the links a drawing shows (brain/service/overview.py: every
problem link and the backbone), a tenth of the JSON at 10,000 notes, and every node's degree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from brain import model
from brain.api.graph.clusters import best_linked, cluster_memories
from brain.api.graph.moments import AS_OF, moment_at
from brain.api.graphql.context import Info
from brain.api.graphql.enums import LinkStatus, MemoryType
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.graphql.permissions import ADMIN_ONLY
from brain.service.brain import Brain
from brain.service.overview import MAX_OVERVIEW_EDGE_BUDGET, overview_backbone
from brain.store.base import MemoryFilter

MAX_OVERVIEW_NODES = 200_000


@strawberry.type(description="A node of the overview: just what a drawing needs.")
class OverviewNode:
    id: strawberry.ID
    kind: str = strawberry.field(description="memory, agent, workflow, chat, work-item or unresolved.")
    label: str = strawberry.field(description="A memory's or entity's name, an agent's name, a target.")
    scope: str | None = strawberry.field(description="A memory's scope; an agent's own name.")
    type: MemoryType | None
    problems: int = strawberry.field(description="A memory's own problems and those of its links.")
    memory_off: bool = strawberry.field(description="An agent whose memory is off.")


@strawberry.type(description="Every node, and every edge as parallel lists of node indexes.")
class GraphOverview:
    nodes: list[OverviewNode]
    edge_sources: list[int] = strawberry.field(description="Index into `nodes` of each edge's source.")
    edge_targets: list[int] = strawberry.field(description="Index into `nodes` of each edge's target.")
    edge_status: list[LinkStatus | None] = strawberry.field(
        description="Each LINKS_TO edge's status; null for REMEMBERS (agent -> its memory)."
    )
    truncated: bool = strawberry.field(description="`limit` cut the memories short.")
    degree: list[int] = strawberry.field(
        description="Each node's number of edges (self-links aside), counting those `edgeBudget` left out."
    )
    edge_total: int = strawberry.field(description="How many edges (self-links aside) before `edgeBudget`.")
    memory_total: int = strawberry.field(
        default=0,
        description="How many memories there are (the whole graph's or the cluster's), `limit` aside.",
    )

    @field(description=(
        "The same graph as parallel arrays, one JSON object: `id`, `kind`, `label`, `scope`, "
        "`type` (lower case or null), `problems`, `memoryOff`, `degree` per node, and `source`, `target` "
        "(node indexes) and `status` (`resolved`, `broken`, `ambiguous`, `missing-anchor`, or "
        "null for REMEMBERS) per edge."
    ))
    def columns(self) -> JSON:
        nodes = self.nodes
        return cast(JSON, {
            "id": [str(n.id) for n in nodes], "kind": [n.kind for n in nodes],
            "label": [n.label for n in nodes], "scope": [n.scope for n in nodes],
            "type": [n.type.value if n.type else None for n in nodes],
            "problems": [n.problems for n in nodes], "memoryOff": [n.memory_off for n in nodes],
            "degree": self.degree,
            "source": self.edge_sources, "target": self.edge_targets,
            "status": [s.value if s else None for s in self.edge_status],
        })


def build_overview(
    info: Info, limit: int, edge_budget: int | None = None, moment: Brain | None = None,
    cluster: str | None = None,
) -> GraphOverview:
    store = (info.context.brain if moment is None else moment).store
    if cluster is None:
        memories = store.list_memories(MemoryFilter(), limit=limit + 1, bodies=False)
        truncated = len(memories) > limit
        memories = memories[:limit]
        total = store.count_memories(MemoryFilter()) if truncated else len(memories)
    else:
        # One cluster's notes (graphClusters), its best-linked `limit` if it holds more.
        members = cluster_memories(store, cluster)
        if members is None:
            raise UserError(f"cluster {cluster!r} is not a cluster of notes: ask graphClusters for their ids")
        total = len(members)
        truncated = total > limit
        memories = best_linked(store, members, limit)
    nodes: list[OverviewNode] = []
    index: dict[str, int] = {}

    def add(node: OverviewNode) -> int:
        index[str(node.id)] = len(nodes)
        nodes.append(node)
        return len(nodes) - 1

    scopes = {m.scope for m in memories}
    for agent in store.list_agents():
        if cluster is None or agent.name in scopes:  # a cluster draws its own agent alone
            add(OverviewNode(id=strawberry.ID(agent.id), kind="agent", label=agent.name, scope=agent.name,
                             type=None, problems=0, memory_off=agent.memory_off))
    for kind in model.ENTITY_KINDS:
        for entity in store.list_entities(kind) if cluster is None else ():
            add(OverviewNode(id=strawberry.ID(entity.id), kind=kind.value, label=entity.ident,
                             scope=None, type=None, problems=0, memory_off=False))
    ids = [m.id for m in memories]  # `id` is built on each call: once per memory, not per link
    links = store.links_from(ids)
    sources: list[int] = []
    targets: list[int] = []
    status: list[model.LinkStatus | None] = []
    positions: list[int] = []
    for memory, memory_id in zip(memories, ids, strict=True):
        own = links.get(memory_id, [])
        bad = len(memory.problems) + sum(1 for link in own if link.status is not model.LinkStatus.RESOLVED)
        i = add(OverviewNode(id=strawberry.ID(memory_id), kind="memory", label=memory.name,
                             scope=memory.scope, type=MemoryType.of(memory.type), problems=bad,
                             memory_off=False))
        positions.append(i)
        owner = index.get(model.agent_id(memory.scope))
        if owner is not None:
            sources.append(owner)
            targets.append(i)
            status.append(None)
    for i, memory_id in zip(positions, ids, strict=True):
        for link in links.get(memory_id, []):
            j = index.get(link.target_id)
            if j is None:
                if not link.target_id.startswith("unresolved:"):
                    continue  # a memory beyond `limit`
                j = add(OverviewNode(id=strawberry.ID(link.target_id), kind="unresolved",
                                     label=link.target_id.removeprefix("unresolved:"), scope=None,
                                     type=None, problems=0, memory_off=False))
            sources.append(i)
            targets.append(j)
            status.append(link.status)
    backbone = overview_backbone(sources, targets, status, len(nodes), edge_budget)
    if edge_budget is not None:
        sources = [sources[i] for i in backbone.kept]
        targets = [targets[i] for i in backbone.kept]
        status = [status[i] for i in backbone.kept]
    return GraphOverview(nodes=nodes, edge_sources=sources, edge_targets=targets,
                         edge_status=[LinkStatus.of(s) if s else None for s in status],
                         truncated=truncated, degree=backbone.degree, edge_total=backbone.total,
                         memory_total=total)


@strawberry.type
class OverviewQuery:
    @field(
        description=(
            "Every node and edge of the graph at once (memories up to `limit`), compact. With "
            "`edgeBudget`, every node but only the edges a drawing shows: self-links aside, all "
            "of them up to the budget; past it, every problem link, then the resolved links "
            "between the best-connected nodes up to the budget, and no REMEMBERS edges."
        ),
        permission_classes=ADMIN_ONLY,
    )
    async def graph_overview(
        self, info: Info, limit: int = 20_000, edge_budget: int | None = None,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
        cluster: Annotated[str | None, strawberry.argument(description=(
            "Only the notes of this cluster or scope (an id of graphClusters, or `scope:<name>`): "
            "its best-linked `limit` (most links in and out) when it holds more; `memoryTotal` says how many."
        ))] = None,
    ) -> GraphOverview:
        if not 1 <= limit <= MAX_OVERVIEW_NODES:
            raise UserError(f"limit must be between 1 and {MAX_OVERVIEW_NODES:,}, not {limit}")
        if edge_budget is not None and not 0 <= edge_budget <= MAX_OVERVIEW_EDGE_BUDGET:
            raise UserError(
                f"edgeBudget must be between 0 and {MAX_OVERVIEW_EDGE_BUDGET:,}, not {edge_budget}"
            )
        moment = await moment_at(info, as_of)
        return await in_thread(build_overview, info, limit, edge_budget, moment, cluster)
