"""The JSON-RPC side of `brain lsp`, hardened: every request gets an answer with the right code.

pygls parses a message with the typed structure as `object_hook`, so a request whose params
fail validation (a position of -1) raised inside the reader and was never answered; a body
nested 100,000 deep was a RecursionError, also unanswered; a request before `initialize` got
-32603 with a traceback in `data`. Here a body is parsed in steps:

1. over MAX_MESSAGE_BYTES: skipped unread (the reader discards it), answered -32600;
2. not JSON: -32700; nested over MAX_DEPTH: -32600, both to the id if it can be recovered;
3. params that do not fit the method's types: -32602 (InvalidParams) with the reason;
4. a request before `initialize`: -32002 (ServerNotInitialized); notifications then are dropped;
5. anything a handler raises: -32603 with a one-line message; the traceback goes to the log,
   never into the response.

`didChange` is applied here too (brain.lsp.textsync: linear, with a budget), and a change
whose version does not increase is ignored with a log line, as the spec requires.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

from brain.lsp.features.positions import encoding_of
from brain.lsp.textsync import ChangeRefused, apply_changes
from brain.parse import safejson
from brain.parse.safejson import recover_id

log = logging.getLogger("brain.lsp")

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 128  # LSP's deepest legitimate params (capabilities, edits) are ~12 levels
SERVER_NOT_INITIALIZED = -32002
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
_BEFORE_INIT = frozenset({types.INITIALIZE, types.EXIT})


class BrainProtocol(LanguageServerProtocol):
    """LanguageServerProtocol with checked input; see the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False
        self.out_of_sync: set[str] = set()  # a change was refused: wait for whole text or reopen

    # ------------------------------------------------------------------ entry point

    def receive(self, body: bytes) -> None:
        """Handle one message body as read from the wire; never raises."""
        try:
            text = body.decode("utf-8")
            safejson.check_depth(text, MAX_DEPTH)
            data = json.loads(text)
        except safejson.JSONBudgetError as exc:
            self.send_error(recover_id(body), INVALID_REQUEST, f"message refused: {exc.message}")
            return
        except (ValueError, RecursionError) as exc:
            self.send_error(recover_id(body), PARSE_ERROR, f"parse error: {str(exc)[:200]}")
            return
        if not isinstance(data, dict) or not isinstance(data.get("method", ""), str):
            self.send_error(None, INVALID_REQUEST, "a message must be a JSON object with a string `method`")
            return
        msg_id = data.get("id")
        is_request = "method" in data and msg_id is not None
        if "method" in data and not self.initialize_seen and data["method"] not in _BEFORE_INIT:
            if is_request:
                self.send_error(
                    msg_id, SERVER_NOT_INITIALIZED, "the server is not initialized: send `initialize` first"
                )
            return  # notifications before initialize are dropped (spec)
        if data.get("method") == types.INITIALIZE:
            self.initialize_seen = True
        try:
            message = self.structure_message(data)
        except Exception as exc:
            reason = str(exc.__cause__ or exc).splitlines()[0][:300] if str(exc.__cause__ or exc) else ""
            log.warning("invalid %s: %s", data.get("method", "message"), reason)
            if is_request:
                self.send_error(msg_id, INVALID_PARAMS, f"invalid params for {data['method']}: {reason}")
            return
        try:
            self.handle_message(message)
        except Exception:
            log.exception("handling %s failed", data.get("method"))
            if is_request:
                self.send_error(msg_id, INTERNAL_ERROR, "internal error (see the server log)")

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: types.ResponseError | None = None
    ) -> None:
        if error is not None and error.data is not None:  # pygls puts tracebacks there
            log.error("request %s failed: %s %s", msg_id, error.message, error.data)
            error = types.ResponseError(code=error.code, message=error.message.splitlines()[0][:300])
        super()._send_response(msg_id, result, error)

    # ------------------------------------------------------------------ didChange

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(uri)
        if doc is None:
            log.warning("didChange for %s, which is not open: ignored", uri)
            return
        version = params.text_document.version
        if doc.version is not None and version is not None and version <= doc.version:
            log.warning("didChange for %s with version %s, not above %s: ignored", uri, version, doc.version)
            return
        changes = params.content_changes
        if uri in self.out_of_sync:
            partial = types.TextDocumentContentChangePartial
            whole = [i for i, c in enumerate(changes) if not isinstance(c, partial)]
            if not whole:
                log.warning("didChange for %s ignored: out of sync since a refused edit", uri)
                return
            changes = changes[whole[-1] :]
        try:
            text = apply_changes(doc.source, changes, encoding_of(self.workspace.position_encoding))
        except ChangeRefused as exc:
            log.error("didChange for %s refused: %s", uri, exc)
            self.out_of_sync.add(uri)
            self.notify(types.WINDOW_SHOW_MESSAGE, types.ShowMessageParams(
                types.MessageType.Error,
                f"brain: an edit of {uri.rsplit('/', 1)[-1]} was refused ({exc}); "
                "close and reopen the file to resynchronise it",
            ))
            return
        self.out_of_sync.discard(uri)
        doc._source = text
        doc.version = version
        if (user_handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.out_of_sync.discard(params.text_document.uri)
        yield from super().lsp_text_document__did_open(params)
