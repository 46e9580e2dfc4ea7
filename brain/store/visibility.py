"""What one caller may know exists, and the graph as that caller sees it.

An agent reaches its own notes and the shared ones, plus everything that is not a note
(agents, workflows, chats, work items, unresolved targets); another agent's private notes
are not merely hidden from it but absent: every answer it gets must be the answer it would
get if those notes did not exist (design.md section 3: memories are private to their agent).
The stored graph is the operator's, where an explicit `[[bob/x]]` written in alice's note
does resolve to bob's note; alice must see that link exactly as she would see it if bob had
no such note: broken, pointing to `unresolved:bob/x`, naming no candidate.

`Reach.link` is that projection of one stored link, and `walk` the neighbourhood walk over
projected edges, which never steps onto a node out of reach (filtering the nodes of an
unfiltered walk afterwards still lets the walk pass through them, and cuts it short at the
limit with nodes the caller never sees). Both stores walk with it; each supplies the
neighbours of a level, filtered by the reachable scopes in its own query.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brain.model import (
    SHARED_SCOPE,
    Edge,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Node,
    UnresolvedNode,
    agent_id,
    name_key,
    unresolved_id,
)

if TYPE_CHECKING:  # the interface imports this module
    from brain.store.base import GraphStore

# Nodes an agent owns (its folder's notes, daily notes and files); skills and tools have none,
# and neither have notes of a scope with a colon (MemoryNode.owner).
PRIVATE_PREFIXES = (Kind.MEMORY.value + ":", Kind.DAILY_NOTE.value + ":", Kind.FILE.value + ":")
_UNRESOLVED = Kind.UNRESOLVED.value + ":"


@dataclass(frozen=True, slots=True)
class Reach:
    """The scopes whose notes a caller may know of; `scopes` None is every scope (an admin,
    the operator's CLI, an open server)."""

    scopes: frozenset[str] | None = None

    @classmethod
    def of_agent(cls, agent: str) -> Reach:
        return cls(frozenset({agent, SHARED_SCOPE}))

    @property
    def everything(self) -> bool:
        return self.scopes is None

    def sees(self, node_id: str) -> bool:
        scopes = self.scopes
        if scopes is None or not node_id.startswith(PRIVATE_PREFIXES):
            return True
        scope = node_id.split(":", 1)[1].split("/", 1)[0]
        # A scope with a colon is nobody's (lab's `project:<p>`: shared by name, no owner).
        return scope in scopes or ":" in scope

    def sees_agent(self, name: str) -> bool:
        """Whether the agent's own folder is in reach (its memory-off problem, say)."""
        return self.scopes is None or name in self.scopes

    def sees_path(self, rel: str) -> bool:
        """Whether a file-level problem's path is in reach: one under `memory/<scope>/` (the
        scope folders of section 1) is its scope's; any other path is nobody's note."""
        if self.scopes is None:
            return True
        parts = rel.split("/")
        return len(parts) < 2 or parts[0] != "memory" or parts[1] in self.scopes

    def scope_list(self) -> list[str] | None:
        """The scopes as a Cypher parameter (sorted: the same query text and values every time)."""
        return None if self.scopes is None else sorted(self.scopes)

    def link(self, link: Link) -> Link:
        """The link as this caller sees it: one into a note out of reach is the link it would
        be if that note did not exist (broken, to its Unresolved node, no candidates); a
        broken bare name loses the candidates it may not know of (design.md 3: bare names
        never reach another agent's folder, so those candidates are all out of reach)."""
        if self.scopes is None:
            return link
        if not self.sees(link.target_id):
            return link._replace(
                status=LinkStatus.BROKEN, target_id=unresolved_id(name_key(link.target)), candidates=(),
            )
        if not link.candidates:
            return link
        kept = tuple(c for c in link.candidates if self.sees(c))
        if len(kept) == len(link.candidates):
            return link
        if link.status is LinkStatus.AMBIGUOUS:
            # Only an explicit scope makes an ambiguity among one scope's notes: all out of reach.
            return link._replace(status=LinkStatus.BROKEN, candidates=())
        return link._replace(candidates=kept)

    def asks_for(self, link: Link, node_id: str) -> bool:
        """Whether `link`, seen by this caller, points to the Unresolved node `node_id` only
        because its stored target is out of reach (so no stored edge says so)."""
        return (
            self.scopes is not None and self.sees(link.source) and not self.sees(link.target_id)
            and unresolved_id(name_key(link.target)) == node_id
        )


EVERYTHING = Reach()


def asked_key(node_id: str) -> str | None:
    """The name key (`Link.key`) of the links that may point to Unresolved `node_id` once
    projected: the last segment of its target (`unresolved:bob/x` -> `x`)."""
    if not node_id.startswith(_UNRESOLVED):
        return None
    return name_key(node_id[len(_UNRESOLVED):].rsplit("/", 1)[-1])


def as_seen(node_id: str, found: Mapping[str, Node]) -> Node | None:
    """The node a caller sees under `node_id`: the stored one, or for an Unresolved id a
    projected link points to (its note exists, out of reach) the Unresolved node it would be."""
    node = found.get(node_id)
    if node is None and node_id.startswith(_UNRESOLVED):
        return UnresolvedNode(node_id[len(_UNRESOLVED):])
    return node


Neighbours = Callable[[list[str]], Mapping[str, Collection[str]]]


@dataclass(frozen=True, slots=True)
class Walked:
    nodes: list[Node]
    edges: list[Edge]
    truncated: bool


def walk(
    start: str, depth: int, limit: int, reach: Reach, neighbours: Neighbours,
    get_nodes: Callable[[list[str]], Mapping[str, Node]],
    links_from: Callable[[list[str]], Mapping[str, list[Link]]],
) -> Walked:
    """Breadth first from `start`, `depth` levels, at most `limit` nodes (neighbours taken in
    sorted order, so the same nodes every time), over the edges `reach` sees. `neighbours`
    answers a level at once, already without nodes out of reach and with projected targets."""
    if not reach.sees(start):
        return Walked([], [], False)
    seen = {start: 0}
    frontier = [start]
    truncated = False
    for level in range(max(depth, 0)):
        if not frontier:
            break
        found = neighbours(frontier)
        reached: list[str] = []
        for current in frontier:
            for neighbour in sorted(found.get(current, ())):
                if neighbour in seen:
                    continue
                if len(seen) >= limit:
                    truncated = True
                    break
                seen[neighbour] = level + 1
                reached.append(neighbour)
            if truncated:
                break
        frontier = reached
    ids = sorted(seen)
    stored = get_nodes(ids)
    nodes = [node for i in ids if (node := as_seen(i, stored)) is not None]
    links = links_from([i for i in ids if isinstance(stored.get(i), MemoryNode)])
    edges: list[Edge] = []
    for i in ids:
        for stored_link in links.get(i, ()):
            link = reach.link(stored_link)
            if link.target_id in seen:
                edges.append(Edge("LINKS_TO", i, link.target_id, link))
        memory = stored.get(i)
        if isinstance(memory, MemoryNode) and memory.owner and agent_id(memory.owner) in seen:
            edges.append(Edge("REMEMBERS", agent_id(memory.owner), i))
    return Walked(nodes, edges, truncated)


def projected_targets(reach: Reach, links: Iterable[Link]) -> set[str]:
    """Where a note's links point, as `reach` sees them."""
    if reach.everything:
        return {link.target_id for link in links}
    return {reach.link(link).target_id for link in links}


class ReachedGraph:
    """A store's node and link look-ups as `reach` sees them (the GraphQL loaders of an agent's
    request): nodes out of reach are absent, an Unresolved node a projected link points to is
    there, links are projected, and links into a node come only from sources in reach."""

    def __init__(self, store: GraphStore, reach: Reach) -> None:
        self.store = store
        self.reach = reach

    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
        found = self.store.get_nodes([i for i in ids if self.reach.sees(i)], bodies=bodies)
        return {i: node for i in ids if self.reach.sees(i) and (node := as_seen(i, found)) is not None}

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        found = self.store.links_from([i for i in ids if self.reach.sees(i)])
        return {i: [self.reach.link(link) for link in found.get(i, [])] for i in ids}

    def links_to(self, ids: Collection[str]) -> dict[str, list[Link]]:
        reach = self.reach
        found = self.store.links_to([i for i in ids if reach.sees(i)])
        out = {i: [reach.link(link) for link in found.get(i, []) if reach.sees(link.source)] for i in ids}
        keys = {key for i in ids if (key := asked_key(i)) is not None}
        for link in self.store.links_with_keys(sorted(keys)) if keys else ():
            target = unresolved_id(name_key(link.target))
            if target in out and reach.asks_for(link, target):
                out[target].append(reach.link(link))
        for links in out.values():
            links.sort(key=lambda link: (link.source, link.ordinal))
        return out

    def backlinks(
        self, ids: Collection[str], first: int, after: tuple[str, int, int] | None = None,
        reach: Reach = EVERYTHING,
    ) -> dict[str, list[Link]]:
        """A page of the links into each node as this caller sees them: the store cuts the
        page from sources in reach; an Unresolved node also gets the caller's links that
        point there only because their note is out of reach (merged, then cut again)."""
        seen = [i for i in ids if self.reach.sees(i)]
        found = self.store.backlinks(seen, first, after, self.reach) if seen else {}
        out: dict[str, list[Link]] = {}
        for i in ids:
            page = [self.reach.link(link) for link in found.get(i, [])]
            asked = self._asked(i) if i in found else []
            if asked:
                page.extend(link for link in asked if after is None or _order(link) > after)
                page.sort(key=_order)
                del page[max(0, first):]
            out[i] = page
        return out

    def backlink_counts(self, ids: Collection[str], reach: Reach = EVERYTHING) -> dict[str, int]:
        seen = [i for i in ids if self.reach.sees(i)]
        counts = self.store.backlink_counts(seen, self.reach)
        return {i: counts.get(i, 0) + len(self._asked(i)) if i in counts else 0 for i in ids}

    def _asked(self, node_id: str) -> list[Link]:
        key = asked_key(node_id)
        if key is None:
            return []
        return [
            self.reach.link(link) for link in self.store.links_with_keys([key])
            if self.reach.asks_for(link, node_id)
        ]


def _order(link: Link) -> tuple[str, int, int]:
    return (link.source, link.line, link.column)
