"""Which links a whole-workspace drawing shows: the graph's backbone.

At 10,000 notes the overview has some 64,000 edges; a drawing of all of them is a hairball that
costs seconds to send, parse and draw. So past a budget the overview keeps every problem link
(they must stand out) and the resolved links between the best-connected nodes, and no
REMEMBERS edges (the drawing's clusters already show which scope a note is in). Every node's
degree is over all edges, so a hub is drawn as a hub whatever links are kept.

This rule was the web UI's (`overviewEdges` in web/src/graphmodel.ts) and moved here so the
server sends only what is drawn; tests/fixtures/overview-backbone.json holds the old client's
answers for a fixed graph, which this must match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brain.model import LinkStatus

# Links a drawing shows by default: past this many, the drawing costs seconds and shows nothing.
OVERVIEW_EDGE_BUDGET = 4000
# The most an `edgeBudget` may ask for; the whole graph is there without one.
MAX_OVERVIEW_EDGE_BUDGET = 100_000


@dataclass(frozen=True, slots=True)
class Backbone:
    """The edges kept (indexes in the graph's edge order, ascending), every node's degree over
    all edges but self-links, and how many such edges there are."""

    kept: list[int]
    degree: list[int]
    total: int


def overview_backbone(
    sources: Sequence[int], targets: Sequence[int], statuses: Sequence[LinkStatus | None],
    nodes: int, budget: int | None = OVERVIEW_EDGE_BUDGET,
) -> Backbone:
    """The edges to draw: all but self-links up to `budget` (None: no limit); past it, every
    problem link, then the resolved links with the most-connected ends (degree of source plus
    degree of target; ties keep the earlier edge), up to the budget, and no REMEMBERS edges
    (status None). Problem links are kept even past the budget."""
    degree = [0] * nodes
    candidates: list[int] = []
    for i, (s, t) in enumerate(zip(sources, targets, strict=True)):
        if s == t:
            continue
        degree[s] += 1
        degree[t] += 1
        candidates.append(i)
    if budget is None or len(candidates) <= budget:
        return Backbone(kept=candidates, degree=degree, total=len(candidates))
    kept: list[int] = []
    links: list[int] = []
    for i in candidates:
        status = statuses[i]
        if status is None:
            continue
        (links if status is LinkStatus.RESOLVED else kept).append(i)
    # Stable sort over ascending indexes: equal weights keep the earlier edge first.
    links.sort(key=lambda i: -(degree[sources[i]] + degree[targets[i]]))
    kept.extend(links[: max(0, budget - len(kept))])
    kept.sort()
    return Backbone(kept=kept, degree=degree, total=len(candidates))
