"""The rest of a dashboard's first question kept in the tally: hubs, most wanted and the
head of each paged list, so a process that starts answers all of memory health without
counting the graph (tally.py keeps the counts).

Hubs, most wanted and the lists are sorted sets, not counts: no small summary of the counters
answers every caller's top N (an agent's in-degree is a sum over the source keys it sees).
But the callers are few: an admin, and one reach per agent (`Reach.of_agent`: its scope and
shared). So the writer stores, with the counts, the answers themselves, made by the same
counters' methods: per reach it stores (the admin's, and each private scope's with the shared
scope, at most REACHES) and per scope filter (none, and each scope in view), the top
MAX_TOP hubs and most wanted and the first PAGE keys of each list (the stale list without a
cutoff: a caller's cutoff cuts it). A question is answered from them when they settle it:
its reach is one stored (its scopes as far as the graph holds them: a reach's scopes no note
or link names change nothing), its top within what was stored, its page within the stored
head or the head the whole list; anything else is the counters' (counted as before). An
entry is bounded (a dashboard's page is 20 of PAGE), so a stored answer costs a few KB.

Ids are stored once in a table (a shared hub is in every reach's answers). Like the counts,
what is read is checked: a garbled entry makes the whole tally ignored (tally.py `parse`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from brain.model import SHARED_SCOPE
from brain.store.health import MAX_PAGE, MAX_TOP, HealthAsk, HealthList, PageKey
from brain.store.health_counts import HealthIndex, Scopes
from brain.store.health_reach import MAX_REACHES
from brain.store.visibility import Reach

PAGE = MAX_PAGE + 1  # the service asks a page and one more (service/health.py `page_of`)
# Agents' reaches stored: the writer keeps each one's sums (health_reach.py), leaving room
# for the reaches its own callers ask about.
REACHES = MAX_REACHES - 4
LISTS = (HealthList.ORPHANS, HealthList.STALE, HealthList.WITHOUT_DESCRIPTION, HealthList.WITHOUT_TYPE)

Ranked = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Stored:
    """One (reach, scope filter)'s answers: whole if shorter than what was asked for."""

    hubs: Ranked
    wanted: Ranked
    lists: tuple[tuple[PageKey, ...], ...]  # in LISTS order


@dataclass(frozen=True, slots=True)
class Answers:
    vis: frozenset[str]  # every private scope a note or link of the graph names
    stored: dict[tuple[Scopes, str | None], Stored]


def vis_keys(index: HealthIndex) -> frozenset[str]:
    """The view keys the counters hold: a reach's scopes outside them change no answer."""
    found: set[str] = {vis for _, vis in index.groups if vis is not None}
    found.update(vis for vis in index.columns if vis is not None)
    for _, svis, _, hidden in index.links:
        if svis is not None:
            found.add(svis)
        found.update(hidden)
    for group in index.groups.values():
        for scopes in group.rescued.values():
            found.update(scopes)
    return frozenset(found)


def reaches_of(vis: frozenset[str]) -> list[Scopes]:
    """The reaches stored: the admin's, then each private scope's with shared (an agent's)."""
    found: list[Scopes] = [None]
    agents = sorted(vis - {SHARED_SCOPE})
    if len(agents) <= REACHES:
        found.extend(frozenset({agent, SHARED_SCOPE}) & vis for agent in agents)
    found.append(frozenset({SHARED_SCOPE}) & vis)  # an agent without a note of its own
    found.append(frozenset())
    return list(dict.fromkeys(found))


def normal(scopes: Scopes, vis: frozenset[str]) -> Scopes:
    return None if scopes is None else scopes & vis


def answers_of(index: HealthIndex) -> dict[str, Any]:
    """Under the counters' lock, in step: the answers to store, as JSON values."""
    vis = vis_keys(index)
    ids: dict[str, int] = {}

    def at(node_id: str) -> int:
        return ids.setdefault(node_id, len(ids))

    def ranked(found: Iterable[tuple[str, int]]) -> list[int]:
        return [x for node_id, n in found for x in (at(node_id), n)]

    entries: list[list[Any]] = []
    every = sorted({scope for (scope, _), g in index.groups.items() if g.notes})
    for scopes in reaches_of(vis):
        in_view = {scope for (scope, gvis), g in index.groups.items()
                   if g.notes and (gvis is None or scopes is None or gvis in scopes)}
        for scope in (None, *every):
            ask = HealthAsk(Reach(scopes), scope, math.inf)
            lists: list[list[Any]] = []
            if scope is not None and scope not in in_view:
                # Another agent's scope: no note of it in view, so no hub and no list entry
                # (the counters would walk every hub to find none).
                entries.append([sorted(scopes or ()), scope, [], ranked(index.most_wanted(ask, MAX_TOP)),
                                [[] for _ in LISTS]])
                continue
            for which in LISTS:
                keys = index.page(ask, which, None, PAGE)
                if which is HealthList.STALE:
                    lists.append([x for t, node_id in keys for x in (at(node_id), t)])
                else:
                    lists.append([at(node_id) for _, node_id in keys])
            entries.append([None if scopes is None else sorted(scopes), scope,
                            ranked(index.hubs(ask, MAX_TOP)), ranked(index.most_wanted(ask, MAX_TOP)), lists])
    return {"vis": sorted(vis), "ids": list(ids), "entries": entries}


