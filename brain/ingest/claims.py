"""Which file defines each node id, when several do (`x.json` and `x.yaml` both define workflow
`x`): the first in sorted order wins, so the graph never depends on the order of syncs.
Kept apart from brain/ingest/ingester.py, which calls it before anything is read."""

from __future__ import annotations

from sys import intern
from typing import TYPE_CHECKING

from brain.ingest.state import defined_id, duplicate_problem
from brain.workspace import FileStat

if TYPE_CHECKING:
    from brain.ingest.ingester import Ingester


def claim(ingester: Ingester, stats: dict[str, FileStat], gone: set[str]) -> None:
    """Update which files define each node id, before anything is read.

    A file that became a symlink no longer defines anything (it joins `gone`). When
    the winning file of an id changes, the new winner joins `stats` and is read again,
    and the old one, if still there, is forgotten so it is read when it wins back.
    """
    if not ingester.files and not ingester.claims:
        _first_claims(ingester, stats, gone)
        return
    winners: dict[str, str | None] = {}
    files = ingester.files
    for rel, st in stats.items():
        known = files.get(rel)
        unchanged = known is not None and (known.size, known.mtime_ns) == (st.size, st.mtime_ns)
        if unchanged and not st.is_link:
            continue  # claimed when it was read, and nothing about it changed (a rescan)
        node_id = defined_id(ingester.layout.classify(rel))
        if node_id is None:
            continue
        node_id = intern(node_id)  # the store's copy of the id, not another
        owners = ingester.claims.get(node_id, ())
        winners.setdefault(node_id, min(owners) if owners else None)
        if st.is_link:
            ingester.claims[node_id] = _without(owners, rel)
            gone.add(rel)
        else:
            ingester.claims[node_id] = _with(owners, rel)
    for rel in gone:
        node_id = defined_id(ingester.layout.classify(rel))
        held = ingester.claims.get(node_id) if node_id is not None else None
        if node_id is None or held is None:
            continue
        winners.setdefault(node_id, min(held) if held else None)
        ingester.claims[node_id] = _without(held, rel)
    for node_id, before in winners.items():
        owners = ingester.claims.get(node_id, ())
        if not owners:
            ingester.claims.pop(node_id, None)
            continue
        winner = min(owners)
        if before is not None and before != winner:
            ingester.files.pop(before, None)
            if before in owners:
                ingester.file_problems[before] = duplicate_problem(before, node_id, winner)
            if winner not in stats:
                found, _ = ingester._stat_paths([winner])
                stats.update(found)
                ingester.files.pop(winner, None)
        for loser in owners:
            if loser != winner and loser not in stats:
                ingester.file_problems[loser] = duplicate_problem(loser, node_id, winner)


def _first_claims(ingester: Ingester, stats: dict[str, FileStat], gone: set[str]) -> None:
    """`claim` where nothing was claimed before (a first sync): no winner changes, so only
    the claims are made (a third of the time, before the first note can be sent to a helper)."""
    classify, claims = ingester.layout.classify, ingester.claims
    for rel, st in stats.items():
        node_id = defined_id(classify(rel))
        if node_id is None:
            continue
        if st.is_link:
            gone.add(rel)
            continue
        node_id = intern(node_id)  # the store's copy of the id, not another
        owners = claims.get(node_id)
        claims[node_id] = (rel,) if owners is None else _with(owners, rel)


def _with(owners: tuple[str, ...], rel: str) -> tuple[str, ...]:
    return owners if rel in owners else tuple(sorted((*owners, rel)))


def _without(owners: tuple[str, ...], rel: str) -> tuple[str, ...]:
    return tuple(owner for owner in owners if owner != rel) if rel in owners else owners
