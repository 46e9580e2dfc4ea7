"""Who is calling: an agent (its own scope and shared), an admin, or anyone (no auth set up).

The HTTP and GraphQL front ends turn their principal into an `Actor`; the service decides
with it. Another agent's private scope is invisible to an agent, not merely read-only:
every refusal about it reads exactly like the one for a scope that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from brain.model import SHARED_SCOPE
from brain.store.visibility import EVERYTHING, Reach

if TYPE_CHECKING:
    from brain.tool.history.log import History


@dataclass(frozen=True, slots=True)
class Actor:
    kind: str  # "agent" | "admin" | "open"
    agent: str | None = None
    via: str = "python"  # "graphql" | "rest" | "cli" | "python": recorded in the history
    # Recorded with each change when set (brain/tool/history/log.py): "ui" for the web UI's
    # edits, and the id of the maintenance or consolidation run a change belongs to.
    origin: str | None = None
    run: str | None = None

    @classmethod
    def of_agent(cls, name: str, via: str = "python") -> Actor:
        return cls("agent", name, via)

    @classmethod
    def admin(cls, via: str = "python") -> Actor:
        return cls("admin", None, via)

    @classmethod
    def open(cls, via: str = "python") -> Actor:
        """No authentication configured: a trusted local setup, everything is reachable."""
        return cls("open", None, via)

    @property
    def label(self) -> str:
        if self.kind == "agent":
            return f"agent:{self.agent}"
        return "admin" if self.kind == "admin" else "anonymous"

    def can_see(self, scope: str) -> bool:
        if self.kind != "agent":
            return True
        return scope in (SHARED_SCOPE, self.agent)

    @property
    def reach(self) -> Reach:
        """What the graph's answers to this actor may show (brain/store/visibility.py)."""
        return Reach.of_agent(self.agent) if self.kind == "agent" and self.agent else EVERYTHING

    def acting_as(self, agent: str) -> Actor:
        """The actor for a tool call on behalf of `agent` (admins may act as any agent)."""
        return replace(self, kind="agent", agent=agent)

    def in_run(self, run: str) -> Actor:
        """The same actor, its changes recorded as part of run `run` (a maintenance or
        consolidation run's id, brain.tool.history.runs)."""
        return replace(self, run=run)


def visible_history(
    history: History, actor: Actor, agent: str | None, scope: str | None, path: str | None,
    before: int | None, limit: int,
) -> list[Any]:
    """One more record than `limit` (to tell whether there are more), only those whose
    every scope the actor can see."""
    out: list[Any] = []
    cursor = before
    while len(out) <= limit:
        page = history.records(
            agent=agent, scope=scope, path=path, before=cursor, limit=max(limit + 1, 50)
        )
        if not page:
            break
        out.extend(
            r for r in page if actor.can_see(r.scope) and (r.new_scope is None or actor.can_see(r.new_scope))
        )
        cursor = page[-1].id
    return out[: limit + 1]