def _int(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("count")
    return value


def _pairs(flat: object, ids: list[str], second: type) -> list[tuple[str, Any]]:
    if not isinstance(flat, list) or len(flat) % 2:
        raise ValueError("pairs")
    out = []
    for i in range(0, len(flat), 2):
        key, value = flat[i], flat[i + 1]
        if type(key) is not int or not 0 <= key < len(ids):
            raise ValueError("id")
        if second is int:
            value = _int(value)
            if not value:
                raise ValueError("zero")
        elif type(value) not in (int, float) or not math.isfinite(value):
            raise ValueError("time")
        out.append((ids[key], float(value) if second is float else value))
    return out


def _ordered(found: list[Any]) -> None:
    if any(a >= b for a, b in pairwise(found)):
        raise ValueError("order")


def decode(raw: object) -> Answers:
    """The stored answers, checked (ValueError/TypeError/KeyError if garbled)."""
    if not isinstance(raw, dict):
        raise ValueError("answers")
    vis_raw, ids, entries = raw["vis"], raw["ids"], raw["entries"]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or not isinstance(entries, list):
        raise ValueError("ids")
    if not isinstance(vis_raw, list) or not all(isinstance(v, str) for v in vis_raw):
        raise ValueError("vis")
    stored: dict[tuple[Scopes, str | None], Stored] = {}
    for entry in entries:
        scopes_raw, scope, hubs, wanted, lists = entry
        if scopes_raw is None:
            scopes: Scopes = None
        elif isinstance(scopes_raw, list) and all(isinstance(s, str) for s in scopes_raw):
            scopes = frozenset(scopes_raw)
        else:
            raise ValueError("scopes")
        if scope is not None and not isinstance(scope, str):
            raise ValueError("scope")
        hub_list = _pairs(hubs, ids, int)
        wanted_list = _pairs(wanted, ids, int)
        for ranked in (hub_list, wanted_list):
            _ordered([(-n, node_id) for node_id, n in ranked])
        if not isinstance(lists, list) or len(lists) != len(LISTS):
            raise ValueError("lists")
        keyed: list[tuple[PageKey, ...]] = []
        for which, flat in zip(LISTS, lists, strict=True):
            if which is HealthList.STALE:
                keys = [(t, node_id) for node_id, t in _pairs(flat, ids, float)]
            else:
                if not isinstance(flat, list) or not all(type(i) is int and 0 <= i < len(ids) for i in flat):
                    raise ValueError("list")
                keys = [(0.0, ids[i]) for i in flat]
            _ordered(keys)
            keyed.append(tuple(keys))
        stored[(scopes, scope)] = Stored(tuple(hub_list), tuple(wanted_list), tuple(keyed))
    return Answers(frozenset(vis_raw), stored)


def _stored(answers: Answers, ask: HealthAsk) -> Stored | None:
    return answers.stored.get((normal(ask.reach.scopes, answers.vis), ask.scope))


def hubs(answers: Answers, ask: HealthAsk, top: int) -> list[tuple[str, int]] | None:
    """The caller's hubs if the stored answer settles them, else None (the counters')."""
    found = _stored(answers, ask)
    return None if found is None else _top(found.hubs, top)


def wanted(answers: Answers, ask: HealthAsk, top: int) -> list[tuple[str, int]] | None:
    found = _stored(answers, ask)
    return None if found is None else _top(found.wanted, top)


def _top(found: Ranked, top: int) -> list[tuple[str, int]] | None:
    if top <= len(found) or len(found) < MAX_TOP:  # within what was stored, or all there is
        return list(found[: max(top, 0)])
    return None


def page(answers: Answers, ask: HealthAsk, which: HealthList, after: PageKey | None,
         limit: int) -> list[PageKey] | None:
    """The caller's page if the stored head settles it (HealthIndex.page), else None."""
    found = _stored(answers, ask)
    if found is None:
        return None
    keys = found.lists[LISTS.index(which)]
    start = 0 if after is None else bisect.bisect_right(keys, after)
    out: list[PageKey] = []
    for key in keys[start:]:
        if len(out) >= limit or (which is HealthList.STALE and key[0] >= ask.stale_before):
            return out
        out.append(key)
    return out if len(out) >= limit or len(keys) < PAGE else None
