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

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from brain.ingest import content_hash
from brain.model import SHARED_SCOPE, JSONValue, Problem, memory_id
from brain.parse import load_frontmatter, split_frontmatter
from brain.tool.access import Actor
from brain.tool.names import MD, nearest_filename
from brain.tool.paths import ROOT, PathProblem, Target, VirtualDir, VirtualFile, parse_virtual
from brain.tool.prompt import index_lines
from brain.tool.refusal import Call, Refusal, RefusalCode
from brain.tool.service import MemoryService, WriteOutcome
from brain.tool.textedit import (
    insert_after,
    line_at,
    line_count,
    numbered,
    occurrences,
    snippet,
    splice,
    split_lines,
    whitespace_insensitive_line,
    widen_to_unique,
)

COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
WRITE_COMMANDS = COMMANDS[1:]
_ARGUMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # command: (required, optional)
    "view": (("path",), ("view_range",)),
    "create": (("path", "file_text"), ()),
    "str_replace": (("path", "old_str"), ("new_str",)),
    "insert": (("path", "insert_line", "insert_text"), ()),
    "delete": (("path",), ()),
    "rename": (("old_path", "new_path"), ()),
}
_ALIASES = {"file_text": ("content", "text", "body"), "insert_text": ("new_str", "text")}


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
            _check_arguments(command, args)
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
        call = Call(command, _json_args(args))
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
        ctx = _Context(self.service, who, addr, call, expected, name)
        handler: Callable[[_Context, dict[str, object]], ToolResult] = _HANDLERS[command]
        return handler(ctx, args)


@dataclass(frozen=True, slots=True)
class _Context:
    service: MemoryService
    actor: Actor
    addr: ToolAddressing
    call: Call
    expected: str | None
    agent: str

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
        stem = nearest_filename(_first_line(text)[:60]) if isinstance(text, str) else None
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
            content_arg=content_arg, edit=not create,
        )

    def result(self, output: str, path: str, outcome: WriteOutcome) -> ToolResult:
        return ToolResult(self.call.command, output, None, path, outcome.after, outcome.before)


def _view(ctx: _Context, args: dict[str, object]) -> ToolResult:
    target = ctx.target()
    view_range = args.get("view_range")
    if isinstance(target, VirtualDir):
        if view_range is not None:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"view_range reads lines of a file, and {target.path} is a directory",
                Call("view", {"path": target.path}),
            )
        return ToolResult("view", _listing(ctx, target), path=target.path)
    scope = ctx.scope_of(target)
    found = ctx.service.read(ctx.actor, scope, target.name, call=ctx.call, addr=ctx.addr)
    text = found.data.decode("utf-8", errors="replace")
    lines = split_lines(text)
    first, last = _range(ctx, target, view_range, len(lines))
    if not lines:
        header = f"{target.path} is empty (0 lines)."
    elif (first, last) == (1, len(lines)):
        header = f"{target.path} ({_count(len(lines), 'line')}):"
    else:
        header = f"{target.path} (lines {first}-{last} of {len(lines)}):"
    body = numbered(lines[first - 1 : last], first) if lines else ""
    output = header + ("\n" + body if body else "")
    return ToolResult("view", output, path=target.path, hash=content_hash(found.data))


def _range(ctx: _Context, target: VirtualFile, view_range: object, count: int) -> tuple[int, int]:
    if view_range is None:
        return 1, count
    whole = ctx.call.with_args(view_range=[1, -1])
    valid = (
        isinstance(view_range, list | tuple) and len(view_range) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
    )
    if not valid:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"view_range must be two line numbers [start, end] (end -1 reads to the bottom), "
            f"not {view_range!r}",
            whole,
        )
    assert isinstance(view_range, list | tuple)
    start, end = int(view_range[0]), int(view_range[1])
    if count == 0:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"{target.path} is empty: there are no lines to slice",
            Call("view", {"path": target.path}),
        )
    span = f"{target.path} has {count} lines, numbered 1 to {count}"
    if start < 1 or start > count:
        fixed = [1, end] if start < 1 and (end == -1 or 1 <= end <= count) else [1, -1]
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"view_range starts at line {start}, but {span}",
            ctx.call.with_args(view_range=fixed),
        )
    if end != -1 and end > count:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"view_range ends at line {end}, but {span} (-1 as the end reads to the bottom)",
            ctx.call.with_args(view_range=[start, -1]),
        )
    if end != -1 and end < start:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"view_range [{start}, {end}] ends before it starts (-1 as the end reads to the bottom)",
            ctx.call.with_args(view_range=[start, -1]),
        )
    return start, count if end == -1 else end


