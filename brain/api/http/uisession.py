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
(`.brain/ui-session.key`, uikey.py), taken when the app is made: after a restart a UI left
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
from collections.abc import Mapping
from http.cookies import CookieError, SimpleCookie
from pathlib import Path

from starlette.responses import Response

from brain.api.http.uikey import workspace_key

UI_COOKIE = "brain-ui"
_PURPOSE = b"brain web UI session"


def _mark_of(key: bytes) -> str:
    return hmac.new(key, _PURPOSE, hashlib.sha256).hexdigest()


_PROCESS_KEY = secrets.token_bytes(32)  # where no workspace is named, or it cannot keep one


class _Key:
    """The served workspace's mark, read (or made) on first need: a server whose UI page is
    never asked for and that is sent no mark never writes a key."""

    lock = threading.Lock()
    root: Path | None = None
    mark: str | None = None


def use_workspace_key(root: Path) -> None:
    """Sign and check the mark with `root`'s key from now on (one server serves one workspace)."""
    with _Key.lock:
        _Key.root, _Key.mark = Path(root), None


def _current_mark() -> str:
    with _Key.lock:
        if _Key.mark is None:
            key = workspace_key(_Key.root) if _Key.root is not None else None
            _Key.mark = _mark_of(key if key is not None else _PROCESS_KEY)
        return _Key.mark


def mark_ui_session(response: Response, secure: bool) -> None:
    """Set the UI's mark on the response that serves its page."""
    response.set_cookie(UI_COOKIE, _current_mark(), httponly=True, samesite="strict", secure=secure, path="/")


def from_ui_session(headers: Mapping[str, str] | None) -> bool:
    """True when the request carries this server's UI mark (its `Cookie` header)."""
    if headers is None:
        return False
    raw = headers.get("cookie") or ""
    if UI_COOKIE not in raw:
        return False
    try:
        jar = SimpleCookie(raw)
    except CookieError:
        return False
    found = jar.get(UI_COOKIE)
    return found is not None and hmac.compare_digest(found.value.encode(), _current_mark().encode())
