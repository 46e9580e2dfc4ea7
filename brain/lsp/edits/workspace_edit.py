"""File changes as one LSP WorkspaceEdit, shaped to what the client can apply.

Features describe their changes in brain's terms (a path, a 0-based line, code point
columns); this module turns them into client positions with the text each edit was computed
on, and uses `documentChanges` (versioned edits, CreateFile, RenameFile) where the client
supports it. The server never writes a file: the client applies the edit, or does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lsprotocol import types

from brain.lsp.context import Context
from brain.lsp.features.positions import LineIndex


@dataclass(frozen=True, slots=True)
class TextChange:
    path: str
    line: int
    start: int
    end: int
    new_text: str


@dataclass(slots=True)
class FileChanges:
    """Edits to existing files, files to create with their text, files to rename (in order)."""

    edits: list[TextChange] = field(default_factory=list)
    creates: list[tuple[str, str]] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)

    @property
    def needs_resource_operations(self) -> bool:
        return bool(self.creates or self.renames)


Versions = Callable[[str], int | None]


def workspace_edit(
    ctx: Context,
    changes: FileChanges,
    versions: Versions,
    indexes: dict[str, LineIndex] | None = None,
) -> types.WorkspaceEdit:
    """The WorkspaceEdit for `changes`; `versions` gives the version of open documents.

    `indexes` are the lines the edits were computed on (read again from `ctx` if missing).
    """
    indexes = dict(indexes or {})
    by_path: dict[str, list[types.TextEdit]] = {}
    for change in changes.edits:
        index = indexes.get(change.path)
        if index is None:
            index = indexes[change.path] = ctx.lines_of(change.path)
        by_path.setdefault(change.path, []).append(
            types.TextEdit(index.span(change.line, change.start, change.end), change.new_text)
        )
    if not ctx.features.document_changes:
        return types.WorkspaceEdit(changes={ctx.uri(path): edits for path, edits in by_path.items()})

    document_changes: list[
        types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
    ] = []
    for path, edits in by_path.items():
        identifier = types.OptionalVersionedTextDocumentIdentifier(ctx.uri(path), versions(path))
        document_changes.append(types.TextDocumentEdit(identifier, list(edits)))
    for path, text in changes.creates:
        uri = ctx.uri(path)
        document_changes.append(
            types.CreateFile(uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True))
        )
        start = types.Position(0, 0)
        document_changes.append(
            types.TextDocumentEdit(
                types.OptionalVersionedTextDocumentIdentifier(uri, None),
                [types.TextEdit(types.Range(start, start), text)],
            )
        )
    for old, new in changes.renames:
        document_changes.append(
            types.RenameFile(
                ctx.uri(old), ctx.uri(new),
                options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
            )
        )
    return types.WorkspaceEdit(document_changes=document_changes)
