"""What the connected client can do, read once from its capabilities at initialize."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types
from pygls.capabilities import get_capability

from brain.lsp.features.positions import Encoding, encoding_of


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    encoding: Encoding = "utf-16"
    markdown: bool = False
    label_details: bool = False
    insert_replace: bool = False
    hierarchical_symbols: bool = False
    definition_links: bool = False
    document_changes: bool = False
    rename_files: bool = False
    create_files: bool = False
    work_done_progress: bool = False
    watch_registration: bool = False
    relative_patterns: bool = False
    show_document: bool = False
    diagnostic_versions: bool = False
    link_tooltips: bool = False
    hover_markdown: bool = False
    resolve_documentation: bool = False

    @classmethod
    def of(
        cls, caps: types.ClientCapabilities, encoding: types.PositionEncodingKind | str | None = None
    ) -> ClientFeatures:
        operations = get_capability(caps, "workspace.workspace_edit.resource_operations", []) or []
        # Resource operations only exist inside `documentChanges`, so a client that lists them
        # (Neovim does, without setting `documentChanges`) applies `documentChanges`.
        document_changes = bool(
            get_capability(caps, "workspace.workspace_edit.document_changes", False) or operations
        )
        return cls(
            encoding=encoding_of(encoding),
            markdown=types.MarkupKind.Markdown
            in (get_capability(caps, "text_document.completion.completion_item.documentation_format", [])
                or []),
            label_details=bool(
                get_capability(caps, "text_document.completion.completion_item.label_details_support", False)
            ),
            insert_replace=bool(
                get_capability(caps, "text_document.completion.completion_item.insert_replace_support", False)
            ),
            hierarchical_symbols=bool(
                get_capability(caps, "text_document.document_symbol.hierarchical_document_symbol_support",
                               False)
            ),
            definition_links=bool(get_capability(caps, "text_document.definition.link_support", False)),
            document_changes=document_changes,
            rename_files=document_changes and types.ResourceOperationKind.Rename in operations,
            create_files=document_changes and types.ResourceOperationKind.Create in operations,
            work_done_progress=bool(get_capability(caps, "window.work_done_progress", False)),
            watch_registration=bool(
                get_capability(caps, "workspace.did_change_watched_files.dynamic_registration", False)
            ),
            relative_patterns=bool(
                get_capability(caps, "workspace.did_change_watched_files.relative_pattern_support", False)
            ),
            show_document=bool(get_capability(caps, "window.show_document.support", False)),
            diagnostic_versions=bool(
                get_capability(caps, "text_document.publish_diagnostics.version_support", False)
            ),
            link_tooltips=bool(get_capability(caps, "text_document.document_link.tooltip_support", False)),
            hover_markdown=types.MarkupKind.Markdown
            in (get_capability(caps, "text_document.hover.content_format", []) or []),
            resolve_documentation="documentation"
            in (get_capability(caps, "text_document.completion.completion_item.resolve_support.properties",
                               []) or []),
        )
