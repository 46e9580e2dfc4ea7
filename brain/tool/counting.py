"""Memory-tool writes and refusals, counted where every front end's write lands.

REST, GraphQL, MCP, the CLI and the layouts' verbs all write through `MemoryService.write`,
`delete` and `rename` (latchai) or `AgentMemory.write` and `delete` (space, mindlink): the
decorator here counts on those, so no front end can forget to. A refusal is counted by its
code; a call refused before it reaches them (an unknown command, a malformed argument) is a
refusal of the protocol, counted by the front end's own request metrics.

Labels are closed sets (brain/metrics.py): the commands and front ends brain has, the codes
of `RefusalCode`; anything else is `other`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, Protocol, TypeVar

from brain.metrics import Metrics, bounded
from brain.tool.access import Actor
from brain.tool.calls.refusal import Refusal, RefusalCode

if TYPE_CHECKING:
    from brain.service.brain import Brain

#: The commands that write: the tool's, REST's `put`, the layouts' verbs.
WRITE_COMMANDS = frozenset({
    "create", "str_replace", "insert", "delete", "rename", "put", "write", "memory_write",
    "memory_delete",
})
#: The front ends an actor arrives through (brain/tool/access.py).
VIAS = frozenset({"graphql", "rest", "mcp", "cli", "python", "maintain", "consolidate"})
CODES = frozenset(code.value for code in RefusalCode)

P = ParamSpec("P")
R = TypeVar("R")


class HasBrain(Protocol):
    @property
    def counted_brain(self) -> Brain | None: ...


S = TypeVar("S", bound=HasBrain)


def counted_write(
    default_command: str,
) -> Callable[[Callable[Concatenate[S, Actor, P], R]], Callable[Concatenate[S, Actor, P], R]]:
    """Count the decorated write (its `command` keyword, else `default_command`) as done or refused."""

    def wrap(method: Callable[Concatenate[S, Actor, P], R]) -> Callable[Concatenate[S, Actor, P], R]:
        @functools.wraps(method)
        def run(self: S, actor: Actor, /, *args: P.args, **kwargs: P.kwargs) -> R:
            brain = self.counted_brain
            metrics: Metrics | None = None if brain is None else brain.metrics
            if metrics is None:
                return method(self, actor, *args, **kwargs)
            command = bounded(str(kwargs.get("command", default_command)), WRITE_COMMANDS)
            try:
                result = method(self, actor, *args, **kwargs)
            except Refusal as refusal:
                metrics.memory_refusals.labels(bounded(refusal.code.value, CODES), command).inc()
                raise
            metrics.memory_writes.labels(command, bounded(actor.via, VIAS)).inc()
            return result

        return run

    return wrap
