"""What each note links, as ids only (mixed into Neo4jStore; uses its `_read`).

A sweep of unlinked mentions (brain/service/mention_sweep.py) needs, per note, only the ids
its links point at: `links_from` ships every link's properties and builds a Link of each,
most of the sweep's store time. Here the query returns the ids alone, collected per source.
tests/contract holds the answer equal to `links_from`'s target ids on both stores.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from neo4j import Record

from brain.model import is_note_id

LINK_TARGETS = """
MATCH (s:Memory)-[:LINKS_TO]->(t)
WHERE s.id IN $ids
RETURN s.id AS source, collect(DISTINCT t.id) AS targets
"""


class Neo4jLinkTargets:
    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def link_targets(self, ids: Collection[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {i: set() for i in ids}
        sources = sorted(i for i in out if is_note_id(i))  # as links_from asks
        if sources:
            for r in self._read(LINK_TARGETS, ids=sources):
                out[r["source"]] = set(r["targets"])
        return out