def _listing(ctx: _Context, target: VirtualDir) -> str:
    now = ctx.service.clock()
    shared = ctx.service.notes(SHARED_SCOPE)
    state = ctx.service.agents.get(ctx.agent)
    own = [] if target.shared else ctx.service.notes(ctx.agent)
    if target.shared:
        lines = index_lines([], shared, now)
        head = f"{target.path}: {_count(len(shared), 'shared file')}"
    else:
        lines = index_lines(own, shared, now)
        mine = _count(len(own), "file") + " of your own" if own else "no files of your own yet"
        head = f"{ROOT}: {mine} and {_count(len(shared), 'shared file')} in {ROOT}/{SHARED_SCOPE}"
    out = [head + (" (path — description (age)):" if lines else ".")]
    out.extend(lines)
    if not state.memory_enabled:
        out.append(
            f"Memory is off for agent `{ctx.agent}`: you can read these notes but not change them."
        )
    elif not lines or (not target.shared and not own):
        out.append(f"To remember something, create {ROOT}/<topic>.md (one topic per file).")
    return "\n".join(out)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _create(ctx: _Context, args: dict[str, object]) -> ToolResult:
    target = ctx.file()
    text = args["file_text"]
    assert isinstance(text, str)
    outcome = ctx.write(target, lambda _old: text, create=True, content_arg="file_text")
    lines = line_count(text)
    if not outcome.changed:
        output = f"Unchanged: {target.path} already has exactly this text ({_count(lines, 'line')})."
    elif outcome.created:
        output = f"Created {target.path} ({_count(lines, 'line')})."
    else:
        output = f"Overwrote {target.path} ({_count(lines, 'line')})."
    hint = _frontmatter_hint(text)
    return ctx.result(output + (" " + hint if hint else ""), target.path, outcome)


def _frontmatter_hint(text: str) -> str | None:
    """A nudge toward the house rule's frontmatter; never a refusal."""
    problems: list[Problem] = []
    fm, _, _, present = split_frontmatter(text, "", problems)
    skeleton = "`---`, `description: <one line>`, `type: user|feedback|project|reference`, `---`"
    if not present or fm is None:
        return f"Note: it has no frontmatter; start memory files with {skeleton}."
    data = load_frontmatter(fm, "", problems)
    missing = [key for key in ("description", "type") if not data.get(key)]
    kind = data.get("type")
    if kind and kind not in ("user", "feedback", "project", "reference"):
        return f"Note: type `{kind}` is not one of user, feedback, project, reference."
    if missing:
        return f"Note: its frontmatter has no {' or '.join(missing)}."
    return None


def _str_replace(ctx: _Context, args: dict[str, object]) -> ToolResult:
    target = ctx.file()
    old_str, new_str = args["old_str"], args.get("new_str") or ""
    assert isinstance(old_str, str)
    assert isinstance(new_str, str)
    if not old_str:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            "old_str is empty: to add lines use insert, to rewrite the whole file use create",
            Call("insert", {"path": target.path, "insert_line": 0, "insert_text": new_str}),
        )
    if old_str == new_str:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, "old_str and new_str are the same: nothing would change",
            Call("view", {"path": target.path}),
        )
    where: list[int] = []

    def produce(old: str | None) -> str:
        assert old is not None
        hits = occurrences(old, old_str)
        if not hits:
            raise _no_match(ctx, target, old, old_str)
        if len(hits) > 1:
            raise _many_matches(ctx, target, old, hits, old_str, new_str)
        new = splice(old, hits[0], len(old_str), new_str)
        where.append(line_at(new, hits[0]))
        where.append(line_at(new, hits[0] + max(len(new_str) - 1, 0)))
        return new

    outcome = ctx.write(target, produce, content_arg="new_str")
    first, last = where
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    output = f"Edited {target.path} ({lines} now read):\n" + snippet(outcome.text or "", first, last)
    return ctx.result(output, target.path, outcome)


