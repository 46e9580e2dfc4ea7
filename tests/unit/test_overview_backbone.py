"""The overview's backbone (brain/service/overview.py): a table of small graphs, and the old web UI's
own answers for fixed graphs (tests/fixtures/overview-backbone.json, written by the client's
`overviewEdges` before the rule moved to the server) so the drawing shows the same links."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain.model import LinkStatus
from brain.service.overview import OVERVIEW_EDGE_BUDGET, overview_backbone

R, B, A, M = LinkStatus.RESOLVED, LinkStatus.BROKEN, LinkStatus.AMBIGUOUS, LinkStatus.MISSING_ANCHOR
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "overview-backbone.json"

# Node 0 is a hub linked from 1..5; 6 -> 7 is a lone link; 8 -> 9 is broken; 0 owns 6 (REMEMBERS).
HUB = ([1, 2, 3, 4, 5, 6, 8, 0], [0, 0, 0, 0, 0, 7, 9, 6], [R, R, R, R, R, R, B, None])


@pytest.mark.parametrize(("graph", "nodes", "budget", "kept", "total"), [
    pytest.param(([0, 1, 2], [1, 2, 2], [R, None, R]), 3, 10, [0, 1], 2, id="self-links never kept"),
    pytest.param(HUB, 10, None, [0, 1, 2, 3, 4, 5, 6, 7], 8, id="no budget: every link"),
    pytest.param(HUB, 10, 8, [0, 1, 2, 3, 4, 5, 6, 7], 8, id="at the budget: REMEMBERS too"),
    pytest.param(HUB, 10, 3, [0, 1, 6], 8, id="past it: the problem link, then the hub's"),
    pytest.param(HUB, 10, 7, [0, 1, 2, 3, 4, 5, 6], 8, id="past it: no REMEMBERS"),
    pytest.param(HUB, 10, 0, [6], 8, id="problem links past a zero budget"),
    pytest.param(([0, 1, 2, 3], [1, 2, 3, 0], [A, M, B, A]), 4, 1, [0, 1, 2, 3], 4,
                 id="every problem link past the budget"),
    pytest.param(([0, 2, 4, 6, 0], [1, 3, 5, 7, 1]), 8, 2, [0, 4], 5, id="the best-connected pair"),
    pytest.param(([0, 2, 4, 6], [1, 3, 5, 7]), 8, 2, [0, 1], 4, id="ties: the earlier edges"),
])
def test_backbone(
    graph: tuple[Any, ...], nodes: int, budget: int | None, kept: list[int], total: int
) -> None:
    sources, targets = graph[0], graph[1]
    statuses = graph[2] if len(graph) > 2 else [R] * len(sources)
    backbone = overview_backbone(sources, targets, statuses, nodes, budget)
    assert backbone.kept == kept
    assert backbone.total == total


def test_degree_counts_every_link_whatever_is_kept() -> None:
    backbone = overview_backbone(*HUB, 10, 3)
    assert backbone.degree == [6, 1, 1, 1, 1, 1, 2, 1, 1, 1]
    assert backbone.degree == overview_backbone(*HUB, 10, None).degree


def test_the_default_budget_is_the_web_uis() -> None:
    assert OVERVIEW_EDGE_BUDGET == 4000


def cases() -> list[Any]:
    out = []
    for case in json.loads(FIXTURE.read_text())["cases"]:
        for expected in case["expected"]:
            out.append(pytest.param(case, expected, id=f"{case['name']}, budget {expected['budget']}"))
    return out


@pytest.mark.parametrize(("case", "expected"), cases())
def test_same_links_as_the_old_web_ui(case: dict[str, Any], expected: dict[str, Any]) -> None:
    statuses = [None if s is None else LinkStatus(s) for s in case["status"]]
    backbone = overview_backbone(case["source"], case["target"], statuses, case["nodes"], expected["budget"])
    assert backbone.kept == expected["drawn"]
    assert backbone.degree == expected["degree"]
    assert backbone.total == expected["total"]
