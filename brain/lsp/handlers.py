"""The LSP methods brain answers, each a thin handler over this package's analysis functions.

A handler finds the document and its workspace session, then calls one pure function
(completion, hover, rename plan, code actions ...) with the graph; the only state it touches
is the session's queue of edits.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from lsprotocol import types

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.context import Document
from brain.lsp.edits.block_rename import BlockTarget, block_target, plan_block_rename
from brain.lsp.edits.rename import RenameRefused, plan_rename, rename_target
from brain.lsp.edits.workspace_edit import workspace_edit
from brain.lsp.features.actions import actions_for, to_code_action
from brain.lsp.features.completion import complete, complete_early, resolve_item
from brain.lsp.features.cursor import AnchorTyping, typing_at
from brain.lsp.features.hover import early_hover, hover
from brain.lsp.features.mention_actions import mention_actions
from brain.lsp.features.navigation import (
    definition,
    document_links,
    document_symbols,
    references,
    workspace_symbols,
)
from brain.lsp.runtime import BrainLanguageServer, RequestFailed
from brain.lsp.session import Session
from brain.lsp.watch import relevant
from brain.model import Anchors, MemoryNode
from brain.parse.spans.anchors import find_block

TRIGGERS = ["[", "#", "/", ":", "^"]  # `^` after `#`: block ids, a new list
STILL_INDEXING = "brain is still indexing this workspace; try again in a moment"


def refuse(exc: Exception) -> RequestFailed:
    return RequestFailed(str(exc))


async def indexed(ls: BrainLanguageServer, uri: str) -> tuple[Session, Document] | None:
    """The document and its session once the session's first index is built: a request that
    needs the graph waits for it (bounded) instead of answering from the empty store, and
    is refused with a clear message if indexing takes longer than that."""
    found = ls.document(uri)
    if found is None or found[0].ready.is_set():
        return found
    if not await found[0].index_built():
        raise RequestFailed(STILL_INDEXING)
    return ls.document(uri)  # the text may have moved on while it waited


def complete_at(
    ls: BrainLanguageServer, found: tuple[Session, Document] | None, position: types.Position
) -> types.CompletionList | None:
    """Completion at `position`: from the index once built, else from the walk's names."""
    if found is None:
        return None
    session, doc = found
    if doc.identity is None:
        return None
    index = doc.index(ls.features)
    column = index.column(position)
    typing = typing_at(doc.lines, position.line, column)
    if typing is None:
        return None
    # Only `[[#` needs this note's own headings and blocks: parse it for that alone.
    own = Anchors()
    if isinstance(typing, AnchorTyping) and not typing.target:
        own = Anchors(doc.note.headings, doc.note.blocks)
    if not session.answers:  # indexing: the names the walk found
        return complete_early(
            typing, doc.identity, session.early, index, column, ls.features, own, time.time(),
            resolve_uri=doc.uri,
        )
    return complete(
        typing, doc.identity, session.brain.store, session.catalog, index, column, ls.features,
        own, time.time(), resolve_uri=doc.uri,
    )


