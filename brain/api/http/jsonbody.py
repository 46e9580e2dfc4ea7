"""Reading JSON from callers: strict UTF-8, bounded nesting, and errors that say which.

`json.loads` alone turned three kinds of bad body into 500s: invalid UTF-8 (a
UnicodeDecodeError), nesting deep enough to exhaust the recursion limit (a RecursionError),
and nesting that parses but later makes graphql-core recurse as deep. Every failure here is
a `json.JSONDecodeError` (what strawberry's WebSocket transport expects of a bad message),
with a message that names the problem; HTTP callers get it as a 400.
"""

from __future__ import annotations

import json

MAX_JSON_DEPTH = 32  # arrays and objects inside each other; brain's inputs need three


def decode_json(data: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> object:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise json.JSONDecodeError(
                f"the body is not valid UTF-8 (byte {exc.start}, line {line}): send UTF-8 JSON",
                "", 0,
            ) from None
    else:
        text = data
    try:
        value = json.loads(text)
    except RecursionError:
        value = None  # nested past Python's limit: certainly past ours
        depth = max_depth + 1
    except json.JSONDecodeError as exc:
        raise json.JSONDecodeError(f"the body is not valid JSON: {exc.msg}", text[:0], exc.pos) from None
    else:
        depth = json_depth(value, max_depth)
    if depth > max_depth:
        raise json.JSONDecodeError(
            f"the JSON is nested more than {max_depth} levels deep (arrays and objects "
            "inside each other); no brain input needs that many", "", 0,
        )
    return value


def json_depth(value: object, stop_after: int) -> int:
    """How deep arrays and objects nest in `value` (a scalar is 0); stops past `stop_after`."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > stop_after:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest
