"""Who one MCP request acts for: the agent and the actor recorded in history.

Over stdio the process was started for one agent (`--agent`), by whoever can run it: the
open actor acting as that agent. Over HTTP the bearer token decides, exactly as for GraphQL
and REST: an agent's token is that agent; an admin (or an open server) names the agent with
`?agent=NAME` on the endpoint URL. An agent's token with another agent's name is refused by
the memory tool itself (`forbidden`), so every front end says the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brain.api.http.auth import Principal
from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.service import MemoryService

VIA = "mcp"
AGENT_PARAM = "agent"


@dataclass(frozen=True, slots=True)
class Caller:
    agent: str | None
    actor: Actor

    def can_see(self, scope: str) -> bool:
        """Notes an agent may know exist: its own and the shared ones (admins act as the agent)."""
        return self.agent is not None and Actor.of_agent(self.agent).can_see(scope) and (
            self.actor.can_see(scope)
        )

    def resolve(self, service: MemoryService) -> str:
        """The agent's name, or the refusal the memory tool would give (no-agent, unknown, forbidden)."""
        if self.actor.kind == "agent" and self.agent is not None and self.actor.agent != self.agent:
            raise Refusal(
                RefusalCode.FORBIDDEN,
                f"these credentials belong to agent `{self.actor.agent}`: it can use only its own memory",
                Call("view", {"path": "/memories"}),
            )
        return service.agent_state(self.agent).name


def stdio_caller(agent: str) -> Caller:
    return Caller(agent, Actor.open(VIA))


def http_caller(request: Any) -> Caller:
    """The caller of one streamable-HTTP request (a starlette Request the SDK hands over)."""
    principal: Principal | None = getattr(getattr(request, "state", None), "principal", None)
    named = request.query_params.get(AGENT_PARAM) if request is not None else None
    named = named.strip() if isinstance(named, str) and named.strip() else None
    if principal is None or principal.name == "anonymous":
        return Caller(named, Actor.open(VIA))
    if principal.agent is not None:
        return Caller(named or principal.agent, Actor.of_agent(principal.agent, VIA))
    return Caller(named, Actor.admin(VIA))
