"""The service side of "as of": the moment's text, who may see what, refusals that say the fix.

Every front end (GraphQL `asOf:`, `brain check --as-of`, `brain show --as-of`, the MCP tool
`memory_as_of`, REST `?asOf=`) passes the caller and the moment's text here: ISO 8601 or an
age ("7d", "24h"), read by the same `parse_moment` as `brain diff`. The graph comes from
`Moments` (graph.py), one per served brain; an agent sees its own notes and the shared ones
of that moment, through the same `Reach` as today's graph.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from brain.model import MemoryNode, Problem, Stats
from brain.service.brain import Brain
from brain.store.base import MemoryFilter
from brain.store.visibility import Reach
from brain.tool.access import Actor
from brain.tool.asof.around import around_moment
from brain.tool.asof.counts.series import counts_at
from brain.tool.asof.delta import moment_index
from brain.tool.asof.graph import MomentBrain, MomentNotKept, Moments
from brain.tool.asof.note import note_moment
from brain.tool.asof.oldest import refusal
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.diff.changes import BadMoment, _iso, parse_moment
from brain.tool.history.log import HistoryRecord
from brain.workspace import read_bytes

if TYPE_CHECKING:
    from brain.tool.service import MemoryService

_MOMENTS: WeakKeyDictionary[Brain, Moments] = WeakKeyDictionary()
_LOCK = threading.Lock()

# A listing of the whole memory as of a moment: notes, at most this many (the rest counted).
MAX_LISTED = 1000


def moments_of(service: MemoryService) -> Moments:
    """The moments of the service's workspace: of its served brain, else of one read now."""
    with _LOCK:
        brain = service.brain
        if brain is None:
            brain = service.brain = Brain(service.root)
        found = _MOMENTS.get(brain)
        if found is None:
            found = _MOMENTS[brain] = Moments(brain, service.history, service.blobs, service.clock)
        return found


def moment_time(service: MemoryService, when: str) -> float:
    try:
        moment = parse_moment(when, service.clock())
        _iso(moment)  # a time a calendar can hold: "99999999999999d" is not one
    except BadMoment as exc:
        raise Refusal(RefusalCode.INVALID_ARGUMENT, str(exc)) from None
    except (ValueError, OverflowError, OSError):
        raise Refusal(RefusalCode.INVALID_ARGUMENT,
                      f"{when[:40]!r} is out of range: give a time after 1970 (ISO 8601) or an age "
                      "such as 7d") from None
    return moment


def refused(service: MemoryService, exc: MomentNotKept, moment: float) -> Refusal:
    """The refusal of a moment not shown: a future one is a bad argument; any other (before
    the history, past retention, a note's version gone) names the oldest moment that can be
    shown, in the same words on every front end (asof/oldest.py)."""
    if exc.future:
        return Refusal(RefusalCode.INVALID_ARGUMENT, str(exc))
    return refusal(moment, moments_of(service).history.all(), service.blobs)


def graph_at(service: MemoryService, when: str) -> MomentBrain:
    """The graph at `when`, or a refusal: not a time, in the future, or outside retention."""
    moment = moment_time(service, when)
    try:
        return moments_of(service).at(moment)
    except MomentNotKept as exc:
        raise refused(service, exc, moment) from None


def records_at(service: MemoryService, when: str) -> tuple[float, Moments, list[HistoryRecord], int]:
    """(the moment, the moments, the history's records, the index of the first record after
    the moment): what the kept counts are looked up by; refusals as `graph_at`'s."""
    moment = moment_time(service, when)
    moments = moments_of(service)
    records = moments.history.all()
    try:
        first = moment_index(records, moments.timeline, moment, moments.clock())
    except MomentNotKept as exc:
        raise refused(service, exc, moment) from None
    return moment, moments, records, first


def stats_as_of(service: MemoryService, when: str) -> tuple[float, Stats]:
    """The graph's counts at `when`: from the counts kept after each record (series.py), else
    from the whole moment (while those are being walked); refusals as `graph_at`'s."""
    moment, moments, records, first = records_at(service, when)
    found = counts_at(moments, first, records)
    if found is not None:
        return moment, found
    return moment, graph_at(service, when).stats()


