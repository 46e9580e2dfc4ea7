"""Who is calling: bearer tokens to principals, shared by GraphQL and the memory tool's API.

No token configured: the service is open and every caller is the anonymous admin (a
loopback-only default). `BRAIN_TOKEN` is the admin's bearer token. `BRAIN_TOKENS_FILE` names
a JSON object `{"<token>": "<agent-name>" | "*"}`: each token acts as that agent ("*" is an
admin). Once any token is configured, every HTTP request and every WebSocket
`connection_init` must carry a valid one. The file is re-read when it changes, so tokens can
be rotated without a restart.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from brain import safefs
from brain.api.http.uisession import from_ui_session
from brain.model import SHARED_SCOPE
from brain.tool.access import Actor

logger = logging.getLogger("brain.api.http.auth")

ADMIN_WILDCARD = "*"


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of one request. `agent` is None for an admin (or an open service)."""

    name: str
    agent: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.agent is None

    def can_read_scope(self, scope: str) -> bool:
        """An agent sees its own folder and the shared one; an admin sees everything."""
        return self.agent is None or scope in (self.agent, SHARED_SCOPE)


ANONYMOUS = Principal("anonymous")
ADMIN = Principal("admin")


class TokensFileError(Exception):
    """The agents' tokens file cannot be used: one line naming the file and the fix."""


class TokenRegistry:
    """Maps bearer tokens to principals; compares tokens in constant time."""

    def __init__(self, admin_token: str | None = None, tokens_file: Path | None = None) -> None:
        self.admin_token = admin_token or None
        self.tokens_file = tokens_file
        self._lock = threading.Lock()
        self._file_tokens: dict[str, Principal] = {}
        self._file_stamp: tuple[int, int] | None = None
        if tokens_file is not None:
            self._file_tokens = read_tokens_file(tokens_file)
            self._file_stamp = _stamp(tokens_file)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenRegistry:
        env = os.environ if environ is None else environ
        file_name = env.get("BRAIN_TOKENS_FILE") or None
        return cls(env.get("BRAIN_TOKEN") or None, Path(file_name) if file_name else None)

    @property
    def required(self) -> bool:
        """Whether callers must present a token at all."""
        return self.admin_token is not None or self.tokens_file is not None

    def principal_for(self, token: str | None) -> Principal | None:
        """The principal a token stands for; None if it is missing or unknown.

        With no token configured every caller is `ANONYMOUS`, token or not.
        """
        if not self.required:
            return ANONYMOUS
        if not token:
            return None
        if self.admin_token is not None and hmac.compare_digest(
            token.encode("utf-8"), self.admin_token.encode("utf-8")
        ):
            return ADMIN
        found: Principal | None = None
        for known, principal in self._current_file_tokens().items():
            # Check every entry so the time taken does not depend on which one matches.
            if hmac.compare_digest(token.encode("utf-8"), known.encode("utf-8")):
                found = principal
        return found

    def principal_for_header(self, authorization: str | None) -> Principal | None:
        return self.principal_for(bearer_token(authorization))

    def principal_for_connection_params(self, params: object) -> Principal | None:
        """A WebSocket `connection_init` payload: `{"Authorization": "Bearer <t>"}` or `{"token": "<t>"}`."""
        if not isinstance(params, Mapping):
            return self.principal_for(None)
        for key, value in params.items():
            if not isinstance(key, str) or not isinstance(value, str):
                continue
            if key.lower() == "authorization":
                return self.principal_for(bearer_token(value))
            if key.lower() == "token":
                return self.principal_for(value.strip())
        return self.principal_for(None)

    def _current_file_tokens(self) -> dict[str, Principal]:
        if self.tokens_file is None:
            return {}
        with self._lock:
            stamp = _stamp(self.tokens_file)
            if stamp != self._file_stamp:
                try:
                    self._file_tokens = read_tokens_file(self.tokens_file)
                except TokensFileError as exc:
                    # Keep serving with the last good tokens rather than locking everyone out.
                    logger.error("%s; still using the tokens read before", exc)
                self._file_stamp = stamp
            return self._file_tokens


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` value, if that is what it is."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def read_tokens_file(path: Path) -> dict[str, Principal]:
    fix = 'it must hold a JSON object like {"<token>": "<agent-name>", "<admin-token>": "*"}'
    try:
        # safefs: a FIFO or device named by mistake is refused, not waited on at every request.
        data = json.loads(safefs.read_regular_file(path, follow=True).decode("utf-8"))
    except OSError as exc:
        raise TokensFileError(f"BRAIN_TOKENS_FILE {path}: cannot be read ({exc.strerror or exc})") from exc
    except ValueError as exc:
        raise TokensFileError(f"BRAIN_TOKENS_FILE {path}: not valid JSON ({exc}); {fix}") from exc
    if not isinstance(data, dict):
        raise TokensFileError(f"BRAIN_TOKENS_FILE {path}: {fix}")
    tokens: dict[str, Principal] = {}
    for token, who in data.items():
        if not isinstance(who, str) or not who.strip() or not token.strip():
            raise TokensFileError(
                f"BRAIN_TOKENS_FILE {path}: the entry for a token is {who!r}; {fix}"
            )
        who = who.strip()
        tokens[token.strip()] = (
            Principal("admin") if who == ADMIN_WILDCARD else Principal(f"agent:{who}", agent=who)
        )
    return tokens


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def actor_of(principal: Principal | None, via: str, headers: Mapping[str, str] | None = None) -> Actor:
    """The memory tool's actor for a request's principal, arriving through `via` (rest, graphql).
    `headers`: the request's, for the web UI's mark (`ui_origin`)."""
    origin = ui_origin(headers)
    if principal is None or principal.name == "anonymous":
        return Actor("open", None, via, origin)
    if principal.agent is not None:
        return Actor("agent", principal.agent, via, origin)
    return Actor("admin", None, via, origin)


def ui_origin(headers: Mapping[str, str] | None) -> str | None:
    """"ui" when the request comes from brain's web UI, as the server itself knows it: the UI
    session's mark, a cookie the UI's page set (brain/api/http/uisession.py), not a header
    any client can send. Its edits are recorded with origin `ui` beside who signed in (the
    token's principal, which the mark cannot change)."""
    return "ui" if from_ui_session(headers) else None
