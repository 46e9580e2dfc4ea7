"""The web UI's session mark: how the server itself knows a request came from its web UI.

The history records the UI's edits with origin `ui` (beside who signed in, from the token).
That was a request header the UI sent (`X-Brain-Client: ui`), which any API client could send
as well, so a script could have its writes recorded as a person's in the UI. Now the server
decides: the page of the UI (`GET /`) sets an HttpOnly, SameSite=Strict cookie whose value is
an HMAC of this server process's secret, and only a request carrying that value is from the
UI. The browser sends it with the UI's own requests (same origin); a plain API client (curl,
an SDK, MCP) never has it, and a header or a made-up cookie is not taken.

The cookie grants nothing: who may do what is still the token's alone, so a page elsewhere
cannot use it (and SameSite keeps it off other sites' requests). The secret is made when the
server starts: after a restart a UI left open is marked again when its page is next loaded;
until then its edits are recorded as `tool`, never the reverse.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from http.cookies import CookieError, SimpleCookie

from starlette.responses import Response

UI_COOKIE = "brain-ui"
_SECRET = secrets.token_bytes(32)  # this server process's: a mark from another is not taken
_MARK = hmac.new(_SECRET, b"brain web UI session", hashlib.sha256).hexdigest()


def mark_ui_session(response: Response, secure: bool) -> None:
    """Set the UI's mark on the response that serves its page."""
    response.set_cookie(UI_COOKIE, _MARK, httponly=True, samesite="strict", secure=secure, path="/")


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
    return found is not None and hmac.compare_digest(found.value.encode(), _MARK.encode())
