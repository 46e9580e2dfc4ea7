"""An agent's `memoryHealth(asOf:)` counts from the kept detail, without the moment's graph.

An agent sees its own notes and the shared ones; a link into another agent's note is broken
to it, and a note only another agent's notes link to is an orphan to it (store/visibility.py,
store/health_counts.py). So its rows differ from the admin's, but only a little: the kept
detail holds, beside the admin's rows, each caller's rows as their difference from the
admin's (signed, zero rows left out), which moves only when a link crosses agents.

The callers: each agent with notes at the moment (a scope without a colon, not `shared`), and
"" for any other token (its reach holds no note's scope but `shared`: the view of
`Reach({shared})`). Which scopes a caller's rows may hold: the stranger's (""), whose
difference covers every admin scope (minus a whole row for a scope it does not see), so the
scopes everyone sees are its rows; an agent's are those and its own and `shared`. More agents
than `MAX_AGENTS` at a moment, or a caller seeing a scope outside that rule (never seen; a
layout's node kinds could), and the moment keeps no caller's rows: the whole moment answers.
The rows themselves are the walker's store's own `health_counts` for the caller's reach, the
question a whole moment answers (tests/tool/test_as_of_agents_kept.py compares them).
"""

from __future__ import annotations

from collections.abc import Mapping

from brain.model import SHARED_SCOPE
from brain.store.health import HealthAsk, ScopeHealth
from brain.store.visibility import Reach

ROW_FIELDS = ("notes", "links", "broken", "ambiguous", "missing_anchor", "orphans",
              "without_description", "without_type")
_NROW = len(ROW_FIELDS)
ZERO_ROW = (0,) * _NROW
STRANGER = ""  # a token with no notes at the moment
MAX_AGENTS = 64
# The moment keeps no caller's rows (too many agents, or a view outside the rule).
NOT_KEPT = ("\0", "")
_NOT_KEPT_ROW = (1, *ZERO_ROW[1:])

Row = tuple[int, ...]
Rows = Mapping[str, Row]
AgentKey = tuple[str, str]  # (caller, scope)


def row_of(health: ScopeHealth) -> Row:
    return tuple(getattr(health, f) for f in ROW_FIELDS)


def rows_of(store: object, reach: Reach) -> dict[str, Row]:
    """A caller's health rows as the store counts them, less `stale` (a question's own cutoff)."""
    counts = store.health_counts(HealthAsk(reach=reach))  # type: ignore[attr-defined]
    return {h.scope: row_of(h) for h in counts if h.notes}


def agents_at(admin: Rows) -> list[str]:
    """The agents with notes at the moment (their rows are kept by name)."""
    return sorted(s for s in admin if s != SHARED_SCOPE and ":" not in s)


def _minus(a: Row, b: Row) -> Row:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _plus(a: Row, b: Row) -> Row:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _view(caller: str, admin: Rows, everyone: set[str]) -> set[str]:
    """The scopes a caller's rows may hold."""
    if caller == STRANGER:
        return set(admin)
    return everyone | ({caller, SHARED_SCOPE} & set(admin))


def _everyone(admin: Rows, differences: Mapping[AgentKey, Row]) -> set[str]:
    """The scopes the stranger sees: their rows hold a note once its difference is added."""
    return {s for s, row in admin.items() if _plus(row, differences.get((STRANGER, s), ZERO_ROW))[0] > 0}


def caller_differences(store: object, admin: Rows) -> dict[AgentKey, Row]:
    """Each caller's rows less the admin's (see the module's docstring), from the store."""
    agents = agents_at(admin)
    if len(agents) > MAX_AGENTS:
        return {NOT_KEPT: _NOT_KEPT_ROW}
    out: dict[AgentKey, Row] = {}
    stranger = rows_of(store, Reach(frozenset({SHARED_SCOPE})))
    for scope, row in admin.items():
        if (found := _minus(stranger.get(scope, ZERO_ROW), row)) != ZERO_ROW:
            out[(STRANGER, scope)] = found
    if not set(stranger) <= set(admin):
        return {NOT_KEPT: _NOT_KEPT_ROW}
    everyone = _everyone(admin, out)
    for agent in agents:
        seen = rows_of(store, Reach.of_agent(agent))
        view = _view(agent, admin, everyone)
        if not set(seen) <= view:
            return {NOT_KEPT: _NOT_KEPT_ROW}
        for scope in view:
            if (found := _minus(seen.get(scope, ZERO_ROW), admin[scope])) != ZERO_ROW:
                out[(agent, scope)] = found
    return out


def caller_of(reach: Reach) -> str | None:
    """The caller whose kept rows answer `reach`, or None (not one agent's reach)."""
    if reach.scopes is None:
        return None
    others = reach.scopes - {SHARED_SCOPE}
    if not others:
        return STRANGER
    if len(others) != 1:
        return None
    (agent,) = others
    return agent


def caller_rows(
    admin: Rows, differences: Mapping[AgentKey, Row], reach: Reach, scope: str | None,
) -> list[ScopeHealth] | None:
    """The rows `health_counts(HealthAsk(reach, scope))` gives at the moment (no `stale`), or
    None when the moment does not keep them."""
    caller = caller_of(reach)
    if caller is None or NOT_KEPT in differences:
        return None
    if caller not in agents_at(admin):
        caller = STRANGER  # no notes then: sees what a token of no agent sees
    everyone = _everyone(admin, differences)
    rows: list[ScopeHealth] = []
    for name in sorted(_view(caller, admin, everyone)):
        row = _plus(admin[name], differences.get((caller, name), ZERO_ROW))
        if row[0] > 0 and scope in (None, name):
            rows.append(ScopeHealth(name, **dict(zip(ROW_FIELDS, row, strict=True))))
    return rows


__all__ = ["MAX_AGENTS", "NOT_KEPT", "ROW_FIELDS", "STRANGER", "ZERO_ROW", "caller_differences",
           "caller_of", "caller_rows", "rows_of"]
