"""Relay-style forward pagination: opaque cursors and page info.

A cursor names the last item seen (a memory id, a problem's sort key), never an offset, so
a page boundary stays put while notes are added and deleted around it. Cursors come from
callers: one longer than `MAX_CURSOR_CHARS` is refused without being decoded, and an
error quotes at most the start of a bad one (it was echoed and logged whole, 400 KB and all).
"""

from __future__ import annotations

import base64
import binascii
import json

import strawberry

from brain.api.graphql.errors import UserError
from brain.model import Problem
from brain.parse import safejson


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


def encode_cursor(kind: str, value: str) -> str:
    raw = f"{kind}:{value}".encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


MAX_CURSOR_CHARS = 16 * 1024  # a problem's key holds a path and a message: generous
QUOTED_CHARS = 40


def quoted(cursor: str) -> str:
    """The cursor as an error message may show it: its start, and its length if cut."""
    if len(cursor) <= QUOTED_CHARS:
        return repr(cursor)
    return f"{cursor[:QUOTED_CHARS]!r}… ({len(cursor):,} characters)"


def decode_cursor(kind: str, cursor: str) -> str:
    if len(cursor) > MAX_CURSOR_CHARS:
        raise UserError(
            f"`after` is {len(cursor):,} characters long; a cursor of this API is at most "
            f"{MAX_CURSOR_CHARS:,}: pass the `endCursor` of the previous page"
        )
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.urlsafe_b64decode(padded.encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    prefix = f"{kind}:"
    if not text.startswith(prefix):
        raise UserError(
            f"`after: {quoted(cursor)}` is not a cursor of this list: pass the `endCursor` "
            "of the previous page, or leave `after` out to start at the beginning"
        )
    return text[len(prefix):]


ProblemKey = tuple[str, int, int, str, str]


def problem_key(problem: Problem) -> ProblemKey:
    return (problem.path, problem.line or 0, problem.column or 0, problem.code, problem.message)


def problem_cursor(problem: Problem) -> str:
    return encode_cursor("problem", json.dumps(problem_key(problem), ensure_ascii=False))


def problem_after(cursor: str) -> ProblemKey:
    text = decode_cursor("problem", cursor)
    try:
        # A cursor is the caller's text: nested a few thousand deep it was a RecursionError.
        path, line, column, code, message = safejson.loads(text, max_depth=2)
        return (str(path), int(line), int(column), str(code), str(message))
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"`after: {quoted(cursor)}` is not a cursor of this list: pass the `endCursor` of the "
            "previous page"
        ) from exc
