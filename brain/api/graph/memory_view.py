"""`memory(path:)` in one store read where the store can (brain/store/views.py).

The note's own fields then find its links, the first page of its backlinks and the nodes
they name already in this request's loaders, instead of reading them in two more rounds.
Only for the live graph, a caller who sees everything (an agent's request projects links and
hides nodes: brain/store/visibility.py) and loaders that keep what they are given (HTTP).
"""

from __future__ import annotations

from brain.api.graph.link_pages import PAGE
from brain.api.graphql.loaders import Loaders, in_thread
from brain.model import MemoryNode
from brain.store.base import GraphStore
from brain.store.views import MemoryViews


async def memory_at(loaders: Loaders, store: GraphStore, path: str) -> MemoryNode | None:
    if not (isinstance(store, MemoryViews) and loaders.reach.everything and loaders.nodes.cache):
        return await in_thread(store.memory_by_path, path)
    view = await in_thread(store.memory_view, path, PAGE)
    if view is None:
        return None
    memory = view.memory
    loaders.nodes.prime_many({**view.nodes, memory.id: memory})
    loaders.links_from.prime(memory.id, view.links)
    loaders.backlinks.prime((memory.id, view.first, None), view.backlinks)  # Memory.backlinks' first page
    return memory
