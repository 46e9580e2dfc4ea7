"""Pages of a node's links, backlinks and problems: every list that grows with the workspace.

A note with 450,000 links made `backlinks` answer 7 MB in 8-13 s, every time, unpaged. Each
such field now takes `first` (default and most: the page size bound of brain/api/graphql/limits/extensions.py,
checked for every `first` argument) and `after` (the `cursor` of the last item seen), and
its node has a count beside it (`backlinkCount`, ...) so a client knows a list goes on.

A node's backlinks are cut into a page by the store itself (brain/store/backlink_pages.py), so
a page of a hub's costs the page; a note's own links are at most its link budget.

A link's cursor names the link (source, line, column), never an offset, as the other cursors
of this API do (brain/api/graph/paging/cursors.py): a page boundary stays put while links come and go.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from typing import TypeVar

from brain.api.graph.paging.cursors import decode_cursor, encode_cursor, problem_after, problem_key, quoted
from brain.api.graphql.errors import UserError
from brain.model import Link, Node, Problem

PAGE = 100  # the default page: the most `first` may ask for (Limits.max_page_size)

LinkKey = tuple[str, int, int]


def link_key(link: Link) -> LinkKey:
    return (link.source, link.line, link.column)


def link_cursor(link: Link) -> str:
    return encode_cursor("link", json.dumps(link_key(link), ensure_ascii=False))


def link_after(cursor: str) -> LinkKey:
    text = decode_cursor("link", cursor)
    try:
        source, line, column = json.loads(text)
        return (str(source), int(line), int(column))
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"`after: {quoted(cursor)}` is not a cursor of this list: pass the `cursor` of the "
            "last link of the previous page"
        ) from exc


def link_page(links: Sequence[Link], first: int, after: str | None) -> list[Link]:
    """The `first` links after the cursor `after`, in (source, line, column) order."""
    ordered = sorted(links, key=link_key)
    start = 0
    if after is not None:
        start = bisect_right([link_key(lk) for lk in ordered], link_after(after))
    return ordered[start : start + max(0, first)]


N = TypeVar("N", bound=Node)


def node_page(nodes: Sequence[N], first: int, after: str | None) -> list[N]:
    """The `first` nodes in id order after the node whose id is `after` (agents, entities:
    a node's id is its cursor, stable while others come and go)."""
    ordered = sorted(nodes, key=lambda n: n.id)
    start = 0 if after is None else bisect_right([n.id for n in ordered], after)
    return ordered[start : start + max(0, first)]


def problem_page(problems: Sequence[Problem], first: int, after: str | None) -> list[Problem]:
    """The `first` problems, in path, line, column, code order, after the cursor `after`."""
    ordered = sorted(problems, key=problem_key)
    start = 0
    if after is not None:
        start = bisect_right([problem_key(p) for p in ordered], problem_after(after))
    return ordered[start : start + max(0, first)]