def _no_match(ctx: _Context, target: VirtualFile, text: str, old_str: str) -> Refusal:
    hint = ""
    loose = whitespace_insensitive_line(text, old_str)
    if loose is not None:
        hint = (
            f" It does match on line {loose} if spaces and line breaks are ignored: copy the "
            f"exact text from view, including its whitespace"
        )
    elif old_str.strip() != old_str and old_str.strip() in text:
        hint = " It matches without its leading or trailing whitespace"
    return Refusal(
        RefusalCode.NO_MATCH,
        f"old_str does not appear verbatim in {target.path}, so nothing was replaced.{hint}",
        Call("view", {"path": target.path}),
    )


def _many_matches(
    ctx: _Context, target: VirtualFile, text: str, hits: list[int], old_str: str, new_str: str
) -> Refusal:
    lines = sorted({line_at(text, h) for h in hits})
    listed = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}" if len(lines) > 1 else str(lines[0])
    wide = widen_to_unique(text, hits[0], old_str, new_str)
    suggestion = ctx.call.with_args(old_str=wide.old_str, new_str=wide.new_str) if wide else None
    which = f" (the call below edits the one on line {line_at(text, hits[0])})" if wide else ""
    return Refusal(
        RefusalCode.MULTIPLE_MATCHES,
        f"old_str matches {len(hits)} times in {target.path}, on line{'s' if len(lines) > 1 else ''} "
        f"{listed}; it must match exactly once. Make old_str longer, with enough of the "
        f"surrounding text to be unique{which}",
        suggestion,
    )


def _insert(ctx: _Context, args: dict[str, object]) -> ToolResult:
    target = ctx.file()
    line, text = args["insert_line"], args["insert_text"]
    assert isinstance(line, int)
    assert isinstance(text, str)
    if not text:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, "insert_text is empty: there is nothing to insert",
            Call("view", {"path": target.path}),
        )
    def produce(old: str | None) -> str:
        assert old is not None
        count = line_count(old)
        if not 0 <= line <= count:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"insert_line {line} is out of range: {target.path} has {count} lines, so "
                f"insert_line goes from 0 (the top) to {count} (after the last line)",
                ctx.call.with_args(insert_line=count if line > count else 0),
            )
        return insert_after(old, line, text)

    outcome = ctx.write(target, produce, content_arg="insert_text")
    added = len(split_lines(text)) or 1
    where = "at the top of" if line == 0 else f"after line {line} of"
    output = (
        f"Inserted {_count(added, 'line')} {where} {target.path}:\n"
        + snippet(outcome.text or "", line + 1, line + added)
    )
    return ctx.result(output, target.path, outcome)


def _delete(ctx: _Context, args: dict[str, object]) -> ToolResult:
    target = ctx.file()
    outcome = ctx.service.delete(
        ctx.actor, ctx.scope_of(target), target.name, call=ctx.call, addr=ctx.addr,
        expected=ctx.expected,
    )
    return ctx.result(f"Deleted {target.path}.", target.path, outcome)


def _rename(ctx: _Context, args: dict[str, object]) -> ToolResult:
    source, dest = ctx.file("old_path"), ctx.file("new_path")
    scope, new_scope = ctx.scope_of(source), ctx.scope_of(dest)
    linking = _incoming_links(ctx, scope, source.name)
    outcome = ctx.service.rename(
        ctx.actor, (scope, source.name), (new_scope, dest.name), call=ctx.call, addr=ctx.addr,
        expected=ctx.expected,
    )
    output = f"Renamed {source.path} to {dest.path}."
    if linking:
        stem = source.name[: -len(MD)]
        output += (
            f" These notes link to it as [[{stem}]] and may now point elsewhere; update them "
            "with str_replace: " + ", ".join(linking) + "."
        )
    return ctx.result(output, dest.path, outcome)


def _incoming_links(ctx: _Context, scope: str, name: str) -> list[str]:
    """Own and shared notes (never another agent's) that link to a note, as `path line N`."""
    brain = ctx.service.brain
    if brain is None or not brain.ready:
        return []
    node = memory_id(scope, name[: -len(MD)])
    out: list[str] = []
    for link in brain.store.links_to([node]).get(node, []):
        source_scope, _, stem = link.source.partition(":")[2].partition("/")
        if source_scope in (ctx.agent, SHARED_SCOPE) and link.source != node:
            path = ctx.addr.path(source_scope, stem + MD)
            out.append(f"{path} line {link.line}")
    return sorted(set(out))


_HANDLERS: dict[str, Callable[[_Context, dict[str, object]], ToolResult]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "delete": _delete,
    "rename": _rename,
}


def _check_arguments(command: str, args: dict[str, object]) -> None:
    required, optional = _ARGUMENTS[command]
    for name in required:
        value = args.get(name)
        if value is None:
            alias = next((a for a in _ALIASES.get(name, ()) if a in args and a not in optional), None)
            fixed = {k: v for k, v in args.items() if k in required + optional}
            if alias is not None:
                fixed[name] = args[alias]
            suggestion = Call(command, _json_args(fixed)) if alias is not None else None
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"{command} needs `{name}`"
                + (f" (not `{alias}`)" if alias else "")
                + f"; its arguments are {_signature(command)}",
                suggestion or _example(command),
            )
    for name in (*required, *optional):
        value = args.get(name)
        if value is None:
            continue
        expected_type: type | tuple[type, ...] = str
        if name == "insert_line":
            expected_type = int
        elif name == "view_range":
            expected_type = (list, tuple)
        if not isinstance(value, expected_type) or isinstance(value, bool):
            kind = "a whole number" if expected_type is int else (
                "[start, end]" if name == "view_range" else "a string"
            )
            fixed = {**args, name: _coerced(name, value)}
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT, f"`{name}` must be {kind}, not {value!r}",
                Call(command, _json_args({k: v for k, v in fixed.items() if k in required + optional})),
            )


def _coerced(name: str, value: object) -> object:
    """The value a mistyped argument most likely meant, in the right type."""
    numbers = [int(n) for n in re.findall(r"(?<!\d)-?\d+", str(value))] if value is not None else []
    if name == "insert_line":
        return numbers[0] if numbers else 0
    if name == "view_range":
        return numbers[:2] if len(numbers) >= 2 else [1, -1]
    return "" if value is None else str(value)


def _signature(command: str) -> str:
    required, optional = _ARGUMENTS[command]
    return ", ".join(required) + "".join(f", [{o}]" for o in optional)


def _example(command: str) -> Call:
    examples: dict[str, dict[str, object]] = {
        "view": {"path": ROOT},
        "create": {"path": f"{ROOT}/topic.md", "file_text": "---\ndescription: …\ntype: project\n---\n"},
        "str_replace": {"path": f"{ROOT}/topic.md", "old_str": "old text", "new_str": "new text"},
        "insert": {"path": f"{ROOT}/topic.md", "insert_line": 0, "insert_text": "a new line\n"},
        "delete": {"path": f"{ROOT}/topic.md"},
        "rename": {"old_path": f"{ROOT}/topic.md", "new_path": f"{ROOT}/{SHARED_SCOPE}/topic.md"},
    }
    return Call(command, _json_args(examples[command]))


def _json_args(args: Mapping[str, object]) -> dict[str, JSONValue]:
    """Arguments as JSON values (they came from JSON, or were checked by `_check_arguments`)."""
    return {k: cast(JSONValue, v) for k, v in args.items() if v is not None}


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped and stripped != "---" and not stripped.startswith(("description:", "type:")):
            return stripped
        if stripped.startswith("description:"):
            return stripped.removeprefix("description:").strip()
    return "note"
