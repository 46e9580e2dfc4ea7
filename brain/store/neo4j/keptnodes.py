"""Nodes of the Neo4j store, kept built, one by one, until the graph token moves.

Kept answers (readcache.py) keep a query's records: a node fetch for another set of ids is
another query, and a kept answer is still built into brain's nodes on every call. The
dashboard's entities document asks for the sources of every entity's backlinks (1,142 notes
at 2,000), and building them from kept records took 0.5 s of Python a request, the read
0.15 s more; a random note's memory and neighbourhood documents ask for nodes that earlier
requests built already (link targets, index notes). So nodes are kept one by one, built,
under the same epoch as the kept answers (the graph token: dropped whenever it moves), and a
fetch reads only the ids it has not seen since. An id that is no node is kept as absent too.
Bounded by count and by size (docs/security.md, budgets): the least recently used go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection

from brain.model import Node
from brain.store.neo4j.readcache import ReadCache

MAX_NODES = 50_000
MAX_CHARS = 32 * 1024 * 1024  # every kept node's text, counted roughly (its properties' strings)

Fetch = Callable[[list[str]], dict[str, tuple[Node, int]]]  # id: (node, its size in characters)


class KeptNodes:
    """Built nodes by id (None: no such node), valid for one epoch of `reads`."""

    def __init__(
        self, reads: ReadCache, fetch: Fetch, *, max_nodes: int = MAX_NODES, max_chars: int = MAX_CHARS
    ) -> None:
        self._reads = reads
        self._fetch = fetch  # reads the given ids from the database and builds them
        self.max_nodes = max_nodes
        self.max_chars = max_chars
        self._lock = threading.Lock()
        self._nodes: OrderedDict[str, tuple[Node | None, int]] = OrderedDict()
        self._chars = 0
        self._epoch: int | None = None
        self.hits = 0
        self.misses = 0

    def get(self, ids: Collection[str], *, keep: bool = True) -> dict[str, Node]:
        """The nodes among `ids` that exist; `keep` False: read them all (a staged store's)."""
        wanted = sorted(set(ids))
        # The graph token is read at most once a window; None: nothing would tell of a change.
        epoch = self._reads.current() if keep else None
        if epoch is None:
            return {i: node for i, (node, _) in self._fetch(wanted).items()}
        out: dict[str, Node] = {}
        missing: list[str] = []
        with self._lock:
            if epoch != self._epoch:
                self._nodes.clear()
                self._chars = 0
                self._epoch = epoch
            for i in wanted:
                if i in self._nodes:
                    self._nodes.move_to_end(i)
                    node = self._nodes[i][0]
                    if node is not None:
                        out[i] = node
                else:
                    missing.append(i)
            self.hits += len(wanted) - len(missing)
            self.misses += len(missing)
        if not missing:
            return out
        found = self._fetch(missing)
        out.update((i, node) for i, (node, _) in found.items())
        with self._lock:
            # Read under `epoch`: kept only if the graph has not changed since (as readcache).
            if epoch == self._epoch and self._reads.epoch == epoch:
                for i in missing:
                    kept = found.get(i, (None, 8))
                    old = self._nodes.pop(i, None)
                    self._chars += kept[1] - (old[1] if old is not None else 0)
                    self._nodes[i] = kept
                while self._nodes and (len(self._nodes) > self.max_nodes or self._chars > self.max_chars):
                    self._chars -= self._nodes.popitem(last=False)[1][1]
        return out
