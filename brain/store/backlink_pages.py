"""A page of the links into one node, cut inside the store.

A note with 450,000 backlinks made every page of `backlinks` load, build and sort all of them
before the page was cut (GraphQL, MCP): store work grew with the hub, not with the page. The
store now takes the page itself: `first` links after a cursor, in (source id, line, column)
order, from sources the caller may see (brain/store/visibility.py). The cursor names a link
(never an offset), so a page boundary stays put while links come and go.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from brain.model import Link
from brain.store.visibility import Reach

LinkAfter = tuple[str, int, int]  # (source id, line, column) of the last link seen


def link_order(link: Link) -> LinkAfter:
    return (link.source, link.line, link.column)


def page_of_keys(
    keys: Sequence[tuple[str, int]], first: int, after: LinkAfter | None, reach: Reach,
    row: Callable[[str, int], Link],
) -> list[Link]:
    """The page from `keys`, the (source id, ordinal) of every link into the node, sorted.

    A source's links are in (line, column) order by ordinal (brain/parse/note.py sorts them),
    so the sorted keys are in the page's order. Rows are built for the page only (and for the
    cursor's own source, at most a note's link budget); a source out of reach is stepped over
    with its whole scope in one bisection (ids group by scope: `memory:bob/...`)."""
    out: list[Link] = []
    at = 0 if after is None else bisect_left(keys, (after[0], -1))
    end = len(keys)
    while at < end and len(out) < first:
        source, ordinal = keys[at]
        if not reach.sees(source):
            at = bisect_left(keys, (_past_scope(source),), at + 1)
            continue
        link = row(source, ordinal)
        if after is None or link_order(link) > after:
            out.append(link)
        at += 1
    return out


def _past_scope(source: str) -> str:
    """The least id after every id of `source`'s scope: `memory:bob/x` -> `memory:bob0`
    ('0' follows '/'; a scope holds no '/')."""
    kind, rest = source.split(":", 1)
    return f"{kind}:{rest.split('/', 1)[0]}0"
