"""Whole-graph views: counts, the link-integrity report, and neighbourhoods for graph views."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import strawberry

from brain import model
from brain.api.graph.links import Link
from brain.api.graph.nodes import Node, Unresolved, graph_node
from brain.api.graphql.enums import EdgeType, LinkStatus, Severity
from brain.api.graphql.fields import field

if TYPE_CHECKING:
    from brain.service.brain import Brain


@strawberry.type
class Stats:
    agents: int
    memories: int
    links: int
    broken: int
    ambiguous: int
    missing_anchor: int
    unresolved: int
    workflows: int
    chats: int
    work_items: int

    @classmethod
    def of(cls, stats: model.Stats) -> Stats:
        return cls(
            agents=stats.agents, memories=stats.memories, links=stats.links, broken=stats.broken,
            ambiguous=stats.ambiguous, missing_anchor=stats.missing_anchor,
            unresolved=stats.unresolved, workflows=stats.workflows, chats=stats.chats,
            work_items=stats.work_items,
        )


@strawberry.type
class StatusCount:
    status: LinkStatus
    count: int


@strawberry.type
class CodeCount:
    code: str
    severity: Severity
    count: int


@strawberry.type(description="A missing target and how many links wait for it.")
class WantedTarget:
    target: Unresolved
    count: int = strawberry.field(description="Broken links that ask for it.")


@strawberry.type(description="Link integrity at a glance: what `brain check` reports, counted.")
class LinkReport:
    total: int = strawberry.field(description="Every wikilink in the graph.")
    by_status: list[StatusCount] = strawberry.field(description="Every status, zeros included.")
    by_code: list[CodeCount] = strawberry.field(description="Problems by code, most frequent first.")
    errors: int
    warnings: int
    wanted: strawberry.Private[list[WantedTarget]]

    @field(description="The missing targets most links ask for, most wanted first.")
    def most_wanted(self, first: int = 10) -> list[WantedTarget]:
        return self.wanted[:first]

    @classmethod
    def of(cls, stats: model.Stats, problems: Sequence[model.Problem]) -> LinkReport:
        codes = Counter((p.code, p.severity.value) for p in problems)
        by_code, errors = _by_code(codes)
        # A broken link's problem names its target as written; the Unresolved node it
        # waits on is keyed by that text's name key (brain.resolve.parse_target).
        wanted = Counter(
            model.name_key(p.target) for p in problems if p.code == "broken-link" and p.target
        )
        ranked = sorted(wanted.items(), key=lambda kv: (-kv[1], kv[0]))
        return cls(
            total=stats.links,
            by_status=_by_status(stats),
            by_code=by_code,
            errors=errors,
            warnings=len(problems) - errors,
            wanted=[
                WantedTarget(target=Unresolved.of(model.UnresolvedNode(key)), count=n)
                for key, n in ranked
            ],
        )

    @classmethod
    def of_counts(cls, stats: model.Stats, codes: Mapping[tuple[str, str], int]) -> LinkReport:
        """The report of a moment from its kept counts (brain/tool/asof/counts/detail.py): problems by
        (code, severity value), no list of them, so no most wanted (the caller asks no more)."""
        by_code, errors = _by_code(codes)
        return cls(total=stats.links, by_status=_by_status(stats), by_code=by_code, errors=errors,
                   warnings=sum(codes.values()) - errors, wanted=[])


def _by_status(stats: model.Stats) -> list[StatusCount]:
    resolved = stats.links - stats.broken - stats.ambiguous - stats.missing_anchor
    return [
        StatusCount(status=LinkStatus.RESOLVED, count=resolved),
        StatusCount(status=LinkStatus.BROKEN, count=stats.broken),
        StatusCount(status=LinkStatus.AMBIGUOUS, count=stats.ambiguous),
        StatusCount(status=LinkStatus.MISSING_ANCHOR, count=stats.missing_anchor),
    ]


def _by_code(codes: Mapping[tuple[str, str], int]) -> tuple[list[CodeCount], int]:
    """Problems by code, most frequent first (ties by code, then severity), and the errors."""
    ranked = sorted(((code, severity, n) for (code, severity), n in codes.items() if n),
                    key=lambda c: (-c[2], c[0], c[1]))
    by_code = [CodeCount(code=code, severity=Severity(severity), count=n) for code, severity, n in ranked]
    return by_code, sum(n for (_, severity), n in codes.items() if severity == model.Severity.ERROR.value)


@strawberry.type(description="An edge of a graph view, between two nodes of the same view.")
class GraphEdge:
    type: EdgeType
    source: strawberry.ID
    target: strawberry.ID
    link: Link | None = strawberry.field(description="The wikilink, for LINKS_TO edges.")


@strawberry.type(description="Nodes around one node and the edges among them, for a graph view.")
class Subgraph:
    nodes: list[Node]
    edges: list[GraphEdge]
    truncated: bool = strawberry.field(description="The node limit cut the neighbourhood short.")


def subgraph_of(
    nodes: Sequence[model.Node], edges: Sequence[model.Edge], truncated: bool, moment: Brain | None = None,
) -> Subgraph:
    return Subgraph(
        nodes=[graph_node(n, moment) for n in nodes],
        edges=[
            GraphEdge(
                type=EdgeType(e.type),
                source=strawberry.ID(e.source),
                target=strawberry.ID(e.target),
                link=Link.of(e.link, moment) if e.link is not None else None,
            )
            for e in edges
        ],
        truncated=truncated,
    )
