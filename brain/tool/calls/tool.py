"""The memory tool: one tool, six commands, for a named agent (seeds/000, "The memory tool").

    view        a directory (the index, with ages) or one file with numbered lines
    create      write or overwrite a whole file
    str_replace edit in place: old_str must match exactly once; the splice is literal
    insert      add lines after insert_line (0 = top)
    delete      remove a file
    rename      move a file

Input is what a model sends (`{"command": "view", "path": "/memories"}`); the result is either
the output or a refusal that names the call that would have worked. `expected_hash` (the
sha256 of the file as last read) makes any write optimistic: it is refused if the file
changed in between, and the other edit survives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.calls.arguments import COMMANDS, check_arguments, json_args
from brain.tool.calls.commands import HANDLERS
from brain.tool.calls.context import CallContext, ToolResult
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.files.paths import ROOT
from brain.tool.service import MemoryService

__all__ = ["COMMANDS", "MemoryTool", "ToolAddressing", "ToolResult"]


class ToolAddressing:
    """Virtual paths as the agent sees them."""

    def __init__(self, agent: str) -> None:
        self.agent = agent

    def path(self, scope: str, name: str) -> str:
        return f"{ROOT}/{SHARED_SCOPE}/{name}" if scope == SHARED_SCOPE else f"{ROOT}/{name}"

    def listing(self, scope: str) -> Call:
        return Call("view", {"path": ROOT})

    def reading(self, scope: str, name: str) -> Call:
        return Call("view", {"path": self.path(scope, name)})


class MemoryTool:
    def __init__(self, service: MemoryService) -> None:
        self.service = service

    # ------------------------------------------------------------------ entry points

    def run(
        self, agent: str | None, payload: Mapping[str, object], *, actor: Actor | None = None,
        expected_hash: str | None = None,
    ) -> ToolResult:
        """One call as a model makes it: `{"command": ..., ...arguments}`. Never raises Refusal."""
        command = payload.get("command")
        args = {k: v for k, v in payload.items() if k != "command"}
        try:
            if not isinstance(command, str) or command not in COMMANDS:
                raise Refusal(
                    RefusalCode.INVALID_ARGUMENT,
                    f"unknown command `{command}`: the memory tool's commands are "
                    + ", ".join(COMMANDS),
                    Call("view", {"path": ROOT}),
                )
            check_arguments(command, args)
            return self._dispatch(command, agent, args, actor, expected_hash)
        except Refusal as refusal:
            return ToolResult(str(command), refusal=refusal)

    def view(
        self, agent: str | None, path: str, view_range: list[int] | None = None,
        *, actor: Actor | None = None,
    ) -> ToolResult:
        return self.run(agent, {"command": "view", "path": path, "view_range": view_range}, actor=actor)

    def create(
        self, agent: str | None, path: str, file_text: str, *, actor: Actor | None = None,
        expected_hash: str | None = None,
    ) -> ToolResult:
        payload = {"command": "create", "path": path, "file_text": file_text}
        return self.run(agent, payload, actor=actor, expected_hash=expected_hash)

    def str_replace(
        self, agent: str | None, path: str, old_str: str, new_str: str = "", *,
        actor: Actor | None = None, expected_hash: str | None = None,
    ) -> ToolResult:
        payload = {"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str}
        return self.run(agent, payload, actor=actor, expected_hash=expected_hash)

    def insert(
        self, agent: str | None, path: str, insert_line: int, insert_text: str, *,
        actor: Actor | None = None, expected_hash: str | None = None,
    ) -> ToolResult:
        payload: dict[str, object] = {
            "command": "insert", "path": path, "insert_line": insert_line, "insert_text": insert_text,
        }
        return self.run(agent, payload, actor=actor, expected_hash=expected_hash)

    def delete(
        self, agent: str | None, path: str, *, actor: Actor | None = None,
        expected_hash: str | None = None,
    ) -> ToolResult:
        payload = {"command": "delete", "path": path}
        return self.run(agent, payload, actor=actor, expected_hash=expected_hash)

    def rename(
        self, agent: str | None, old_path: str, new_path: str, *, actor: Actor | None = None,
        expected_hash: str | None = None,
    ) -> ToolResult:
        payload = {"command": "rename", "old_path": old_path, "new_path": new_path}
        return self.run(agent, payload, actor=actor, expected_hash=expected_hash)

    # ------------------------------------------------------------------ the commands

    def _dispatch(
        self, command: str, agent: str | None, args: dict[str, object], actor: Actor | None,
        expected: str | None,
    ) -> ToolResult:
        call = Call(command, json_args(args))
        if actor is not None and actor.kind == "agent" and agent is not None and actor.agent != agent:
            raise Refusal(
                RefusalCode.FORBIDDEN,
                f"these credentials belong to agent `{actor.agent}`: it can use only its own memory",
                Call(command, {**call.args, "agent": actor.agent}),
            )
        if agent is None and actor is not None and actor.kind == "agent":
            agent = actor.agent
        state = self.service.agent_state(agent)
        name = state.name
        who = (actor or Actor.open()).acting_as(name)
        addr = ToolAddressing(name)
        ctx = CallContext(self.service, who, addr, call, expected, name)
        handler: Callable[[CallContext, dict[str, object]], ToolResult] = HANDLERS[command]
        return handler(ctx, args)
