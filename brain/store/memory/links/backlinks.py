"""The backlink pages of MemoryStore (mixed in; uses its lock, link table and link index):
see brain/store/backlink_pages.py. A page builds the rows of the page only.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from brain.model import Link
from brain.store.backlink_pages import LinkAfter, page_of_keys
from brain.store.memory.links.index import LinkIndex
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import as_link
from brain.store.visibility import EVERYTHING, Reach


class MemoryBacklinks:
    _lock: threading.RLock
    _out: LinkTable
    _links: LinkIndex

    def _ensure_indexes(self) -> None:
        raise NotImplementedError

    def backlinks(
        self, ids: Collection[str], first: int, after: LinkAfter | None = None, reach: Reach = EVERYTHING,
    ) -> dict[str, list[Link]]:
        with self._lock:
            self._ensure_indexes()
            def row(source: str, ordinal: int) -> Link:
                return as_link(self._out.row(source, ordinal))
            return {i: page_of_keys(self._links.ordered(i), first, after, reach, row) for i in ids}

    def backlink_counts(self, ids: Collection[str], reach: Reach = EVERYTHING) -> dict[str, int]:
        with self._lock:
            self._ensure_indexes()
            if reach.everything:
                return {i: len(self._links.incoming.get(i) or ()) for i in ids}
            return {i: sum(1 for s, _ in self._links.ordered(i) if reach.sees(s)) for i in ids}
