"""A note's page in one read (brain/store/views.py), mixed into Neo4jStore (uses its `_read`).

The note, its links, the first page of its backlinks (ordered and cut as BACKLINKS_PAGE cuts
them, in the query) and the nodes at both ends, in one statement on the documented labels
(the live set is put in by `_read`, as for every read): one round trip where the memory
document took three levels of them. A placeholder (a node a staged first sync has not written
yet) is no node here either, as in GET_NODES.
"""

from __future__ import annotations

from typing import Any

from neo4j import Record

from brain.model import Link, Node
from brain.store.neo4j.cypher import PRIMARY_LABELS
from brain.store.neo4j.generations.staged import unstaged
from brain.store.neo4j.records import link_from, memory_from, node_from
from brain.store.views import MemoryView

MEMORY_VIEW = """
MATCH (m:Memory {path: $path})
RETURN m {.*, embedding: null} AS props,
       [(m)-[r:LINKS_TO]->(t) | {target: t.id, props: properties(r)}] AS links,
       [(m)-[:LINKS_TO]->(t) WHERE t.placeholder IS NULL
         | {labels: labels(t), props: t {.*, embedding: null}}]
         AS targets,
       COLLECT {
         MATCH (s:Memory)-[r:LINKS_TO]->(m)
         WITH s, r ORDER BY s.id, r.line, r.column LIMIT $first
         RETURN {source: s.id, props: properties(r), labels: labels(s), node: s {.*, embedding: null}}
       } AS backlinks
"""


def _label(labels: list[str]) -> str:
    """The node's primary label, as documented (whatever set of labels is live)."""
    return next(label for label in map(unstaged, labels) if label in PRIMARY_LABELS)


class Neo4jViews:
    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def memory_view(self, path: str, first: int) -> MemoryView | None:
        found = self._read(MEMORY_VIEW, path=path, first=max(0, first))
        if not found:
            return None
        r = found[0]
        memory = memory_from(r["props"])
        links = sorted((link_from(memory.id, x["target"], x["props"]) for x in r["links"]),
                       key=lambda link: link.ordinal)
        backlinks: list[Link] = []
        nodes: dict[str, Node] = {}
        for x in r["targets"]:
            nodes.setdefault(x["props"]["id"], node_from(_label(x["labels"]), x["props"]))
        for x in r["backlinks"] if first > 0 else ():
            backlinks.append(link_from(x["source"], memory.id, x["props"]))
            nodes.setdefault(x["source"], node_from(_label(x["labels"]), x["node"]))
        return MemoryView(memory, links, backlinks, first, nodes)
