"""Code actions: quick fixes for brain's problems, and a frontmatter skeleton for bare notes.

- broken link: create the note in the link's scope (for a bare link also in `shared`), with
  the frontmatter skeleton and the heading the link asks for; or change the link to a close
  name that exists;
- invalid `type`: set it to each of the four types;
- ambiguous link: make it explicit with each candidate;
- empty link: `[[|label]]` becomes its label, `[[#]]` and `[[]]` go;
- a note without frontmatter: add `description:` (its current description) and `type:`.
Every action is an edit the user accepts; nothing is written by the server.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

import yaml
from lsprotocol import types

from brain.lsp.context import Context, Document
from brain.lsp.edits.linktext import explicit_target, link_parts, replace_target
from brain.lsp.edits.rename import FORBIDDEN
from brain.lsp.edits.workspace_edit import FileChanges, TextChange
from brain.lsp.features.diagnostics import to_diagnostic
from brain.lsp.features.graph import Lookup, NoteIdentity, resolves_to
from brain.lsp.features.positions import LineIndex
from brain.model import MEMORY_TYPES, SHARED_SCOPE, Kind, Problem, WikiLink
from brain.resolve import parse_target

SKELETON = "---\ndescription: \ntype: \n---\n"
TYPE_LINE_RE = re.compile(r"^type[ \t]*:[ \t]*")
CLOSE_MATCHES = 3


@dataclass(frozen=True, slots=True)
class Action:
    """One code action in brain's terms; `server.py` turns it into an LSP CodeAction."""

    title: str
    kind: types.CodeActionKind
    changes: FileChanges
    problem: Problem | None = None
    preferred: bool = False


def actions_for(
    ctx: Context, doc: Document, first_line: int, last_line: int, problems: Sequence[Problem]
) -> list[Action]:
    """Actions for the 0-based lines [first_line, last_line] of an open memory."""
    source = doc.identity
    if source is None:
        return []
    out: list[Action] = []
    for problem in problems:
        if problem.line is None or not first_line <= problem.line - 1 <= last_line:
            continue
        if problem.code == "broken-link":
            link = _link_of(doc, problem)
            if link is not None:
                out += create_note(ctx, doc, source, link, problem)
                out += close_names(ctx, doc, source, link, problem)
        elif problem.code == "ambiguous-link":
            link = _link_of(doc, problem)
            if link is not None:
                out += explicit_links(doc, link, problem)
        elif problem.code == "invalid-frontmatter" and problem.target is not None:
            out += set_type(doc, problem)
        elif problem.code == "empty-link":
            out += empty_link_fix(doc, problem)
    if not doc.note.has_frontmatter and first_line <= _first_text_line(doc.lines):
        out += add_frontmatter(doc)
    return out


def empty_link_fix(doc: Document, problem: Problem) -> list[Action]:
    """`[[|label]]` -> `label`; an empty link without a label is deleted."""
    if problem.line is None or problem.column is None or problem.length is None:
        return []
    line, start = problem.line - 1, problem.column - 1
    raw = doc.lines[line][start : start + problem.length] if line < len(doc.lines) else ""
    if not raw.endswith("]]") or "[[" not in raw:
        return []  # the text moved on since the problem was found
    label = re.split(r"\\?\|", raw[raw.index("[[") + 2 : -2], maxsplit=1)[1:]
    text = label[0].strip() if label else ""
    title = f"Replace `{raw}` by its label `{text}`" if text else f"Delete the empty link `{raw}`"
    change = TextChange(doc.rel, line, start, start + len(raw), text)
    return [Action(title, types.CodeActionKind.QuickFix, FileChanges(edits=[change]), problem, True)]


def _link_of(doc: Document, problem: Problem) -> WikiLink | None:
    """The link a problem is about, if the document still has it at that place."""
    for link in doc.note.links:
        if (link.line, link.column) == (problem.line, problem.column):
            return link
    return None


def _first_text_line(lines: Sequence[str]) -> int:
    for number, line in enumerate(lines):
        if line.strip():
            return number
    return 0


