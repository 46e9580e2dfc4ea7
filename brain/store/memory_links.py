"""The embedded store's indexes over its links: incoming links by target, links by the name
key they ask for, and the Unresolved nodes the links name. Kept apart from the rows they
index (brain/store/memory.py) so they can be built in one pass after a snapshot's restore."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from brain.model import UnresolvedNode
from brain.store.memory_rows import KEY, ORDINAL, SOURCE, TARGET_ID, LinkRow

LinkKey = tuple[str, int]  # (source id, ordinal): where a link sits in its source's list


class LinkIndex:
    def __init__(self) -> None:
        self.incoming: dict[str, set[LinkKey]] = defaultdict(set)
        self.by_key: dict[str, set[LinkKey]] = defaultdict(set)
        self.unresolved: dict[str, UnresolvedNode] = {}

    def add(self, row: LinkRow) -> None:
        ref = (row[SOURCE], row[ORDINAL])
        target_id = row[TARGET_ID]
        self.incoming[target_id].add(ref)
        self.by_key[row[KEY]].add(ref)
        if target_id.startswith("unresolved:") and target_id not in self.unresolved:
            self.unresolved[target_id] = UnresolvedNode(target_id.split(":", 1)[1])

    def remove(self, row: LinkRow, touched: set[str]) -> None:
        """Unindex a link; its target goes into `touched` (an Unresolved node may be orphaned)."""
        ref = (row[SOURCE], row[ORDINAL])
        incoming = self.incoming.get(row[TARGET_ID])
        if incoming is not None:
            incoming.discard(ref)
        self.by_key[row[KEY]].discard(ref)
        touched.add(row[TARGET_ID])

    def build(self, rows_by_source: Iterable[list[LinkRow]]) -> None:
        incoming, by_key = self.incoming, self.by_key
        for rows in rows_by_source:
            for row in rows:
                ref = (row[SOURCE], row[ORDINAL])
                incoming[row[TARGET_ID]].add(ref)
                by_key[row[KEY]].add(ref)
        self.unresolved = {
            t: UnresolvedNode(t.split(":", 1)[1]) for t in incoming if t.startswith("unresolved:")
        }
