"""A node's neighbourhood in one read, mixed into Neo4jStore (uses its `_read`).

The walk (brain/store/visibility.py `walk`) asked the database once per level, then for the
nodes and for their links: four round trips and more for the dashboard's depth-2
neighbourhood document (68/279 ms p50/p95 at 10,000 notes, issue 43). Here one statement
answers every level: each level's neighbours as NEIGHBOURS gives them (a note's link targets
and sources and its owner; another node's sources; an agent's notes by scope), and the next
level's frontier is the new nodes among them, so the walk in Python takes the same nodes in
the same order and cuts at `limit` as before. A level is not expanded once more than `limit`
nodes are reached: the walk has cut by then and adds nothing more (at exactly `limit` the next
level still comes, which tells whether anything was cut).

Only for a caller who sees everything (the GraphQL dashboard): within a reach, a link into a
note out of it leads to an Unresolved node that no stored edge names (NEIGHBOURS_ASKING), and
that walk keeps its read per level. The statements are fixed text, one per depth up to
MAX_DEPTH, with the node, the limit and nothing else as parameters.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from typing import Any

from neo4j import Record

from brain.model import Link, Node, agent_id, name_key, owner_of_id, unresolved_id
from brain.store.base import Subgraph
from brain.store.neo4j import cypher
from brain.store.neo4j.cypher import PRIMARY_LABELS
from brain.store.neo4j.records import link_from
from brain.store.visibility import EVERYTHING, Reach, asked_key, walk

MAX_DEPTH = 3  # the GraphQL bound (Limits.max_neighborhood_depth) and the MCP tool's

# The neighbours of every id of `frontier`, as a list of {id, ns} (an id may come in more than
# one row: a note and an agent's scope branch; the rows are merged in Python).
_LEVEL = (
    "CALL ({frontier}) {{\n"
    "  UNWIND {frontier} AS i\n"
    "  CALL (i) {{\n"
    "    MATCH (n:Memory {{id: i}})\n"
    "    RETURN [(n)-[:LINKS_TO]->(t) | t.id] + [(s)-[:LINKS_TO]->(n) | s.id]\n"
    "           + CASE WHEN n.owner IS NULL THEN [] ELSE ['agent:' + n.owner] END AS ns\n"
    + "".join(
        f"    UNION ALL\n    MATCH (n:{label} {{{{id: i}}}}) RETURN [(s)-[:LINKS_TO]->(n) | s.id] AS ns\n"
        for label in PRIMARY_LABELS if label != "Memory"
    )
    + "    UNION ALL\n"
    "    WITH i WHERE i STARTS WITH 'agent:'\n"
    "    MATCH (m:Memory {{scope: substring(i, 6)}})\n"
    "    RETURN collect(m.id) AS ns\n"
    "  }}\n"
    "  RETURN collect({{id: i, ns: ns}}) AS {level}\n"
    "}}\n"
)

# From one level to the next: the new ids among its neighbours, none once past the limit.
_NEXT = (
    "WITH {carried}, seen_{n}, reduce(a = [], x IN {level} | a + x.ns) AS reached\n"
    "UNWIND CASE WHEN size(reached) = 0 THEN [null] ELSE reached END AS r\n"
    "WITH {carried}, seen_{n}, collect(DISTINCT r) AS out\n"
    "WITH {carried}, seen_{n}, [x IN out WHERE NOT x IN seen_{n}] AS fresh\n"
    "WITH {carried}, seen_{n} + fresh AS seen_{m},\n"
    "     CASE WHEN size(seen_{n} + fresh) <= $limit THEN fresh ELSE [] END AS frontier_{m}\n"
)


def _statement(depth: int) -> str:
    """The statement of a walk `depth` levels deep: levels l0..l{depth-1}, in one list."""
    parts = ["WITH [$id] AS frontier_0, [$id] AS seen_0\n"]
    levels: list[str] = []
    for n in range(depth):
        level = f"l{n}"
        parts.append(_LEVEL.format(frontier=f"frontier_{n}", level=level))
        levels.append(level)
        if n + 1 < depth:
            carried = ", ".join(levels)
            parts.append(_NEXT.format(carried=carried, level=level, n=n, m=n + 1))
    parts.append("RETURN " + " + ".join(levels) + " AS levels")
    return "".join(parts)


WALKS: dict[int, str] = {depth: _statement(depth) for depth in range(1, MAX_DEPTH + 1)}


class Neo4jAround:
    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
        raise NotImplementedError

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        raise NotImplementedError

    def neighborhood(self, node_id: str, depth: int, limit: int, reach: Reach = EVERYTHING) -> Subgraph:
        if reach.everything and 0 < depth <= MAX_DEPTH:
            # No read first to see that the node exists: the walk's read of its nodes always
            # holds the start, and tells (one round trip less a neighbourhood, issue 43).
            around = self._around(node_id, depth, limit)

            def neighbours(ids: list[str]) -> Mapping[str, set[str]]:
                return around
        else:
            if not self.get_nodes([node_id], bodies=False):
                return Subgraph((), ())

            def neighbours(ids: list[str]) -> Mapping[str, set[str]]:
                return self._neighbours(ids, reach)
        stored: dict[str, Node] = {}

        def nodes(ids: list[str]) -> Mapping[str, Node]:
            stored.update(self.get_nodes(ids, bodies=False))
            return stored

        found = walk(node_id, depth, limit, reach, neighbours, nodes, self.links_from)
        if node_id not in stored:  # no such node (the walk read it among the others)
            return Subgraph((), ())
        return Subgraph(found.nodes, found.edges, found.truncated)

    def _around(self, node_id: str, depth: int, limit: int) -> dict[str, set[str]]:
        """Each node the walk may expand, with its neighbours (all `depth` levels, one read)."""
        out: dict[str, set[str]] = defaultdict(set)
        for row in self._read(WALKS[depth], id=node_id, limit=limit)[0]["levels"]:
            out[row["id"]].update(row["ns"])
        return out

    def _neighbours(self, ids: list[str], reach: Reach) -> dict[str, set[str]]:
        """A BFS level's neighbours within `reach` (the query filters; brain/store/visibility.py)."""
        out: dict[str, set[str]] = defaultdict(set)
        scopes = reach.scope_list()
        for r in self._read(cypher.NEIGHBOURS, ids=ids, scopes=scopes):
            node = r["id"]
            out[node].update(r["ids"])
            out[node].update(
                t["id"] if t["seen"] else unresolved_id(name_key(t["target"])) for t in r["out"]
            )
            owner = owner_of_id(node)
            if owner is not None:
                out[node].add(agent_id(owner))
        keys = {key for i in ids if (key := None if scopes is None else asked_key(i)) is not None}
        if keys:
            for r in self._read(cypher.NEIGHBOURS_ASKING, keys=sorted(keys), scopes=scopes):
                link = link_from(r["source"], r["target"], r["props"])
                target = unresolved_id(name_key(link.target))
                if target in ids and reach.asks_for(link, target):
                    out[target].add(link.source)
        return out