def create_note(
    ctx: Context, doc: Document, source: NoteIdentity, link: WikiLink, problem: Problem
) -> list[Action]:
    if not ctx.features.create_files:
        return []
    target = parse_target(link.target)
    if target.kind not in (None, Kind.MEMORY):
        return []
    parts = link_parts(link.raw)
    name = link.raw[parts.name_start : parts.name_end]
    if not name or FORBIDDEN.search(name) or name.startswith("."):
        return []
    layout = ctx.layout.name if ctx.layout is not None else "latchai"
    if layout != "latchai":
        path = _note_path(layout, doc.rel, source, link.raw[parts.target_start : parts.name_end], name)
        if path is None:
            return []
        body = SKELETON + (f"\n# {link.anchor}\n" if link.anchor else "")
        return [Action(title=f"Create {path}", kind=types.CodeActionKind.QuickFix,
                       changes=FileChanges(creates=[(path, body)]), problem=problem, preferred=True)]
    scopes = [target.scope] if target.scope else [source.scope]
    if not target.scope and source.scope != SHARED_SCOPE:
        scopes.append(SHARED_SCOPE)
    body = SKELETON + (f"\n# {link.anchor}\n" if link.anchor else "")
    out: list[Action] = []
    for number, scope in enumerate(scopes):
        if not scope or FORBIDDEN.search(scope):
            continue
        path = f"memory/{scope}/{name}.md"
        out.append(
            Action(
                title=f"Create {path}",
                kind=types.CodeActionKind.QuickFix,
                changes=FileChanges(creates=[(path, body)]),
                problem=problem,
                preferred=number == 0,
            )
        )
    return out


def _note_path(layout: str, rel: str, source: NoteIdentity, target: str, name: str) -> str | None:
    """Where a note a link asks for goes in a layout other than latchai (None: nowhere sensible)."""
    home = f"{source.scope}/memory"
    if layout == "space":
        folders = [p for p in target.split("/")[:-1] if p]
        if any(p in (".", "..") or p.startswith(".") or FORBIDDEN.search(p) for p in folders):
            return None
        if folders:
            return "/".join([home, *folders, f"{name}.md"])
        return posixpath.join(posixpath.dirname(rel), f"{name}.md")
    if layout == "mindlink":
        return f"{home}/entries/{name}.md"
    return None


def close_names(
    ctx: Context, doc: Document, source: NoteIdentity, link: WikiLink, problem: Problem
) -> list[Action]:
    """`Change to [[close-name]]` for names that exist and that the bare text would reach."""
    target = parse_target(link.target)
    if target.scope is not None or target.kind is not None or not target.key:
        return []
    names = {found.key: found.node for _, found in ctx.catalog.candidates(source.scope)}
    lookup = Lookup(ctx.store)
    out: list[Action] = []
    for key in difflib.get_close_matches(target.key, list(names), n=CLOSE_MATCHES, cutoff=0.75):
        node = names[key]
        text = explicit_target(node.id)
        bare = text.split("/", 1)[1] if node.kind is Kind.MEMORY else text.split(":", 1)[1]
        if resolves_to(lookup, bare, source, node.id):
            text = bare
        out.append(
            Action(
                title=f"Change to [[{text}]]",
                kind=types.CodeActionKind.QuickFix,
                changes=_replace_target(doc, link, text),
                problem=problem,
            )
        )
    return out


def explicit_links(doc: Document, link: WikiLink, problem: Problem) -> list[Action]:
    return [
        Action(
            title=f"Link to {explicit_target(candidate)}",
            kind=types.CodeActionKind.QuickFix,
            changes=_replace_target(doc, link, explicit_target(candidate)),
            problem=problem,
        )
        for candidate in problem.candidates
    ]


def _replace_target(doc: Document, link: WikiLink, target: str) -> FileChanges:
    start = link.column - 1
    new_raw = replace_target(link.raw, target)
    return FileChanges(edits=[TextChange(doc.rel, link.line - 1, start, start + len(link.raw), new_raw)])


def set_type(doc: Document, problem: Problem) -> list[Action]:
    assert problem.line is not None
    line = problem.line - 1
    text = doc.lines[line] if line < len(doc.lines) else ""
    match = TYPE_LINE_RE.match(text)
    if match is None:
        return []
    end = len(text.split(" #", 1)[0].rstrip())
    guess = (problem.target or "").strip().casefold()
    return [
        Action(
            title=f"Set type to {value}",
            kind=types.CodeActionKind.QuickFix,
            changes=FileChanges(edits=[TextChange(doc.rel, line, match.end(), max(end, match.end()), value)]),
            problem=problem,
            preferred=value == guess,
        )
        for value in MEMORY_TYPES
    ]


def add_frontmatter(doc: Document) -> list[Action]:
    description = doc.note.description
    line = (
        yaml.safe_dump({"description": description}, allow_unicode=True, width=1_000_000).rstrip("\n")
        if description else "description: "
    )
    text = f"---\n{line}\ntype: \n---\n"
    return [
        Action(
            title="Add frontmatter (description, type)",
            kind=types.CodeActionKind.RefactorRewrite,
            changes=FileChanges(edits=[TextChange(doc.rel, 0, 0, 0, text)]),
        )
    ]


def to_code_action(action: Action, index: LineIndex, edit: types.WorkspaceEdit) -> types.CodeAction:
    return types.CodeAction(
        title=action.title,
        kind=action.kind,
        diagnostics=[to_diagnostic(action.problem, index)] if action.problem is not None else None,
        is_preferred=action.preferred or None,
        edit=edit,
    )
