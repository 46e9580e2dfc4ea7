"""`brain lsp`: the pygls language server. Handlers are thin: they find the document and its
workspace root, then call the analysis functions of this package.

Threads: pygls runs handlers on its asyncio loop; each workspace root has a `Session` whose
worker thread owns every write to the graph. Whatever the worker wants to tell the client
(diagnostics, progress, log lines) is handed to the loop with `call_soon_threadsafe`, so only
the loop ever writes to the client.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from brain import __version__
from brain.lsp.actions import actions_for, to_code_action
from brain.lsp.capabilities import ClientFeatures
from brain.lsp.completion import complete, resolve_item
from brain.lsp.context import Context, Document
from brain.lsp.cursor import AnchorTyping, typing_at
from brain.lsp.edits import workspace_edit
from brain.lsp.navigation import (
    definition,
    document_links,
    document_symbols,
    hover,
    references,
    workspace_symbols,
)
from brain.lsp.rename import RenameRefused, plan_rename, rename_target
from brain.lsp.roots import Roots
from brain.lsp.session import ProgressEvent, Published, Session
from brain.lsp.watch import FileWatcher, relevant
from brain.model import MemoryNode

log = logging.getLogger("brain.lsp")
WATCHED_GLOB = "{memory,agents,workflows,chats,work-items}/**"
TRIGGERS = ["[", "#", "/", ":"]
STILL_INDEXING = "brain is still indexing this workspace; try again in a moment"


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): a valid request the server declines, with the reason."""

    CODE = -32803
    MESSAGE = "Request failed"


class BrainLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("brain", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.features = ClientFeatures()
        self.roots = Roots(self._new_session)
        self.watchers: dict[Path, FileWatcher] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started = False
        self._tokens = itertools.count(1)
        self._docs: dict[str, Document] = {}
        self._tasks: set[asyncio.Future[None]] = set()

    # ------------------------------------------------------------------ sessions

    def _new_session(self, root: Path) -> Session:
        relay = ProgressRelay(self, f"brain-index-{next(self._tokens)}")
        session = Session(
            root,
            self.features.encoding,
            publish=lambda items: self.from_worker(self.send_diagnostics, items),
            progress=lambda event: self.from_worker(relay.event, event),
            log_message=lambda kind, text: self.from_worker(self.log_to_client, kind, text),
        )
        if self.started:
            self.start_session(session)
        return session

    def start_session(self, session: Session) -> None:
        """Index the root at once; then follow its files, through the client or by watching the disk."""
        session.start()
        if self.features.watch_registration:
            task = asyncio.ensure_future(self.register_watcher(session))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self.watch_disk(session)

    async def register_watcher(self, session: Session) -> None:
        try:
            await self.client_register_capability_async(watch_registration(session.root, self.features))
        except Exception:
            log.info("the client did not take a file watcher for %s; watching the disk", session.root)
            self.watch_disk(session)

    def watch_disk(self, session: Session) -> None:
        if session.root not in self.watchers:
            watcher = self.watchers[session.root] = FileWatcher(session.root, session.files_changed)
            watcher.start()

    def from_worker(self, fn: Callable[..., None], *args: Any) -> None:
        """Run `fn` on the server's loop (worker threads never write to the client)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def send_diagnostics(self, items: list[Published]) -> None:
        for item in items:
            if item.uri not in self.workspace.text_documents:
                continue  # closed meanwhile: its diagnostics were cleared on close
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(item.uri, item.diagnostics, version=item.version)
            )

    def log_to_client(self, kind: types.MessageType, text: str) -> None:
        self.window_log_message(types.LogMessageParams(kind, text))
        if kind is types.MessageType.Error:
            self.window_show_message(types.ShowMessageParams(kind, text))

    def shutdown_sessions(self) -> None:
        for watcher in self.watchers.values():
            watcher.stop()
        self.watchers.clear()
        for session in self.roots.sessions():
            session.stop()

    # ------------------------------------------------------------------ documents

    def document(self, uri: str) -> tuple[Session, Document] | None:
        """The open document at `uri` and its session, if it lies in a brain workspace."""
        located = self.roots.locate(uri)
        if located is None:
            return None
        session, rel = located
        text_doc = self.workspace.text_documents.get(uri)
        if text_doc is None:
            return None
        cached = self._docs.get(uri)
        if cached is None or cached.version != text_doc.version or cached.text != text_doc.source:
            cached = Document(uri, rel, text_doc.source, text_doc.version)
            self._docs[uri] = cached
        return session, cached

    def context(self, session: Session) -> Context:
        def open_text(rel: str) -> str | None:
            applied = session.applied.get(rel)
            return applied.text if applied is not None else None

        brain = session.brain
        return Context(brain.store, session.catalog, session.root, self.features, time.time(), open_text)

    def versions(self, session: Session, doc: Document | None = None) -> Callable[[str], int | None]:
        def version(rel: str) -> int | None:
            if doc is not None and rel == doc.rel:
                return doc.version
            applied = session.applied.get(rel)
            return applied.version if applied is not None else None

        return version


class ProgressRelay:
    """Work-done progress of one session's indexing, on the loop; events before the token exists wait."""

    def __init__(self, server: BrainLanguageServer, token: str) -> None:
        self.server = server
        self.token = token
        self.state = "new"  # new -> creating -> active -> ended (or "off")
        self.pending: list[ProgressEvent] = []
        self.task: asyncio.Future[None] | None = None

    def event(self, event: ProgressEvent) -> None:
        if self.state == "off" or self.state == "ended":
            return
        if not self.server.features.work_done_progress:
            self.state = "off"
            return
        if self.state == "new":
            self.state = "creating"
            self.task = asyncio.ensure_future(self._create())
        if self.state == "creating":
            if event.kind == "report" and self.pending and self.pending[-1].kind == "report":
                self.pending[-1] = event
            else:
                self.pending.append(event)
            return
        self._send(event)

    async def _create(self) -> None:
        try:
            await self.server.work_done_progress.create_async(self.token)
        except Exception:
            log.warning("the client refused a progress token; indexing runs without progress")
            self.state = "off"
            return
        self.state = "active"
        pending, self.pending = self.pending, []
        for event in pending:
            self._send(event)

    def _send(self, event: ProgressEvent) -> None:
        progress = self.server.work_done_progress
        if event.kind == "begin":
            progress.begin(
                self.token,
                types.WorkDoneProgressBegin(
                    title="brain", message=event.message, percentage=event.percentage, cancellable=False
                ),
            )
        elif event.kind == "report":
            progress.report(
                self.token, types.WorkDoneProgressReport(message=event.message, percentage=event.percentage)
            )
        else:
            progress.end(self.token, types.WorkDoneProgressEnd(message=event.message))
            self.state = "ended"


def refuse(exc: Exception) -> RequestFailed:
    return RequestFailed(str(exc))


def build_server() -> BrainLanguageServer:
    server = BrainLanguageServer()

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

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BrainLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        found = ls.document(params.text_document.uri)
        if found is not None:
            session, doc = found
            session.change(doc.rel, doc.uri, doc.text, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: BrainLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        found = ls.document(params.text_document.uri)
        if found is not None:
            session, doc = found
            session.change(doc.rel, doc.uri, doc.text, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BrainLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls._docs.pop(uri, None)
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
            if relevant(session.root, str(session.root / rel)) is not None:
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
    def completion(ls: BrainLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        if doc.identity is None:
            return None
        index = doc.index(ls.features)
        column = index.column(params.position)
        typing = typing_at(doc.lines, params.position.line, column)
        if typing is None:
            return None
        if not session.ready.is_set():
            return types.CompletionList(is_incomplete=True, items=[])
        # Only `[[#` needs this note's own headings: parse it for that alone.
        own = doc.note.headings if isinstance(typing, AnchorTyping) and not typing.target else ()
        return complete(
            typing, doc.identity, session.brain.store, session.catalog, index, column, ls.features,
            own, time.time(), resolve_uri=doc.uri,
        )

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    def completion_resolve(ls: BrainLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
        uri = item.data.get("uri") if isinstance(item.data, dict) else None
        located = ls.roots.locate(uri) if isinstance(uri, str) else None
        if located is None:
            return item
        return resolve_item(item, located[0].brain.store, ls.features, time.time())

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: BrainLanguageServer, params: types.HoverParams) -> types.Hover | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        return hover(ls.context(session), doc, params.position)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(
        ls: BrainLanguageServer, params: types.DefinitionParams
    ) -> list[types.Location] | list[types.LocationLink] | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        return definition(ls.context(session), doc, params.position)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: BrainLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        return references(ls.context(session), doc, params.position, params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    def on_document_links(
        ls: BrainLanguageServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink]:
        found = ls.document(params.text_document.uri)
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
    def on_workspace_symbols(
        ls: BrainLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        out: list[types.SymbolInformation] = []
        for session in ls.roots.sessions():
            if session.ready.is_set():
                out += workspace_symbols(ls.context(session), params.query)
        return out

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def on_prepare_rename(
        ls: BrainLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        if not session.ready.is_set():
            raise RequestFailed(STILL_INDEXING)
        try:
            memory, span = rename_target(ls.context(session), doc, params.position)
        except RenameRefused as exc:
            raise refuse(exc) from None
        return types.PrepareRenamePlaceholder(range=span, placeholder=memory.name)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def on_rename(ls: BrainLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        if not session.ready.is_set():
            raise RequestFailed(STILL_INDEXING)
        if not ls.features.rename_files:
            raise RequestFailed("this editor cannot rename files through a language server")
        await session.settled()
        try:
            memory, _ = rename_target(ls.context(session), doc, params.position)
            sources = _backlink_paths(session, memory)
            await session.refresh(sources)  # positions must match the files as they are now
            ctx = ls.context(session)
            plan = plan_rename(ctx.store, memory, params.new_name, lambda rel: (session.root / rel).exists())
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
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        session, doc = found
        if not session.ready.is_set():
            return []
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
        for action in actions_for(ctx, doc, params.range.start.line, params.range.end.line, problems):
            kind = kind_text(action.kind)
            if only and not any(kind == k or kind.startswith(k + ".") for k in only):
                continue
            if action.changes.needs_resource_operations and not ls.features.document_changes:
                continue
            edit = workspace_edit(ctx, action.changes, ls.versions(session, doc), {doc.rel: index})
            out.append(to_code_action(action, index, edit))
        return out

    return server


def kind_text(kind: types.CodeActionKind | str) -> str:
    """A code action kind as its wire text (`quickfix`), whatever enum or string it came as."""
    return kind.value if isinstance(kind, types.CodeActionKind) else kind


def _backlink_paths(session: Session, memory: MemoryNode) -> set[str]:
    store = session.brain.store
    incoming = store.links_to([memory.id]).get(memory.id, [])
    nodes = store.get_nodes({link.source for link in incoming})
    return {node.path for node in nodes.values() if isinstance(node, MemoryNode)} | {memory.path}


def watch_registration(root: Path, features: ClientFeatures) -> types.RegistrationParams:
    """Ask the client to report changes below one root (the folders brain reads)."""
    pattern: types.GlobPattern = (
        types.RelativePattern(base_uri=root.as_uri(), pattern=WATCHED_GLOB)
        if features.relative_patterns else f"{root.as_posix()}/{WATCHED_GLOB}"
    )
    return types.RegistrationParams(
        registrations=[
            types.Registration(
                id=f"brain-watch:{root}",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=pattern)]
                ),
            )
        ]
    )


def parse_tcp(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"brain lsp: --tcp wants HOST:PORT, e.g. 127.0.0.1:2087 (got {value!r})")
    return host, int(port)


def run_server(args: argparse.Namespace) -> int:
    # stderr is the editor's log (VS Code: the `brain` output channel); stdout is the protocol.
    level = (os.environ.get("BRAIN_LSP_LOG") or os.environ.get("BRAIN_LOG") or "WARNING").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    server = build_server()
    tcp = getattr(args, "tcp", None)
    if tcp:
        host, port = parse_tcp(tcp)
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0

