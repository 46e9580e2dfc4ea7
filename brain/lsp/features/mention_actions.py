"""Code action "Link to [[x]]": an unlinked mention in the lines asked about becomes a link.

The same detector and reach as `brain check --mentions` (brain.service.mentions), run on the
editor's buffer as it is now: the names the note may reach come from the graph, the text and
its links from the document. A mention of an ambiguous name offers nothing (brain does not
guess); the edit keeps the text as written (`[[x|Text]]` where it differs from the name).
"""

from __future__ import annotations

from lsprotocol import types

from brain.lsp.context import Context, Document
from brain.lsp.edits.workspace_edit import FileChanges, TextChange
from brain.lsp.features.actions import Action
from brain.lsp.features.graph import NoteIdentity
from brain.model import Kind
from brain.parse.mentions import find_mentions
from brain.service.mentions import Names


def mention_actions(
    ctx: Context, doc: Document, source: NoteIdentity, first_line: int, last_line: int,
) -> list[Action]:
    """Actions for the mentions on the 0-based lines [first_line, last_line] of `doc`."""
    if source.kind is not Kind.MEMORY:
        return []
    note = doc.note
    first_body = note.body_line - 1
    if last_line < first_body:
        return []  # the frontmatter holds no mentions
    lines = doc.lines
    # Only the lines asked about are read, with the lines above them for the parser's sake
    # (a fence opened above is still open): the body up to the last line is enough.
    body_lines = note.body.split("\n")[: last_line - first_body + 1]
    body = "\n".join(body_lines)
    linked = ctx.store.link_targets([source.id]).get(source.id, set())
    names = ctx.mention_names() if ctx.mention_names is not None else Names(ctx.store)
    index = names.index(source.scope)
    out: list[Action] = []
    for m in find_mentions(body, note.body_line, index, source_id=source.id, linked=linked):
        row, start = m.line - 1, m.column - 1
        if not first_line <= row <= last_line or m.replacement is None:
            continue
        if lines[row][start : start + len(m.text)] != m.text:
            continue
        change = TextChange(doc.rel, row, start, start + len(m.text), m.replacement)
        out.append(Action(f"Link to {m.replacement}", types.CodeActionKind.RefactorRewrite,
                          FileChanges(edits=[change])))
    return out
