"""Who may do what: a named agent for the tool, its own scope and shared for an agent's token,
everything for an admin; memory off means read-only; another agent's scope does not exist.
"""

from __future__ import annotations

import difflib
from typing import Protocol

from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.agents import AgentDirectory, AgentState
from brain.tool.calls.refusal import Call, Refusal, RefusalCode, shown
from brain.tool.files.names import NameProblem, check_agent_name


class Addressing(Protocol):
    """How one front end names files and the calls that read or list them."""

    def path(self, scope: str, name: str) -> str: ...
    def listing(self, scope: str) -> Call: ...
    def reading(self, scope: str, name: str) -> Call: ...


class Gate:
    def __init__(self, agents: AgentDirectory) -> None:
        self.agents = agents

    def agent_state(self, name: str | None) -> AgentState:
        """The named agent, or a refusal: no name, a name that cannot be an agent, or unknown."""
        if name is None or not name.strip():
            raise Refusal(
                RefusalCode.NO_AGENT,
                "the memory tool only works for a named agent: a chat with a bare model has no "
                "memory. Call it on behalf of an agent whose definition sets `memory: true`",
                self._example_agent_call(),
            )
        try:
            check_agent_name(name)
        except NameProblem as problem:
            raise Refusal(
                RefusalCode.UNKNOWN_AGENT if problem.code is RefusalCode.INVALID_PATH else problem.code,
                problem.reason, self._example_agent_call(problem.fixed),
            ) from None
        state = self.agents.get(name)
        if not state.exists:
            known = [a for a in self.agents.names() if self.agents.get(a).memory_enabled]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            raise Refusal(
                RefusalCode.UNKNOWN_AGENT,
                f"there is no agent `{shown(name)}` (no agents/{shown(name)}.md and no "
                f"memory/{shown(name)}/ folder)",
                self._example_agent_call(close[0] if close else None),
            )
        return state

    def _example_agent_call(self, agent: str | None = None) -> Call | None:
        if agent is None:
            enabled = [a for a in self.agents.all() if a.memory_enabled]
            agent = enabled[0].name if enabled else None
        return Call("view", {"agent": agent, "path": "/memories"}) if agent else None

    def authorize(self, actor: Actor, scope: str, addr: Addressing, *, write: bool) -> None:
        """Refuse unless `actor` may read (or write) `scope`; other agents' scopes do not exist."""
        if not actor.can_see(scope):
            raise self._missing_scope(scope, addr)
        if scope == SHARED_SCOPE:
            if write and actor.agent is not None:
                self._require_memory(actor.agent, addr)
            return
        state = self.agents.get(scope) if valid_agent(scope) else None
        if state is None or not state.exists:
            if write:
                raise Refusal(
                    RefusalCode.UNKNOWN_AGENT,
                    f"there is no agent `{shown(scope)}`: create agents/{shown(scope)}.md with "
                    f"`memory: true` before writing its notes",
                    addr.listing(SHARED_SCOPE),
                )
            raise self._missing_scope(scope, addr)
        if write and actor.agent is not None:
            self._require_memory(actor.agent, addr)

    def _require_memory(self, agent: str, addr: Addressing) -> None:
        state = self.agents.get(agent)
        if not state.memory_enabled:
            where = (
                f"agents/{agent}.md does not set `memory: true`" if state.defined
                else f"there is no agents/{agent}.md with `memory: true`"
            )
            raise Refusal(
                RefusalCode.MEMORY_OFF,
                f"memory is off for agent `{agent}` ({where}): it can read its notes but not "
                "change them. A person can turn memory on in the agent's definition",
                addr.listing(agent),
            )

    def _missing_scope(self, scope: str, addr: Addressing) -> Refusal:
        return Refusal(
            RefusalCode.NOT_FOUND, f"there is no memory scope `{shown(scope)}`",
            addr.listing(SHARED_SCOPE),
        )


def valid_agent(name: str) -> bool:
    try:
        check_agent_name(name)
    except NameProblem:
        return False
    return True
