"""Refusals: what was wrong with a memory call, and the call that would have worked.

Every refusal carries a stable code (which also fixes its HTTP status), a message that says
what was wrong and how to fix it, and, where one can be built, the corrected call itself,
so a model's next attempt can land (seeds/000: "every refusal names the call that would
have worked").
"""

from __future__ import annotations

import enum
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import cast

from brain.model import JSONValue


class RefusalCode(enum.Enum):
    """Why a call was refused. The value is the wire code; `status` the HTTP status."""

    NO_AGENT = "no-agent"
    UNKNOWN_AGENT = "unknown-agent"
    MEMORY_OFF = "memory-off"
    FORBIDDEN = "forbidden"
    INVALID_PATH = "invalid-path"
    NOT_MARKDOWN = "not-markdown"
    NESTED_DIRECTORY = "nested-directory"
    IS_DIRECTORY = "is-directory"
    NOT_FOUND = "not-found"
    ALREADY_EXISTS = "already-exists"
    CASE_CONFLICT = "case-conflict"
    CONFLICT = "conflict"
    INVALID_ARGUMENT = "invalid-argument"
    NO_MATCH = "no-match"
    MULTIPLE_MATCHES = "multiple-matches"
    TOO_LARGE = "too-large"
    SECRET = "secret"
    NOT_TEXT = "not-text"
    SYMLINK = "symlink"
    UNSAFE_FOLDER = "unsafe-folder"
    PATH_TOO_LONG = "path-too-long"  # the Space's bounds (seeds/001): 512 bytes, 16 levels
    PATH_TOO_DEEP = "path-too-deep"
    NOT_A_FOLDER = "not-a-folder"
    NOT_A_MEMORY = "not-a-memory"  # mindlink: only entries and daily notes are memories
    READ_ONLY = "read-only"  # a read-only replica (`brain serve --read-only`): write to its writer
    HISTORY_FULL = "history-full"  # the write history is at its cap (brain/tool/history/cap.py)
    HISTORY_UNWRITABLE = "history-unwritable"  # a change's record could not be written: put back
    NOT_KEPT = "not-kept"  # a moment before the history began or past its retention (brain/tool/asof)

    @property
    def status(self) -> int:
        return _STATUS[self]


_STATUS = {
    RefusalCode.NO_AGENT: 400,
    RefusalCode.UNKNOWN_AGENT: 404,
    RefusalCode.MEMORY_OFF: 403,
    RefusalCode.FORBIDDEN: 403,
    RefusalCode.INVALID_PATH: 400,
    RefusalCode.NOT_MARKDOWN: 400,
    RefusalCode.NESTED_DIRECTORY: 400,
    RefusalCode.IS_DIRECTORY: 400,
    RefusalCode.NOT_FOUND: 404,
    RefusalCode.ALREADY_EXISTS: 409,
    RefusalCode.CASE_CONFLICT: 409,
    RefusalCode.CONFLICT: 409,
    RefusalCode.INVALID_ARGUMENT: 400,
    RefusalCode.NO_MATCH: 422,
    RefusalCode.MULTIPLE_MATCHES: 422,
    RefusalCode.TOO_LARGE: 413,
    RefusalCode.SECRET: 422,
    RefusalCode.NOT_TEXT: 422,
    RefusalCode.SYMLINK: 409,
    RefusalCode.UNSAFE_FOLDER: 409,
    RefusalCode.PATH_TOO_LONG: 400,
    RefusalCode.PATH_TOO_DEEP: 400,
    RefusalCode.NOT_A_FOLDER: 409,
    RefusalCode.NOT_A_MEMORY: 400,
    RefusalCode.READ_ONLY: 409,
    RefusalCode.HISTORY_FULL: 507,  # Insufficient Storage: the operator's cap, not the caller's fault
    RefusalCode.HISTORY_UNWRITABLE: 507,  # the disk or file under the history, not the caller
    RefusalCode.NOT_KEPT: 410,  # Gone: the history no longer keeps (or never kept) that moment
}

#: String arguments longer than this are abbreviated when a call is rendered as text.
RENDER_CLIP = 240


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the memory tool (or of the HTTP API) with its arguments.

    `style` decides how it reads as text: "tool" renders the JSON input a model sends
    (`{"command": "view", "path": "/memories"}`), "http" renders `METHOD /url`.
    """

    command: str
    args: Mapping[str, JSONValue] = field(default_factory=dict)
    style: str = "tool"

    def with_args(self, **changes: object) -> Call:
        merged: dict[str, object] = {**self.args, **changes}
        return replace(self, args={k: cast(JSONValue, v) for k, v in merged.items() if v is not None})

    def text(self) -> str:
        if self.style == "http":
            path = self.args.get("path", "")
            rest = {k: _clip(v) for k, v in self.args.items() if k != "path"}
            body = " " + json.dumps(rest, ensure_ascii=False) if rest else ""
            return f"{self.command} {path}{body}"
        shown = {"command": self.command, **{k: _clip(v) for k, v in self.args.items()}}
        return json.dumps(shown, ensure_ascii=False)

    def short(self) -> str:
        """`view /memories`, `GET /api/memory`: the call in a sentence, when its path says it all."""
        path = self.args.get("path") or self.args.get("old_path")
        return f"{self.command} {path}" if isinstance(path, str) else self.command

    def to_json(self) -> dict[str, JSONValue]:
        return {"command": self.command, "arguments": dict(self.args), "text": self.text()}


def _clip(value: JSONValue) -> JSONValue:
    if isinstance(value, str) and len(value) > RENDER_CLIP:
        head = value[: RENDER_CLIP - 40]
        return f"{head}…({len(value) - len(head):,} more characters)"
    return value


class Refusal(Exception):
    """A call brain will not carry out; nothing was changed."""

    def __init__(
        self, code: RefusalCode, message: str, suggestion: Call | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestion = suggestion
        self._status = status

    @property
    def status(self) -> int:
        """The HTTP status: the code's, unless the front end had a more precise one (415)."""
        return self._status or self.code.status

    def text(self) -> str:
        """The refusal as one tool result a model reads: what was wrong, then the call to make."""
        if self.suggestion is None:
            return f"Refused: {self.message}"
        return f"Refused: {self.message}\nTry: {self.suggestion.text()}"

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "code": self.code.value,
            "message": self.message,
            "suggestion": self.suggestion.to_json() if self.suggestion else None,
            "text": self.text(),
        }

    def __repr__(self) -> str:
        return f"Refusal({self.code.value!r}, {self.message!r})"


def shown(text: str) -> str:
    """A path or name as it may appear in a message: invisible characters made visible."""
    return "".join(_escape(ch) if invisible(ch) else ch for ch in text)


def invisible(ch: str) -> bool:
    """Control, format, separator, private-use, surrogate or unassigned: never in a name."""
    if ch == " ":
        return False
    return unicodedata.category(ch) in _INVISIBLE


_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
