"""The web UI's session mark: how the server itself knows a request came from its web UI.

The history records the UI's edits with origin `ui` (beside who signed in, from the token).
That was a request header the UI sent (`X-Brain-Client: ui`), which any API client could send
as well, so a script could have its writes recorded as a person's in the UI. Now the server
decides: the page of the UI (`GET /`) sets an HttpOnly, SameSite=Strict cookie whose value is
an HMAC of this server process's secret, and only a request carrying that value is from the
UI. The browser sends it with the UI's own requests (same origin); a plain API client (curl,
an SDK, MCP) never has it, and a header or a made-up cookie is not taken.

The cookie grants nothing: who may do what is still the token's alone, so a page elsewhere
cannot use it (and SameSite keeps it off other sites' requests). The key is the workspace's
(`.brain/ui-session.key`, key.py), each app its own: after a restart a UI left
open still has its edits marked `ui`; a mark made with another workspace's key, or a made-up
one, is not taken. Where the workspace cannot keep a key, one of this process is used, as
before: after a restart its pages are marked again when reloaded, their edits `tool` until
then, never the reverse.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from http.cookies import CookieError, SimpleCookie
from pathlib import Path

from starlette.requests import HTTPConnection
from starlette.responses import Response

from brain.api.http.ui.key import workspace_key

UI_COOKIE = "brain-ui"
_PURPOSE = b"brain web UI session"


def _mark_of(key: bytes) -> str:
    return hmac.new(key, _PURPOSE, hashlib.sha256).hexdigest()


_PROCESS_KEY = secrets.token_bytes(32)  # where no workspace is named, or it cannot keep one


class UiMark:
    """One served workspace's mark, read (or made) on first need: a server whose UI page is
    never asked for and that is sent no mark never writes a key. Each app keeps its own (on
    `app.state.ui_mark`), so two apps of two workspaces in one process never share one."""

    def __init__(self, root: Path | None) -> None:
        self.root = Path(root) if root is not None else None
        self._lock = threading.Lock()
        self._mark: str | None = None

    def value(self) -> str:
        with self._lock:
            if self._mark is None:
                key = workspace_key(self.root) if self.root is not None else None
                self._mark = _mark_of(key if key is not None else _PROCESS_KEY)
            return self._mark


_UNNAMED = UiMark(None)  # an app made without a workspace's mark: this process's key


def _mark_for(connection: HTTPConnection) -> UiMark:
    found = getattr(connection.app.state, "ui_mark", None) if "app" in connection.scope else None
    return found if isinstance(found, UiMark) else _UNNAMED


def mark_ui_session(response: Response, request: HTTPConnection) -> None:
    """Set the UI's mark on the response that serves its page."""
    response.set_cookie(UI_COOKIE, _mark_for(request).value(), httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")


def from_ui_session(connection: HTTPConnection | None) -> bool:
    """True when the request carries its server's UI mark (its `Cookie` header)."""
    if connection is None:
        return False
    raw = connection.headers.get("cookie") or ""
    if UI_COOKIE not in raw:
        return False
    try:
        jar = SimpleCookie(raw)
    except CookieError:
        return False
    found = jar.get(UI_COOKIE)
    mark = _mark_for(connection).value()
    return found is not None and hmac.compare_digest(found.value.encode(), mark.encode())
