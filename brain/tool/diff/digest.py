"""The weekly digest of change a dashboard shows: per ISO week, how much changed and who did it.

GraphQL `changeDigest(weeks, agent)`, `GET /api/changes/digest?weeks=N` and
`brain diff WS --digest [--weeks N]` all answer `weekly_digest`: for each of the last `weeks`
ISO weeks (Monday 00:00 UTC to the next Monday; the current week ends now), the counts of the
week's diff (`changes_between`, so notes, links and problems are counted exactly as the diff
lists them) and the week's recorded changes by origin and by agent. An agent's token sees only
what its diff would (its own scope and shared). A week that starts before the oldest record
says so in `retention`, as the diff does.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from brain.tool.diff.changes import _at, _stamp, changes_between
from brain.tool.history.log import HistoryRecord, origin_of

MAX_WEEKS = 104  # two years of weeks: each is one diff, so the answer's cost is bounded
WEEK = 7 * 86_400.0


def week_starts(now: float, weeks: int) -> list[float]:
    """The starts (Monday 00:00 UTC) of the last `weeks` ISO weeks, oldest first, the current last."""
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    monday = dt.datetime.combine(today - dt.timedelta(days=today.weekday()), dt.time(), dt.UTC)
    return [(monday - dt.timedelta(weeks=n)).timestamp() for n in range(weeks - 1, -1, -1)]


def weekly_digest(
    records: Iterable[HistoryRecord], *, now: float, weeks: int, agent: str | None = None,
    visible: Callable[[str], bool] = lambda scope: True, **names: Any,
) -> list[dict[str, Any]]:
    """One entry a week, oldest first. `names`: changes_between's blobs, names, layout,
    scopes, parsed and name_visible, passed on."""
    records = list(records)
    out: list[dict[str, Any]] = []
    for start in week_starts(now, weeks):
        end = min(start + WEEK - 1e-6, now)  # weeks never share an instant
        found = changes_between(records, since=start, until=end, agent=agent, visible=visible, **names)
        origins, agents = _who(records, start, end, agent, visible)
        notes, links, problems = found["notes"], found["links"], found["problems"]
        retention = found["retention"]
        out.append({
            "start": found["since"], "end": _stamp(end).split(".")[0] + "Z",
            "notesAdded": len(notes["added"]), "notesRemoved": len(notes["removed"]),
            "notesChanged": len(notes["changed"]),
            "byOrigin": [{"origin": o, "count": n} for o, n in sorted(origins.items())],
            "byAgent": [{"agent": a, "count": n} for a, n in sorted(agents.items())],
            "linksBroken": len(links["broken"]), "linksFixed": len(links["fixed"]),
            "problemsNew": len(problems["new"]), "problemsGone": len(problems["gone"]),
            "retention": None if retention is None else retention["message"],
        })
    return out


def _who(
    records: list[HistoryRecord], start: float, end: float, agent: str | None,
    visible: Callable[[str], bool],
) -> tuple[Counter[str], Counter[str]]:
    """The week's recorded changes the caller may see, by origin and by agent (a change no
    agent made counts under its actor: `external`, `admin`, `anonymous`)."""
    low, high = _stamp(start), _stamp(end)
    origins: Counter[str] = Counter()
    agents: Counter[str] = Counter()
    for record in records:
        if record.report is not None or not low <= _at(record) <= high:
            continue  # a maintenance run's own report is not a change of a note
        if agent is not None and record.agent != agent:
            continue
        if not visible(record.scope) or (record.new_scope is not None and not visible(record.new_scope)):
            continue
        origins[origin_of(record)] += 1
        agents[record.agent or record.actor] += 1
    return origins, agents


def digest_text(weeks: list[dict[str, Any]]) -> str:
    """The digest as a person reads it: one line a week."""
    lines = []
    for week in weeks:
        origins = ", ".join(f"{o['origin']} {o['count']}" for o in week["byOrigin"]) or "no changes"
        notes = f"+{week['notesAdded']} -{week['notesRemoved']} ~{week['notesChanged']} notes"
        links = f"links {week['linksBroken']} broken, {week['linksFixed']} fixed"
        problems = f"problems {week['problemsNew']} new, {week['problemsGone']} gone"
        lines.append(f"{week['start'][:10]}  {notes}; {links}; {problems}; {origins}")
        if week["retention"]:
            lines.append(f"            retention: {week['retention']}")
    return "\n".join(lines)
