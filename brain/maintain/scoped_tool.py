"""The memory tool confined to one scope: what maintenance and consolidation act through.

The six commands are the agent's own (`brain.tool.calls.commands`: the same checks, refusals,
atomic writes, secret refusal and history), but every path must name a file of the scope
being tidied. Consolidating an agent's private scope sees `/memories/<file>.md` only: a
path under `/memories/shared/` is refused before anything is read, whatever the command,
so a model cannot touch (or even read) the shared folder from a private run (seeds/000:
"Consolidating an agent's private scope leaves /memories/shared/ alone"). Consolidating
`shared` sees `/memories/shared/<file>.md` only.
"""

from __future__ import annotations

from collections.abc import Mapping

from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.calls.arguments import COMMANDS, check_arguments, json_args
from brain.tool.calls.commands import HANDLERS
from brain.tool.calls.context import CallContext, ToolResult
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.files.paths import ROOT, SHARED_ROOT, PathProblem, VirtualDir, parse_virtual, virtual_path
from brain.tool.files.requirements import Required
from brain.tool.prompt import index_lines
from brain.tool.service import MemoryService

_PATH_ARGS = ("path", "old_path", "new_path")


class ScopeAddressing:
    """Virtual paths of one scope: `/memories/x.md` (an agent's) or `/memories/shared/x.md`."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.root = SHARED_ROOT if scope == SHARED_SCOPE else ROOT

    def path(self, scope: str, name: str) -> str:
        return virtual_path(scope == SHARED_SCOPE, name)

    def listing(self, scope: str) -> Call:
        return Call("view", {"path": self.root})

    def reading(self, scope: str, name: str) -> Call:
        return Call("view", {"path": self.path(scope, name)})


class ScopedMemoryTool:
    """`run(payload)` like `MemoryTool.run`, but only inside `scope`. Never raises Refusal."""

    def __init__(self, service: MemoryService, scope: str, actor: Actor) -> None:
        self.service = service
        self.scope = scope
        self.actor = actor
        self.addr = ScopeAddressing(scope)
        # The tool's commands act "as" an agent; for shared that name only labels listings.
        self.agent = scope

    @property
    def root(self) -> str:
        return self.addr.root

    def path_of(self, name: str) -> str:
        return self.addr.path(self.scope, name)

    def run(
        self, payload: Mapping[str, object], *, expected_hash: str | None = None,
        requires: tuple[Required, ...] = (),
    ) -> ToolResult:
        command = payload.get("command")
        args = {k: v for k, v in payload.items() if k != "command"}
        try:
            if not isinstance(command, str) or command not in COMMANDS:
                raise Refusal(
                    RefusalCode.INVALID_ARGUMENT,
                    f"unknown command `{command}`: the memory tool's commands are " + ", ".join(COMMANDS),
                    Call("view", {"path": self.root}),
                )
            check_arguments(command, args)
            self._confine(command, args)
            call = Call(command, json_args(args))
            ctx = CallContext(self.service, self.actor, self.addr, call, expected_hash, self.agent, requires)
            if command == "view" and _is_dir(args.get("path"), self.agent):
                if args.get("view_range") is not None:
                    raise Refusal(
                        RefusalCode.INVALID_ARGUMENT,
                        f"view_range reads lines of a file, and {self.root} is a directory",
                        Call("view", {"path": self.root}),
                    )
                return ToolResult("view", self.listing(), path=self.root)
            return HANDLERS[command](ctx, args)
        except Refusal as refusal:
            return ToolResult(str(command), refusal=refusal)

    def listing(self) -> str:
        notes = self.service.notes(self.scope)
        now = self.service.clock()
        own, shared = ([], notes) if self.scope == SHARED_SCOPE else (notes, [])
        lines = index_lines(own, shared, now)
        head = f"{self.root}: {len(notes)} file{'' if len(notes) == 1 else 's'} of scope `{self.scope}`"
        return "\n".join([head + (" (path — description (age)):" if lines else "."), *lines])

    def _confine(self, command: str, args: dict[str, object]) -> None:
        """Refuse any path outside the scope, before the command reads or writes anything."""
        for arg in _PATH_ARGS:
            if arg not in args:
                continue
            raw = args[arg]
            try:
                target = parse_virtual(raw, self.agent)
            except PathProblem:
                continue  # the command itself refuses it, with the canonical path
            if target.shared == (self.scope == SHARED_SCOPE):
                continue
            name = getattr(target, "name", None)
            fixed = self.path_of(name) if name else self.root
            raise Refusal(
                RefusalCode.FORBIDDEN,
                f"`{raw}` is outside the scope being consolidated (`{self.scope}`): this run may "
                f"only read and change files under {self.root}/"
                + (", and /memories/shared/ is left alone" if self.scope != SHARED_SCOPE else ""),
                Call(command, json_args({**args, arg: fixed})) if name else Call("view", {"path": self.root}),
            )


def _is_dir(raw: object, agent: str) -> bool:
    try:
        return isinstance(parse_virtual(raw, agent), VirtualDir)
    except PathProblem:
        return False  # the view command refuses it, with the canonical path