def register(server: BrainLanguageServer) -> None:
    """Register every handler on `server`."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: BrainLanguageServer, params: types.InitializeParams) -> None:
        ls.features = ClientFeatures.of(params.capabilities, ls.workspace.position_encoding)
        folders = [f.uri for f in params.workspace_folders or []]
        if not folders and params.root_uri:
            folders = [params.root_uri]
        elif not folders and params.root_path:
            folders = [Path(params.root_path).as_uri()]
        for uri in folders:
            ls.roots.add_folder(uri)

    @server.feature(types.INITIALIZED)
    def initialized(ls: BrainLanguageServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.started = True
        for session in ls.roots.sessions():
            ls.start_session(session)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: BrainLanguageServer, params: None) -> None:
        ls.shutdown_sessions()

    # ------------------------------------------------------------------ document sync

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BrainLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        found = ls.document(params.text_document.uri)
        if found is not None:
            session, doc = found
            session.open(doc.rel, doc.uri, doc.text, doc.version)

    def apply_buffer(ls: BrainLanguageServer, uri: str) -> None:
        """The editor's text of `uri` (saved or not) becomes what the graph reads for it."""
        found = ls.document(uri)
        if found is not None:
            session, doc = found
            session.change(doc.rel, doc.uri, doc.text, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BrainLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        apply_buffer(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: BrainLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        apply_buffer(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BrainLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.forget(uri)
        located = ls.roots.locate(uri)
        if located is not None:
            session, rel = located
            session.close(rel, uri)
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: BrainLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        by_session: dict[Path, set[str]] = {}
        for change in params.changes:
            located = ls.roots.locate(change.uri, discover=False)
            if located is None:
                continue
            session, rel = located
            if relevant(session.root, str(session.root / rel), session.layout) is not None:
                by_session.setdefault(session.root, set()).add(rel)
        for root, rels in by_session.items():
            target = ls.roots.get(root)
            if target is not None:
                target.files_changed(rels)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: BrainLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            for session in ls.roots.remove_folder(folder.uri):
                watcher = ls.watchers.pop(session.root, None)
                if watcher is not None:
                    watcher.stop()
                session.stop()
        for folder in params.event.added:
            ls.roots.add_folder(folder.uri)

    # ------------------------------------------------------------------ features

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGERS, resolve_provider=True),
    )
    async def completion(
        ls: BrainLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        found = ls.document(params.text_document.uri)
        if found is None or found[0].answers:
            return complete_at(ls, found, params.position)
        with found[0].first_answer():  # answered before the index takes the CPU
            if not found[0].named.is_set():  # the first `[[` right after start: the walk ends soon
                await found[0].names_known()
                found = ls.document(params.text_document.uri)
            return complete_at(ls, found, params.position)

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    def completion_resolve(ls: BrainLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
        uri = item.data.get("uri") if isinstance(item.data, dict) else None
        located = ls.roots.locate(uri) if isinstance(uri, str) else None
        if located is None:
            return item
        session = located[0]
        early = None if session.answers else session.early
        return resolve_item(item, session.brain.store, ls.features, time.time(), early)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: BrainLanguageServer, params: types.HoverParams) -> types.Hover | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        if not session.answers:  # indexing: what the walk's names say, never "missing"
            return early_hover(session.early, doc, params.position, ls.features)
        return hover(ls.context(session), doc, params.position)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(
        ls: BrainLanguageServer, params: types.DefinitionParams
    ) -> list[types.Location] | list[types.LocationLink] | None:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        return definition(ls.context(session), doc, params.position)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def on_references(
        ls: BrainLanguageServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        return references(ls.context(session), doc, params.position, params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    async def on_document_links(
        ls: BrainLanguageServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink]:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return []
        session, doc = found
        return document_links(ls.context(session), doc)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_document_symbols(
        ls: BrainLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
        found = ls.document(params.text_document.uri)
        if found is None:
            return []
        session, doc = found
        return document_symbols(ls.context(session), doc)

    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbols(
        ls: BrainLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        out: list[types.SymbolInformation] = []
        for session in ls.roots.sessions():
            if await session.index_built():
                out += workspace_symbols(ls.context(session), params.query, session.brain.search.ids)
        return out

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(
        ls: BrainLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        try:
            block = block_target(ls.context(session), doc, params.position)
            if block is not None:
                return types.PrepareRenamePlaceholder(range=block.range, placeholder=block.block.id)
            memory, span = rename_target(ls.context(session), doc, params.position)
        except RenameRefused as exc:
            raise refuse(exc) from None
        return types.PrepareRenamePlaceholder(range=span, placeholder=memory.name.rsplit("/", 1)[-1])

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def on_rename(ls: BrainLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        try:
            block = block_target(ls.context(session), doc, params.position)
            if block is not None:
                return await _rename_block(ls, session, block, params.new_name)
        except RenameRefused as exc:
            raise refuse(exc) from None
        if not ls.features.rename_files:
            raise RequestFailed("this editor cannot rename files through a language server")
        await session.settled()
        try:
            memory, _ = rename_target(ls.context(session), doc, params.position)
            sources = _backlink_paths(session, memory)
            await session.refresh(sources)  # positions must match the files as they are now
            ctx = ls.context(session)
            plan = plan_rename(
                ctx.store, memory, params.new_name, lambda rel: (session.root / rel).exists(),
                session.brain.layout.links,
            )
            indexes = {path: ctx.lines_of(path) for path in {c.path for c in plan.changes.edits}}
            raws = {link.raw for link in ctx.store.links_to([memory.id]).get(memory.id, [])}
            for change in plan.changes.edits:
                if indexes[change.path].line(change.line)[change.start : change.end] not in raws:
                    raise RenameRefused(f"{change.path} changed while renaming; try again")
        except RenameRefused as exc:
            raise refuse(exc) from None
        return workspace_edit(ctx, plan.changes, ls.versions(session), indexes)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]
        ),
    )
    async def on_code_action(
        ls: BrainLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        found = await indexed(ls, params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        await session.settled(timeout=5)
        found = ls.document(params.text_document.uri)  # the text may have moved on meanwhile
        if found is None:
            return None
        session, doc = found
        ctx = ls.context(session)
        problems = session.brain.problems([doc.rel])
        only = [kind_text(k) for k in params.context.only or []]
        index = doc.index(ls.features)
        out: list[types.CodeAction] = []
        first, last = params.range.start.line, params.range.end.line
        found_actions = actions_for(ctx, doc, first, last, problems)
        if doc.identity is not None:
            found_actions += mention_actions(ctx, doc, doc.identity, first, last)
        for action in found_actions:
            kind = kind_text(action.kind)
            if only and not any(kind == k or kind.startswith(k + ".") for k in only):
                continue
            if action.changes.needs_resource_operations and not ls.features.document_changes:
                continue
            edit = workspace_edit(ctx, action.changes, ls.versions(session, doc), {doc.rel: index})
            out.append(to_code_action(action, index, edit))
        return out



def kind_text(kind: types.CodeActionKind | str) -> str:
    """A code action kind as its wire text (`quickfix`), whatever enum or string it came as."""
    return kind.value if isinstance(kind, types.CodeActionKind) else kind


async def _rename_block(
    ls: BrainLanguageServer, session: Session, target: BlockTarget, new_name: str
) -> types.WorkspaceEdit:
    """`^old` -> `^new` in its note and every link to it, checked against the files as they are."""
    await session.settled()
    await session.refresh(_backlink_paths(session, target.memory))
    ctx = ls.context(session)
    memory = ctx.store.get_nodes([target.memory.id]).get(target.memory.id)
    block = find_block(memory.blocks, target.block.id) if isinstance(memory, MemoryNode) else None
    if not isinstance(memory, MemoryNode) or block is None:
        raise RenameRefused(f"`^{target.block.id}` is gone from {target.memory.path}; try again")
    changes = plan_block_rename(ctx.store, memory, block, new_name)
    indexes = {path: ctx.lines_of(path) for path in {c.path for c in changes.edits}}
    for change in changes.edits:
        written = indexes[change.path].line(change.line)[change.start : change.end]
        if written.casefold() != block.id.casefold():
            raise RenameRefused(f"{change.path} changed while renaming; save it and try again")
    return workspace_edit(ctx, changes, ls.versions(session), indexes)


def _backlink_paths(session: Session, memory: MemoryNode) -> set[str]:
    store = session.brain.store
    incoming = store.links_to([memory.id]).get(memory.id, [])
    nodes = store.get_nodes({link.source for link in incoming})
    return {node.path for node in nodes.values() if isinstance(node, MemoryNode)} | {memory.path}
