"""Memory health's counts kept in the database: a process that starts answers a dashboard's
counts from one small node instead of counting the whole graph first.

A process's counters (counters.py) are counted from the graph on its first question: at
100,000 notes that was 69-88 s under load, and building the counters alone costs 4.2 s of
CPU from rows already in memory (docs/neo4j.md), so no image of the counters' inputs read at
start can answer in milliseconds. What a dashboard shows at a glance, the counts per scope
(`HealthIndex.counts`), is a function of much less: per (scope, view key) group its notes,
notes without description or type, orphans, and the change times of the notes nothing in
their own view links to (the stale count's input), with, for the few of them another
private scope links to, which scopes; and the links counted by (scope, source key, status,
private scopes the status depends on). That is the tally. The process whose counters are
in step with the graph and which may write (the writer) stores it after it counted and
after each write it followed, tagged with the position it matches (the graph's id, its
change log's id and its write count, counters.py `Position`). Another process reads the
tag with the position in one query: equal, and the counts are answered from the tally
(kept decoded until the position moves); else the counters are counted as before.

The node is the database's, so it is untrusted input: a foreign or garbled one (another
version, a field of the wrong type, a tag that does not match) is ignored, never an error.
Change times are kept by the minute (the service asks with a cutoff on a minute, service/
health.py `health_ask`); a question with another cutoff is answered by the counters.
Version 2 adds the answers a count is not enough for (hubs, most wanted, the lists' heads:
tally_answers.py), so a whole dashboard is answered without counting.
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from neo4j import ManagedTransaction

from brain.model import LinkStatus
from brain.store.health import HealthAsk, ScopeHealth
from brain.store.health_counts import HealthIndex, in_view
from brain.store.neo4j.health import tally_answers

# The most a tally may hold: a few bytes per group and per minute an unlinked note changed
# in (bench/results/health_tally.json); a larger one is neither stored nor read.
MOST_CHARS = 16_000_000
LABEL = "BrainHealthTally"  # no documented query matches it (docs/cypher.md, issue 42 item 1)
VERSION = 2  # 2: with the answers of tally_answers.py (a version-1 tally is not read)

# The graph's position and the tally's tag, in one read; the payload only when asked.
READ_TAG = f"""
MATCH (w:BrainWorkspace {{key: 'brain'}})
OPTIONAL MATCH (h:{LABEL} {{key: 'brain'}})
RETURN w.graph AS graph, w.logId AS logId, w.seq AS seq, coalesce(w.writes, 0) AS writes,
       h.graph AS tallyGraph, h.logId AS tallyLog, h.writes AS tallyWrites, h.version AS version,
       CASE WHEN $payload AND h.payload IS :: STRING NOT NULL
            THEN CASE WHEN size(h.payload) <= $most THEN h.payload END END AS payload
"""
WRITE = f"""
MERGE (h:{LABEL} {{key: 'brain'}})
SET h.graph = $graph, h.logId = $logId, h.writes = $writes, h.version = $version, h.payload = $payload
"""

_STATUS = {status.value: status for status in LinkStatus}


@dataclass(frozen=True, slots=True)
class Minutes:
    """Change times by the minute: distinct minutes, sorted, and how many changed in or
    before each (stored as the gaps between minutes and the count in each: small numbers)."""

    minutes: tuple[int, ...]
    cumulative: tuple[int, ...]

    def before(self, minute: int) -> int:
        i = bisect.bisect_left(self.minutes, minute)
        return self.cumulative[i - 1] if i else 0


@dataclass(frozen=True, slots=True)
class TallyGroup:
    """One (scope, view key) group's part of the counts."""

    scope: str
    vis: str | None
    notes: int
    no_desc: int
    no_type: int
    orphans: int  # every orphan of the group, rescued or not
    rescued_orphans: tuple[tuple[frozenset[str], int], ...]  # by the scopes linking to them
    base: Minutes  # the notes nothing in their own view links to (`base0`)
    rescued_base: tuple[tuple[frozenset[str], Minutes], ...]  # of them, by the scopes linking


@dataclass(frozen=True, slots=True)
class Tally:
    groups: tuple[TallyGroup, ...]
    links: tuple[tuple[str, str | None, LinkStatus, frozenset[str], int], ...]
    answers: tally_answers.Answers  # hubs, most wanted, the lists' heads


