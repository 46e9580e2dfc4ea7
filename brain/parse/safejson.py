"""JSON from files brain does not control, with a nesting budget.

`json.loads` recurses once per level: ten thousand `[` are a RecursionError (a traceback in
`brain check`, a dead request in `brain serve`), and whatever walks the result afterwards
recurses too. The depth is measured first, in C-speed passes over the text (strings are cut
out, then only brackets count), so a document over MAX_DEPTH is refused before it is parsed.
A refusal is a `JSONBudgetError`, a ValueError with the line of the first bracket too deep,
so callers that already catch malformed JSON report it the same way.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64

_STRING_RE = re.compile(r'"(?:[^"\\\n]++|\\.)*+"')  # possessive: no backtracking stack
_NOT_BRACKET = re.compile(r"[^\[\]{}\n]+")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


_ID_RE = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


def recover_id(body: bytes) -> int | str | None:
    """The JSON-RPC id of a message that cannot be parsed (too long, too deep, not JSON), when
    its text shows one, else None: so the error answers the request (LSP and MCP on stdio)."""
    m = _ID_RE.search(body[:4096]) or _ID_RE.search(body[-4096:])  # ids come first or last
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


class JSONBudgetError(ValueError):
    def __init__(self, message: str, line: int, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.fix = fix


def depth_of(text: str) -> tuple[int, int]:
    """(maximum nesting depth, 1-based line where it is first reached) of JSON text."""
    skeleton = _NOT_BRACKET.sub("", _STRING_RE.sub('""', text))
    if not skeleton.strip("\n"):
        return 0, 1
    steps = [_STEP.get(ord(c), 0) for c in skeleton]
    levels = list(accumulate(steps))
    deepest = max(levels)
    at = levels.index(deepest)
    return deepest, skeleton.count("\n", 0, at) + 1


def check_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    depth, line = depth_of(text)
    if depth > max_depth:
        raise JSONBudgetError(
            f"JSON nested {depth:,} levels deep, over the limit of {max_depth}", line,
            f"flatten the structure to at most {max_depth} levels",
        )


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` within the nesting budget; raises ValueError (maybe JSONBudgetError)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    check_depth(text, max_depth)
    try:
        return json.loads(text)
    except RecursionError:  # unreachable within the budget, unless the stack is already deep
        raise JSONBudgetError("JSON nested too deeply", 1, "flatten the structure") from None
