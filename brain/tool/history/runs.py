"""A run's id: every change one `brain maintain --apply` or consolidation run makes carries it.

The history records each change of a run with the run's id (`run` on the record, from the
actor: brain.tool.access.Actor.in_run), and the run's own report record carries it too, so
`brain diff`, GraphQL `changes` and the history answer "which run did this" exactly, and a
run's changes can be found together. Time first, so ids sort as runs started; a random tail,
so two runs started in the same second (two scopes, two processes) never share one.
"""

from __future__ import annotations

import datetime as dt
import secrets


def new_run_id(kind: str, now: float) -> str:
    """`maintain-20261206T084512Z-3f2a9c`: the kind of run, when it started (UTC), a tail."""
    stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{kind}-{stamp}-{secrets.token_hex(3)}"