def _minute(at: float) -> int:
    return int(at // 60)


def _encoded(times: Iterable[float]) -> list[list[int]]:
    by = Counter(_minute(at) for at in times)
    ordered = sorted(by)
    return [[m - p for p, m in zip([0, *ordered], ordered, strict=False)], [by[m] for m in ordered]]


def tally_of(index: HealthIndex) -> str:
    """The tally of counters in step with the graph, as the node's payload (JSON)."""
    groups = []
    for (scope, vis), group in sorted(index.groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        if not group.notes:
            continue
        rescued: dict[frozenset[str], list[str]] = {}
        for note_id, by in group.rescued.items():
            rescued.setdefault(by, []).append(note_id)
        orphaned = Counter(by for n, by in group.rescued.items() if n in group.orphans)
        groups.append([
            scope, vis, group.notes, len(group.no_desc), len(group.no_type), len(group.orphans),
            sorted([sorted(by), n] for by, n in orphaned.items()),
            _encoded(group.base0.values()),
            sorted([sorted(by), _encoded(group.base0[n] for n in ids)] for by, ids in rescued.items()),
        ])
    links = [[scope, svis, status.value, sorted(hidden), n]
             for (scope, svis, status, hidden), n in sorted(index.links.items(), key=repr) if n]
    answers = tally_answers.answers_of(index)
    return json.dumps({"v": VERSION, "groups": groups, "links": links, "answers": answers},
                      separators=(",", ":"))


def _str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _scopes(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise ValueError("scopes")
    return frozenset(value)


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("count")
    return value


def _minutes(value: object) -> Minutes:
    """Decoded and checked: gaps positive after the first, counts at least one."""
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError("minutes")
    gaps, counts = value
    if not isinstance(gaps, list) or not isinstance(counts, list) or len(gaps) != len(counts):
        raise ValueError("minutes")
    first_bad = bool(gaps) and (type(gaps[0]) is not int or gaps[0] < 0)
    if first_bad or not all(type(g) is int and g > 0 for g in gaps[1:]):
        raise ValueError("gaps")
    if not all(type(c) is int and c > 0 for c in counts):
        raise ValueError("counts")
    return Minutes(tuple(accumulate(gaps)), tuple(accumulate(counts)))


def parse(payload: object) -> Tally | None:
    """The tally in a node's payload, or None if it is not one this version wrote."""
    try:
        if not isinstance(payload, str):
            return None
        raw = json.loads(payload)
        if not isinstance(raw, dict) or raw.get("v") != VERSION:
            return None
        groups = []
        for g in raw["groups"]:
            scope, vis, notes, no_desc, no_type, orphans, rescued_orphans, base, rescued = g
            if not isinstance(scope, str) or not _str_or_none(vis):
                return None
            groups.append(TallyGroup(
                scope, vis, _count(notes), _count(no_desc), _count(no_type), _count(orphans),
                tuple((_scopes(by), _count(n)) for by, n in rescued_orphans), _minutes(base),
                tuple((_scopes(by), _minutes(m)) for by, m in rescued),
            ))
        links = []
        for scope, svis, status, hidden, n in raw["links"]:
            if not isinstance(scope, str) or not _str_or_none(svis) or status not in _STATUS:
                return None
            links.append((scope, svis, _STATUS[status], _scopes(hidden), _count(n)))
        return Tally(tuple(groups), tuple(links), tally_answers.decode(raw["answers"]))
    except (ValueError, TypeError, KeyError, RecursionError):
        return None


def counts(tally: Tally, ask: HealthAsk) -> list[ScopeHealth] | None:
    """`HealthIndex.counts` from the tally (None: a cutoff not on a minute, for the counters)."""
    if ask.stale_before % 60:
        return None
    cutoff = _minute(ask.stale_before)  # changed before the cutoff: in a minute before it
    scopes = ask.reach.scopes

    def excluded(by: frozenset[str]) -> bool:  # HealthIndex._Group.excluded: linked after all
        return scopes is None or not by.isdisjoint(scopes)

    rows: dict[str, Counter[str]] = {}
    for g in tally.groups:
        if not g.notes or not in_view(g.vis, scopes) or (ask.scope is not None and g.scope != ask.scope):
            continue
        row = rows.setdefault(g.scope, Counter())
        row["notes"] += g.notes
        row["orphans"] += g.orphans - sum(n for by, n in g.rescued_orphans if excluded(by))
        linked = sum(m.before(cutoff) for by, m in g.rescued_base if excluded(by))
        row["stale"] += g.base.before(cutoff) - linked
        row["without_description"] += g.no_desc
        row["without_type"] += g.no_type
    for scope, svis, status, hidden, n in tally.links:
        row_of = rows.get(scope)
        if not n or row_of is None or not in_view(svis, scopes):
            continue
        if hidden and scopes is not None and not hidden <= scopes:
            status = LinkStatus.BROKEN
        row_of["links"] += n
        if status is not LinkStatus.RESOLVED:
            row_of[status.name.lower()] += n
    return [ScopeHealth(scope, **row) for scope, row in sorted(rows.items())]


def tag_of(record: Any) -> tuple[object, object, object, object]:
    """The tally's tag as read (graph, log id, write count, version)."""
    return (record["tallyGraph"], record["tallyLog"], record["tallyWrites"], record["version"])


def write_tally(tx: ManagedTransaction, params: dict[str, Any]) -> None:
    """The tally's one idempotent statement (run again if its commit outcome was lost)."""
    tx.run(WRITE, params)
