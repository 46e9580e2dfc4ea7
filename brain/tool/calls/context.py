"""One call in progress: its agent, addressing and arguments, and what every command needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.files.names import nearest_filename
from brain.tool.files.paths import ROOT, PathProblem, Target, VirtualDir, VirtualFile, parse_virtual
from brain.tool.files.requirements import Required
from brain.tool.gate import Addressing
from brain.tool.service import MemoryService, WriteOutcome


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What one call answered: `output` when it worked, `refusal` when it did not."""

    command: str
    output: str | None = None
    refusal: Refusal | None = None
    path: str | None = None
    hash: str | None = None
    previous_hash: str | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def text(self) -> str:
        """The tool result to hand back to the model."""
        if self.refusal is not None:
            return self.refusal.text()
        return self.output or ""


@dataclass(frozen=True, slots=True)
class CallContext:
    service: MemoryService
    actor: Actor
    addr: Addressing
    call: Call
    expected: str | None
    agent: str
    # Other files the change depends on, checked in the same locked step (maintain's kept copy).
    requires: tuple[Required, ...] = ()

    def target(self, arg: str = "path") -> Target:
        raw = self.call.args.get(arg)
        try:
            return parse_virtual(raw, self.agent)
        except PathProblem as problem:
            listing = Call("view", {"path": ROOT})
            fixed = self.call.with_args(**{arg: problem.fixed}) if problem.fixed else listing
            if problem.fixed and self._must_exist(arg) and not self._exists(problem.fixed):
                fixed = listing  # a corrected path to nothing would not work either
            raise Refusal(problem.code, problem.reason, fixed) from None

    def _must_exist(self, arg: str) -> bool:
        return self.call.command != "create" and arg != "new_path"

    def _exists(self, path: str) -> bool:
        target = parse_virtual(path, self.agent)
        if isinstance(target, VirtualDir):
            return True
        return self.service.exists(self.scope_of(target), target.name)

    def file(self, arg: str = "path") -> VirtualFile:
        target = self.target(arg)
        if isinstance(target, VirtualDir):
            raise Refusal(
                RefusalCode.IS_DIRECTORY,
                f"{target.path} is a directory, and {self.call.command} works on one file "
                f"({target.path}/<name>.md)",
                self._file_suggestion(arg, target),
            )
        return target

    def _file_suggestion(self, arg: str, folder: VirtualDir) -> Call:
        if self.call.command == "delete":
            return Call("view", {"path": folder.path})
        text = self.call.args.get("file_text")
        stem = nearest_filename(first_line(text)[:60]) if isinstance(text, str) else None
        if self.call.command != "create" or stem is None:
            return Call("view", {"path": folder.path})
        return self.call.with_args(**{arg: f"{folder.path}/{stem}"})

    def scope_of(self, target: VirtualFile) -> str:
        return target.scope(self.agent)

    def write(
        self, target: VirtualFile, produce: Callable[[str | None], str], *, create: bool = False,
        content_arg: str | None = None,
    ) -> WriteOutcome:
        return self.service.write(
            self.actor, self.scope_of(target), target.name, produce, command=self.call.command,
            call=self.call, addr=self.addr, expected=self.expected, create=create,
            content_arg=content_arg, edit=not create, requires=self.requires,
        )

    def result(self, output: str, path: str, outcome: WriteOutcome) -> ToolResult:
        return ToolResult(self.call.command, output, None, path, outcome.after, outcome.before)


def first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped and stripped != "---" and not stripped.startswith(("description:", "type:")):
            return stripped
        if stripped.startswith("description:"):
            return stripped.removeprefix("description:").strip()
    return "note"
