"""`graphClusters`: the whole workspace summed up for a first picture, and the notes of one of
its clusters (`graphOverview(cluster:)`) for the drill-down.

The summing up is brain/service/clusters.py's; here are its GraphQL types and the reads it
needs of the store (the same on both stores: memories without bodies and their links).
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Annotated
from weakref import WeakKeyDictionary

import strawberry

from brain.api.graph.asof.moments import AS_OF, moment_at
from brain.api.graphql.context import Info
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.graphql.permissions import ADMIN_ONLY
from brain.model import MemoryNode
from brain.registry import OnePer
from brain.service.brain import Brain
from brain.service.cluster_counts import ClusterKeeper
from brain.service.clusters import ClusterSummary, members_of, scope_of_cluster, summarize
from brain.store.base import GraphStore, MemoryFilter

# A summary lists at most this many of a cluster's best-linked notes by name.
HUB_NAMES = 3
# Past this many notes the web UI's graph view opens with the summary (web/src/graph/overview/clusters.ts).
WARM_ABOVE = 5000


@strawberry.type(
    description=(
        "A group of notes of one scope (a folder, or a big folder's notes by the first word of "
        "their name), or the entities notes link to."
    )
)
class GraphCluster:
    id: strawberry.ID = strawberry.field(
        description=(
            "`cluster:<scope>/<folder>[/<word>]`, or `cluster:@<entity kind>`; "
            "`graphOverview(cluster:)` draws its notes."
        )
    )
    kind: str = strawberry.field(
        description="`notes`, or `entities` (the workflows, chats or work items linked to)."
    )
    scope: str = strawberry.field(description="The scope its notes are in (empty for entities).")
    label: str
    folder: str = strawberry.field(description="The folder its notes are in.")
    notes: int = strawberry.field(description="How many notes (entities: how many are linked to).")
    links: int = strawberry.field(description="Resolved links between two of its notes.")
    outside: int = strawberry.field(
        description="Resolved links between its notes and other clusters' (either way)."
    )
    problems: int = strawberry.field(description="Its notes' broken, ambiguous and missing-anchor links.")
    hubs: list[str] = strawberry.field(description="Its best-linked notes' names, most linked first.")


@strawberry.type(description="One scope: how many notes, and whether an agent stands for it.")
class ClusterScope:
    scope: str
    notes: int
    agent: bool = strawberry.field(description="An agent of this name is defined.")
    memory_off: bool


@strawberry.type(description="The workspace as clusters of notes and the links between them.")
class GraphClusters:
    notes: int = strawberry.field(description="Every note summed up (the clusters' notes add up to it).")
    links: int = strawberry.field(
        description=(
            "Resolved links between notes or to entities, self-links aside (the clusters' "
            "`links` and the edges' sum to it)."
        )
    )
    problems: int = strawberry.field(description="Broken, ambiguous and missing-anchor links.")
    wanted: int = strawberry.field(description="Distinct unresolved targets.")
    scopes: list[ClusterScope]
    clusters: list[GraphCluster] = strawberry.field(description="Largest first.")
    edge_sources: list[int] = strawberry.field(
        description="Index into `clusters` of each edge's one end (the lower)."
    )
    edge_targets: list[int] = strawberry.field(description="Index into `clusters` of each edge's other end.")
    edge_links: list[int] = strawberry.field(
        description="How many resolved links each edge stands for (either way)."
    )


# Each brain's summary, kept up to date from its change events (brain/service/cluster_counts.py):
# made from every note and link once, then each request after a write reads only what it changed.
_opening = threading.Lock()
_typed: WeakKeyDictionary[ClusterKeeper, tuple[ClusterSummary, GraphClusters]] = WeakKeyDictionary()


def _keeper_made(brain: Brain) -> ClusterKeeper:
    keeper = ClusterKeeper(brain.store, hubs=HUB_NAMES)
    # Before its first read: a write during that read is applied on the next ask.
    brain.subscribe(lambda change: keeper.changed(change.id))
    return keeper


_keepers: OnePer[Brain, ClusterKeeper] = OnePer(_keeper_made)


def keeper_of(brain: Brain) -> ClusterKeeper:
    return _keepers(brain)


def clusters_of(brain: Brain) -> GraphClusters:
    """The summary of `brain`'s graph now (one is made at a time; a second asker waits for it).
    Its GraphQL form is made once per summary: a page's every visit asks for it."""
    keeper = keeper_of(brain)
    summary = keeper.summary()
    with _opening:
        made = _typed.get(keeper)
        if made is not None and made[0] is summary:
            return made[1]
    answer = graph_clusters(summary, brain.store)
    with _opening:
        _typed[keeper] = (summary, answer)
    return answer


