"""The language server object: workspace roots and their sessions, open documents, and the
hand-off from worker threads to the client.

pygls runs handlers on its asyncio loop; each workspace root has a `Session` whose worker
thread owns every write to the graph. Whatever a worker wants to tell the client
(diagnostics, progress, log lines) goes through `from_worker`, so only the loop ever writes
to the client.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from brain import __version__
from brain.lsp.capabilities import ClientFeatures
from brain.lsp.context import Context, Document
from brain.lsp.protocol import BrainProtocol
from brain.lsp.roots import Roots
from brain.lsp.session import ProgressEvent, Published, Session
from brain.lsp.stdio import Reader, read_loop
from brain.lsp.watch import FileWatcher

if TYPE_CHECKING:
    from brain.lsp.startup.codecache import CodeCache
    from brain.lsp.startup.prewalk import Prewalk
    from brain.service.mentions import Names

log = logging.getLogger("brain.lsp")
WATCHED_GLOB = "{memory,agents,workflows,chats,work-items}/**"


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): a valid request the server declines, with the reason."""

    CODE = -32803
    MESSAGE = "Request failed"


class BrainLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "brain", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=BrainProtocol,
        )
        self.features = ClientFeatures()
        self.roots = Roots(self._new_session)
        self.watchers: dict[Path, FileWatcher] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started = False
        self.cache = False  # `brain lsp` turns it on: sessions start from their snapshots
        self.prewalk: Prewalk | None = None  # the walk a child began before the imports
        self.code_cache: CodeCache | None = None  # the protocol's generated code, kept compiled
        self._tokens = itertools.count(1)
        self._docs: dict[str, Document] = {}
        self._tasks: set[asyncio.Future[None]] = set()

    def start_io(self, stdin: Reader | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve stdio with brain's reader (limits on headers and body size; see stdio.py)."""
        assert isinstance(self.protocol, BrainProtocol)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(read_loop(stdin or sys.stdin.buffer, self.protocol))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    # ------------------------------------------------------------------ sessions

    def _new_session(self, root: Path) -> Session:
        relay = ProgressRelay(self, f"brain-index-{next(self._tokens)}")
        session = Session(
            root,
            self.features.encoding,
            publish=lambda items: self.from_worker(self.send_diagnostics, items),
            progress=lambda event: self.from_worker(relay.event, event),
            log_message=lambda kind, text: self.from_worker(self.log_to_client, kind, text),
            cache=self.cache,
            prewalk=self.prewalk,
        )
        session.walk_now()
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
            await self.client_register_capability_async(
                watch_registration(session.root, self.features, session.layout.name)
            )
        except Exception:
            log.info("the client did not take a file watcher for %s; watching the disk", session.root)
            self.watch_disk(session)

    def watch_disk(self, session: Session) -> None:
        if session.root not in self.watchers:
            watcher = self.watchers[session.root] = FileWatcher(
                session.root, session.files_changed, layout=session.layout, on_rescan=session.rescan
            )
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
        if self.code_cache is not None:
            self.code_cache.save()
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
            cached = Document(uri, rel, text_doc.source, text_doc.version, session.layout)
            self._docs[uri] = cached
        return session, cached

    def forget(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def context(self, session: Session) -> Context:
        def open_text(rel: str) -> str | None:
            applied = session.applied.get(rel)
            return applied.text if applied is not None else None

        brain = session.brain

        def mention_names() -> Names:
            from brain.service.mentions import mention_cache  # only when a code action asks

            return mention_cache(brain, brain.store).names(brain.changes)

        return Context(
            brain.store, session.catalog, session.root, self.features, time.time(), open_text, brain.layout,
            mention_names,
        )

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



def watch_registration(
    root: Path, features: ClientFeatures, layout: str = "latchai"
) -> types.RegistrationParams:
    """Ask the client to report changes below one root (the folders brain reads: latchai's
    top folders; in the other layouts the notes live under agents' folders, so everything,
    filtered by the layout's classification when the events arrive)."""
    glob = WATCHED_GLOB if layout == "latchai" else "**"
    pattern: types.GlobPattern = (
        types.RelativePattern(base_uri=root.as_uri(), pattern=glob)
        if features.relative_patterns else f"{root.as_posix()}/{glob}"
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