def around_as_of(service: MemoryService, rel: str, when: str) -> MomentBrain:
    """A graph of `when` that answers for note `rel`, its links, backlinks and problems, as the
    whole moment's does (asof/around.py); refusals as `graph_at`'s."""
    moment = moment_time(service, when)
    rel = rel.strip().removeprefix("./").lstrip("/")
    try:
        return around_moment(moments_of(service), service.parsed, moment, rel)
    except MomentNotKept as exc:
        raise refused(service, exc, moment) from None


def _problem(p: Problem) -> dict[str, Any]:
    return {"path": p.path, "line": p.line, "column": p.column, "code": p.code,
            "severity": p.severity.value, "message": p.message, "fix": p.fix}


def note_as_of(service: MemoryService, actor: Actor, rel: str, when: str) -> dict[str, Any]:
    """One note as it was at `when`: its text, description, type, links with their statuses
    and problems; NOT_FOUND (saying so) when it did not exist then or is out of the caller's reach."""
    moment = moment_time(service, when)
    rel = rel.strip().removeprefix("./").lstrip("/")
    try:  # the note and the names it links to as they were: not the whole moment (asof/note.py)
        built = note_moment(moments_of(service), moment, rel)
    except MomentNotKept as exc:
        raise refused(service, exc, moment) from None
    return _note(built, built.at, actor, rel, built.ingester.overlays)


def note_now(service: MemoryService, actor: Actor, rel: str) -> dict[str, Any]:
    """`note_as_of` of now: the live graph (`brain show` without --as-of)."""
    brain = moments_of(service).live
    return _note(brain, service.clock(), actor, rel, brain.ingester.overlays)


def _note(brain: Brain, at: float, actor: Actor, rel: str, held: dict[str, bytes]) -> dict[str, Any]:
    rel = rel.strip().removeprefix("./").lstrip("/")
    reach = actor.reach
    node = brain.store.memory_by_path(rel)
    if node is None or not reach.sees(node.id):
        raise Refusal(RefusalCode.NOT_FOUND, f"{rel} did not exist at {_iso(at)} (or is not yours to see)")
    links = [reach.link(lk) for lk in brain.store.links_from([node.id]).get(node.id, [])]
    return {
        "at": _iso(at),
        "path": node.path,
        "scope": node.scope,
        "name": node.name,
        "description": node.description,
        "type": node.type,
        "hash": node.hash,
        "text": text_at(brain, node, held),
        "links": [{"line": lk.line, "column": lk.column, "text": lk.raw, "status": lk.status.value,
                   "targetId": lk.target_id} for lk in sorted(links, key=lambda lk: lk.ordinal)],
        "problems": [_problem(p) for p in brain.problems([node.path], reach)],
    }


def text_at(brain: Brain, node: MemoryNode, held: dict[str, bytes]) -> str:
    """The note's whole file at the moment: the history's version (`held`), or the disk's
    when it has not changed since."""
    raw = held.get(node.path)
    if raw is None:
        found = read_bytes(brain.root / node.path)
        raw = found if isinstance(found, bytes) else b""
    return raw.decode("utf-8", errors="replace")


def listing_as_of(service: MemoryService, actor: Actor, when: str) -> dict[str, Any]:
    """Every note the caller may see as it was at `when`: path, description, type, problems."""
    moment = graph_at(service, when)
    reach = actor.reach
    notes = [m for m in moment.store.list_memories(MemoryFilter(), bodies=False) if reach.sees(m.id)]
    counts: dict[str, int] = {}
    for problem in moment.problems(reach=reach):
        counts[problem.path] = counts.get(problem.path, 0) + 1
    return {
        "at": _iso(moment.at),
        "total": len(notes),
        "truncated": len(notes) > MAX_LISTED,
        "notes": [{"path": m.path, "description": m.description, "type": m.type,
                   "problems": counts.get(m.path, 0)} for m in notes[:MAX_LISTED]],
    }


def problems_as_of(service: MemoryService, actor: Actor, when: str) -> tuple[MomentBrain, list[Problem]]:
    """The problems `brain check` would have reported at `when`, as far as the caller sees."""
    moment = graph_at(service, when)
    reach: Reach = actor.reach
    return moment, moment.problems(reach=reach)
