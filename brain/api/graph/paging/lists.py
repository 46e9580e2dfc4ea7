"""Pages of the smaller lists that still grow with what is on disk: a note's headings and
block ids (a 1 MiB note may hold tens of thousands), the memory scopes, a maintenance
report's findings.

Each takes `first` (default and most: the page bound of brain/api/graphql/limits/extensions.py) and
`after`, the `cursor` of the last item seen. A cursor names the item by a key of its own
(a heading's line, a finding's path, line and code), never an offset, as every cursor of
this API does (brain/api/graph/paging/cursors.py), so a page boundary stays put while items come
and go around it.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TypeVar

from brain.api.graph.paging.cursors import decode_cursor, encode_cursor, quoted
from brain.api.graphql.errors import UserError
from brain.parse import safejson

T = TypeVar("T")
Key = tuple[str | int, ...]


def keyed_cursor(kind: str, key: Key) -> str:
    return encode_cursor(kind, json.dumps(list(key), ensure_ascii=False))


def keyed_page(
    items: Sequence[T], key: Callable[[T], Key], kind: str, first: int, after: str | None
) -> list[T]:
    """The `first` items in `key` order after the item whose cursor is `after`."""
    ordered = sorted(items, key=key)
    start = 0
    if after is not None:
        keys = [key(item) for item in ordered]
        wanted = _after(kind, after, keys[0] if keys else None)
        start = bisect_right(keys, wanted)
    return ordered[start : start + max(0, first)]


def _after(kind: str, cursor: str, like: Key | None) -> Key:
    text = decode_cursor(kind, cursor)
    try:
        values = safejson.loads(text, max_depth=2)
        if not isinstance(values, list) or not all(isinstance(v, str | int) for v in values):
            raise TypeError(text)
        found = tuple(values)
        if like is not None and [type(v) for v in found] != [type(v) for v in like]:
            raise TypeError(text)  # would not compare with this list's keys
        return found
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"`after: {quoted(cursor)}` is not a cursor of this list: pass the `cursor` of the "
            "last item of the previous page"
        ) from exc
