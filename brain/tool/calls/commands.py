"""The six commands of the memory tool, each a function of one call in progress."""

from __future__ import annotations

from collections.abc import Callable

from brain.ingest.memory_files import content_hash
from brain.model import SHARED_SCOPE, Problem, memory_id
from brain.parse.frontmatter import load_frontmatter, split_frontmatter
from brain.tool.calls.context import CallContext, ToolResult
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.calls.textedit import (
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
from brain.tool.files.names import MD
from brain.tool.files.paths import ROOT, VirtualDir, VirtualFile
from brain.tool.prompt import index_lines


def _view(ctx: CallContext, args: dict[str, object]) -> ToolResult:
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


def _range(ctx: CallContext, target: VirtualFile, view_range: object, count: int) -> tuple[int, int]:
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


def _listing(ctx: CallContext, target: VirtualDir) -> str:
    now = ctx.service.clock()
    shared = ctx.service.listed_notes(SHARED_SCOPE)
    state = ctx.service.agents.get(ctx.agent)
    own = [] if target.shared else ctx.service.listed_notes(ctx.agent)
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


def _create(ctx: CallContext, args: dict[str, object]) -> ToolResult:
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


def _str_replace(ctx: CallContext, args: dict[str, object]) -> ToolResult:
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


def _no_match(ctx: CallContext, target: VirtualFile, text: str, old_str: str) -> Refusal:
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
    ctx: CallContext, target: VirtualFile, text: str, hits: list[int], old_str: str, new_str: str
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


def _insert(ctx: CallContext, args: dict[str, object]) -> ToolResult:
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


def _delete(ctx: CallContext, args: dict[str, object]) -> ToolResult:
    target = ctx.file()
    outcome = ctx.service.delete(
        ctx.actor, ctx.scope_of(target), target.name, call=ctx.call, addr=ctx.addr,
        expected=ctx.expected, requires=ctx.requires,
    )
    return ctx.result(f"Deleted {target.path}.", target.path, outcome)


def _rename(ctx: CallContext, args: dict[str, object]) -> ToolResult:
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


def _incoming_links(ctx: CallContext, scope: str, name: str) -> list[str]:
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


HANDLERS: dict[str, Callable[[CallContext, dict[str, object]], ToolResult]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "delete": _delete,
    "rename": _rename,
}
