"""An agent's kept most wanted and hubs (brain/store/health_reach.py) equal the counters
built again from the same links, through the cases a random workspace rarely makes: one note
wanting a target both plainly (a broken link) and only as one agent sees it (a link into
another agent's private note), then losing one of the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brain.model import LinkStatus, unresolved_id
from brain.store.health import HealthAsk
from brain.store.health_counts import Facts, HealthIndex
from brain.store.visibility import EVERYTHING, Reach

N1, N2 = "memory:shared/n1", "memory:shared/n2"
SECRET = "memory:alice/secret"  # alice's private note: broken to bob
WANT = unresolved_id("secret")
NOTES = (N1, N2, SECRET)
ASKS = [HealthAsk(reach) for reach in (EVERYTHING, Reach.of_agent("alice"), Reach.of_agent("bob"))]


def row(target: str, status: LinkStatus, written: str = "") -> tuple[Any, ...]:
    return (None, None, target, status, None, written, None, None, None, None, None, None, ())


RESOLVED = row(SECRET, LinkStatus.RESOLVED, "secret")
BROKEN = row(WANT, LinkStatus.BROKEN, "secret")


def facts(node_id: str) -> Facts | None:
    return (node_id.split(":")[1].split("/")[0], 0.0, False, False) if node_id in NOTES else None


def answers(index: HealthIndex) -> list[object]:
    return [(index.most_wanted(ask, 5), index.hubs(ask, 5)) for ask in ASKS]


def test_kept_sums_follow_a_note_wanting_a_target_two_ways() -> None:
    links: dict[str, Sequence[tuple[Any, ...]]] = {N1: [RESOLVED, BROKEN], N2: [BROKEN]}
    kept = HealthIndex()
    kept.build(NOTES, links.items(), facts)
    answers(kept)  # the reaches' sums are built here and kept from now on
    steps: list[dict[str, Sequence[tuple[Any, ...]]]] = [
        {N1: [RESOLVED]},  # no longer plainly: still wanted by n1 as bob sees it
        {N2: []},
        {N1: [RESOLVED, BROKEN, BROKEN]},
        {N1: [BROKEN]},  # the private link goes: plainly still
        {N1: [RESOLVED, RESOLVED], N2: [RESOLVED]},
        {N1: []},
    ]
    for step in steps:
        touched = kept.begin(set(step), lambda s: links.get(s, []))  # the links before the step
        links.update(step)
        kept.finish(set(step), touched, lambda s: links.get(s, []), facts)
        again = HealthIndex()
        again.build(NOTES, links.items(), facts)
        assert answers(kept) == answers(again), step
