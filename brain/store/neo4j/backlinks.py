"""The backlink pages of Neo4jStore (mixed in; uses its `_read`): see brain/store/backlink_pages.py.

A page is cut in the query (ORDER BY + LIMIT, the cursor and the caller's reach as
parameters), so a hub note's backlinks are never shipped whole.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TypeVar

from neo4j import Record

from brain.model import Link
from brain.store.backlink_pages import LinkAfter
from brain.store.neo4j import cypher
from brain.store.neo4j.records import link_from
from brain.store.visibility import EVERYTHING, Reach

T = TypeVar("T")


class Neo4jBacklinks:
    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def _read_built(self, query: str, build: Callable[[list[Record]], T], **params: Any) -> T:
        raise NotImplementedError

    def backlinks(
        self, ids: Collection[str], first: int, after: LinkAfter | None = None, reach: Reach = EVERYTHING,
    ) -> dict[str, list[Link]]:
        wanted = sorted(set(ids))
        if first <= 0 or not wanted:
            return {i: [] for i in wanted}

        def pages(records: list[Record]) -> dict[str, list[Link]]:
            out: dict[str, list[Link]] = {i: [] for i in wanted}
            for r in records:
                out[r["target"]].append(link_from(r["source"], r["target"], r["props"]))
            return out

        # No cursor: "" sorts before every id; the parameters keep one type, so one plan.
        source, line, column = after if after is not None else ("", -1, -1)
        built = self._read_built(
            cypher.BACKLINKS_PAGE, pages, ids=wanted, first=first, source=source, line=line,
            column=column, scopes=reach.scope_list(),
        )
        return {i: list(links) for i, links in built.items()}  # the kept lists stay as they are

    def backlink_counts(self, ids: Collection[str], reach: Reach = EVERYTHING) -> dict[str, int]:
        out = dict.fromkeys(ids, 0)
        if out:
            for r in self._read(cypher.BACKLINK_COUNTS, ids=sorted(out), scopes=reach.scope_list()):
                out[r["id"]] = int(r["n"])
        return out
