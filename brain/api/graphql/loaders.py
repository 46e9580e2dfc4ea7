"""Batched, thread-offloaded store access for one request.

Store calls are synchronous (the Neo4j store does network I/O), so every call runs in a
worker thread and the event loop never blocks. Resolvers of one level of a query ask the
loaders for single keys; each loader turns those into one batched store call, so a page of
a hundred memories with their owners and backlinks costs a handful of calls, not hundreds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import ParamSpec, TypeVar

import anyio.to_thread
from strawberry.dataloader import DataLoader

from brain.model import Link, MemoryNode, Node
from brain.store.backlink_pages import LinkAfter
from brain.store.base import GraphStore
from brain.store.visibility import EVERYTHING, Reach, ReachedGraph

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")

TypeCounts = dict[str | None, int]
BacklinkPage = tuple[str, int, LinkAfter | None]  # (node id, first, after)


async def in_thread(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a blocking call (a store query, a sync) in a worker thread."""
    return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))


def _batched(
    fetch: Callable[[list[K]], Mapping[K, V]], missing: Callable[[], V]
) -> Callable[[list[K]], Awaitable[list[V]]]:
    async def load(keys: list[K]) -> list[V]:
        found = await in_thread(fetch, keys)
        return [found[k] if k in found else missing() for k in keys]

    return load


class Loaders:
    """The DataLoaders of one request (HTTP) or one connection (WebSocket, uncached).

    A WebSocket connection lives for hours: caching there would serve stale nodes to every
    subscription event, so its loaders batch but never cache.
    """

    def __init__(self, store: GraphStore, *, cache: bool = True, reach: Reach = EVERYTHING) -> None:
        self.store = store
        self.reach = reach  # what fields computed outside the loaders (mentions, related) may show
        # An agent's request sees the graph as if other agents' private notes did not exist:
        # whatever field leads to a node or a link (a search hit's links, their targets,
        # backlinks, problems) asks these loaders (brain/store/visibility.py).
        graph: GraphStore | ReachedGraph = store if reach.everything else ReachedGraph(store, reach)
        # Nodes come without notes' bodies (get_nodes(bodies=False)): most fields that lead to
        # a note (a link's source, a neighbourhood) show its id, path or name, and a body is
        # read back from its file (embedded) or shipped (Neo4j) at a cost per note. A note's
        # `body` asks `bodies`, which fetches only the notes whose body a query asks for.
        self.nodes: DataLoader[str, Node | None] = DataLoader(
            _batched(lambda ids: graph.get_nodes(ids, bodies=False), _none), cache=cache
        )
        self.bodies: DataLoader[str, str] = DataLoader(_batched(_bodies_of(graph), str), cache=cache)
        self.links_from: DataLoader[str, list[Link]] = DataLoader(
            _batched(graph.links_from, list), cache=cache
        )
        self.links_to: DataLoader[str, list[Link]] = DataLoader(
            _batched(graph.links_to, list), cache=cache
        )
        # Backlinks are paged in the store (brain/store/backlink_pages.py): one key a page.
        self.backlinks: DataLoader[BacklinkPage, list[Link]] = DataLoader(_pages(graph), cache=cache)
        self.backlink_counts: DataLoader[str, int] = DataLoader(
            _batched(graph.backlink_counts, int), cache=cache
        )
        self.type_counts: DataLoader[str, TypeCounts] = DataLoader(
            _batched(store.memory_type_counts, dict), cache=cache
        )

    def prime_nodes(self, nodes: Sequence[Node], *, bodies: bool = True) -> None:
        """Nodes a query already holds (a page of memories, a note by path) need no second
        fetch; their bodies too if they came with them (`bodies`), else `body` reads them."""
        self.nodes.prime_many({n.id: n for n in nodes})
        if bodies:
            self.bodies.prime_many({n.id: n.body for n in nodes if isinstance(n, MemoryNode)})

    async def nodes_of(self, ids: Collection[str]) -> list[Node]:
        """The nodes that exist among `ids`, in order."""
        found = await self.nodes.load_many(list(ids))
        return [n for n in found if n is not None]


def _pages(graph: GraphStore | ReachedGraph) -> Callable[[list[BacklinkPage]], Awaitable[list[list[Link]]]]:
    """One store call per distinct (first, after): a page of memories asks the same of each."""

    def fetch(keys: list[BacklinkPage]) -> list[list[Link]]:
        groups: dict[tuple[int, LinkAfter | None], list[str]] = {}
        for node, first, after in keys:
            groups.setdefault((first, after), []).append(node)
        found = {
            (node, first, after): page
            for (first, after), nodes in groups.items()
            for node, page in graph.backlinks(nodes, first, after).items()
        }
        return [found.get(key, []) for key in keys]

    async def load(keys: list[BacklinkPage]) -> list[list[Link]]:
        return await in_thread(fetch, keys)

    return load


def _bodies_of(graph: GraphStore | ReachedGraph) -> Callable[[list[str]], dict[str, str]]:
    def fetch(ids: list[str]) -> dict[str, str]:
        found = graph.get_nodes(ids)
        return {i: node.body for i, node in found.items() if isinstance(node, MemoryNode)}

    return fetch


def _none() -> None:
    return None