def warm_clusters(brain: Brain) -> None:
    """Makes the summary in the background once the server is ready, where the graph view opens
    with it (past WARM_ABOVE notes): its first visitor then waits for no pass over every link."""
    if sum(brain.store.memory_scopes().values()) > WARM_ABOVE:
        threading.Thread(target=clusters_of, args=(brain,), name="brain-clusters", daemon=True).start()


def build_clusters(store: GraphStore) -> GraphClusters:
    """The summary from a full read of `store` (what the kept one must equal)."""
    notes = store.list_memories(MemoryFilter(), bodies=False)
    return graph_clusters(summarize(notes, store.links_from([n.id for n in notes]), hubs=HUB_NAMES), store)


def graph_clusters(summary: ClusterSummary, store: GraphStore) -> GraphClusters:
    agents = {a.name: a for a in store.list_agents()}
    counts: dict[str, int] = {}
    for c in summary.clusters:
        if c.kind == "notes":
            counts[c.scope] = counts.get(c.scope, 0) + c.notes
    scopes = [
        ClusterScope(
            scope=s,
            notes=counts.get(s, 0),
            agent=s in agents,
            memory_off=bool(agents[s].memory_off) if s in agents else False,
        )
        for s in sorted(set(counts) | set(agents))
    ]
    return GraphClusters(
        notes=summary.notes,
        links=summary.links,
        problems=summary.problems,
        wanted=summary.wanted,
        scopes=scopes,
        clusters=[
            GraphCluster(
                id=strawberry.ID(c.id),
                kind=c.kind,
                scope=c.scope,
                label=c.label,
                folder=c.folder,
                notes=c.notes,
                links=c.links,
                outside=c.outside,
                problems=c.problems,
                hubs=c.hubs,
            )
            for c in summary.clusters
        ],
        edge_sources=[e.a for e in summary.edges],
        edge_targets=[e.b for e in summary.edges],
        edge_links=[e.links for e in summary.edges],
    )


def cluster_memories(store: GraphStore, cluster: str) -> list[MemoryNode] | None:
    """The memories of a cluster or scope id, in id order; None if the id names no scope's notes."""
    scope = scope_of_cluster(cluster)
    if scope is None:
        return None
    memories = store.list_memories(MemoryFilter(scope=scope), bodies=False)
    return members_of(memories, cluster)


def best_linked(store: GraphStore, memories: list[MemoryNode], limit: int) -> list[MemoryNode]:
    """The `limit` memories with the most links in and out (ties to the lower id), in id order:
    what a drawing capped at `limit` notes should show of a bigger cluster."""
    if len(memories) <= limit:
        return memories
    ids = [m.id for m in memories]
    out = store.links_from(ids)
    into = store.backlink_counts(ids)
    ranked = sorted(
        range(len(ids)), key=lambda i: (-(len(out.get(ids[i], ())) + into.get(ids[i], 0)), ids[i])
    )
    return [memories[i] for i in sorted(ranked[:limit])]


@strawberry.type
class ClustersQuery:
    @field(
        description=(
            "The whole workspace summed up for a first picture: one node per scope and per cluster "
            "of its notes (their folder; a folder of more than 400 notes by the first word of their "
            "names), with their counts, and the resolved links between clusters as weighted edges. "
            "`graphOverview(cluster:)` draws one cluster's notes."
        ),
        permission_classes=ADMIN_ONLY,
    )
    async def graph_clusters(
        self,
        info: Info,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> GraphClusters:
        moment: Brain | None = await moment_at(info, as_of)
        return await in_thread(clusters_of, info.context.brain if moment is None else moment)
