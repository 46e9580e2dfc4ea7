"""Everything a link can name, grouped the way completion asks for it, kept in step with the graph.

Completion runs on every keystroke after `[[`; asking the store for "the memories of this
scope" each time means a scan of every memory. The catalog keeps the answer (with each name's
lookup key worked out once) and follows the graph's change events, so a completion costs a
pass over the names it offers, not over the workspace.

A scope's memories are read from the store the first time a completion asks for them: a
note's completion needs its own scope and the shared one, and reading all 100,000 memories
of a big workspace before the first answer took more than a second of a warm start.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from brain.gcpause import gc_paused
from brain.model import (
    SHARED_SCOPE,
    AgentNode,
    EntityNode,
    Kind,
    MemoryNode,
    name_key,
)
from brain.resolve import LATCHAI_LINKS, LinkRules, NameEntry
from brain.store.base import GraphStore, MemoryFilter

if TYPE_CHECKING:  # the service (and the index behind it) is imported once indexing starts
    from brain.service.brain import GraphChange

Linkable = MemoryNode | EntityNode | AgentNode
ENTITY_TIERS: tuple[tuple[int, Kind], ...] = ((2, Kind.WORKFLOW), (3, Kind.CHAT), (4, Kind.WORK_ITEM))
AGENT_TIER = 5


@dataclass(frozen=True, slots=True)
class Entry:
    key: str
    node: Linkable


def reach_of(rules: LinkRules, source_scope: str) -> Callable[[Entry], bool] | None:
    """Which notes of other scopes a bare link from `source_scope` reaches by `rules` (None:
    latchai's, the `shared` scope)."""
    if rules is LATCHAI_LINKS:
        return None
    later = rules.levels(rules.parse("x"), source_scope)[1:]

    def shares(found: Entry) -> bool:
        node = found.node
        kind = node.note_kind if isinstance(node, MemoryNode) else node.kind
        probe = NameEntry(node.id, kind, found.key, getattr(node, "scope", None))
        return any(level(probe) for level in later)

    return shares


def entry(node: Linkable) -> Entry:
    name = node.ident if isinstance(node, EntityNode) else node.name
    if isinstance(node, MemoryNode) and node.body:
        node = replace(node, body="")  # completion never shows it: keep bodies out of memory
    return Entry(name_key(name), node)


class Catalog:
    """Memories by scope, entities by kind, agents: a read-mostly index for completion."""

    def __init__(self, store: GraphStore | None) -> None:
        self.store = store  # None: a fixed set of nodes (brain/lsp/startup/early.py), never rebuilt
        self._lock = threading.RLock()
        self._memories: dict[str, dict[str, Entry]] = {}  # the scopes read so far
        self._scopes: list[str] | None = []  # every scope with a memory; None: ask the store
        self._others: dict[Kind, dict[str, Entry]] = {}
        self._order: dict[tuple[str, str], list[Entry]] = {}
        self.built = False

    @classmethod
    def of(cls, store: GraphStore) -> Catalog:
        catalog = cls(store)
        catalog.rebuild()
        return catalog

    @classmethod
    def of_nodes(cls, nodes: Iterable[tuple[str, Linkable]]) -> Catalog:
        """A catalog of these (id, node) pairs alone (no store to follow)."""
        catalog = cls(None)
        catalog._fill(nodes)
        return catalog

    def rebuild(self) -> None:
        """Start again from the store: its entities and agents now, each scope's memories
        when first asked for."""
        assert self.store is not None
        store = self.store
        others: list[Linkable] = [
            *(e for _, kind in ENTITY_TIERS for e in store.list_entities(kind)), *store.list_agents(),
        ]
        with self._lock:
            self._fill((node.id, node) for node in others)
            self._scopes = None

    def _fill(self, nodes: Iterable[tuple[str, Linkable]]) -> None:
        """Take these (id, node) pairs as the whole catalog."""
        memories: dict[str, dict[str, Entry]] = {}
        others: dict[Kind, dict[str, Entry]] = {kind: {} for _, kind in ENTITY_TIERS}
        others[Kind.AGENT] = {}
        for node_id, node in nodes:
            if isinstance(node, MemoryNode):
                memories.setdefault(node.scope, {})[node_id] = entry(node)
            else:
                others.setdefault(node.kind, {})[node_id] = entry(node)
        with self._lock:
            self._memories, self._others, self.built = memories, others, True
            self._scopes = sorted(scope for scope, group in memories.items() if group)
            self._order = {}

    def _scope(self, scope: str) -> dict[str, Entry]:
        """The memories of a scope, read from the store on first use (called holding the
        lock: a change applied meanwhile waits, then lands on what was read)."""
        group = self._memories.get(scope)
        if group is None:
            group = {}
            if self.store is not None and self.built:
                # Without the cyclic collector: it rescanned the graph again and again while
                # 100,000 acyclic entries were made (1 s of the 2.5 s a full build took).
                with gc_paused():
                    found = self.store.list_memories(MemoryFilter(scope=scope), bodies=False)
                    group = {node.id: entry(node) for node in found}
                self._memories[scope] = group
        return group

    def apply(self, change: GraphChange) -> None:
        """Follow one graph change (called on the thread that applied it, after the store
        took it: a scope read meanwhile already holds it, and this puts it there again)."""
        if not self.built or change.kind == "relinked" or self.store is None:
            return
        kind = Kind.of_id(change.id)
        if kind is Kind.UNRESOLVED:
            return
        node = None if change.kind == "deleted" else self.store.get_nodes([change.id]).get(change.id)
        with self._lock:
            if kind is Kind.MEMORY and change.kind != "changed":
                self._scopes = None  # a scope may have come or gone: asked again when needed
            for scope, group in self._memories.items():
                if group.pop(change.id, None) is not None:
                    self._order.pop(("memory", scope), None)
            for other, group in self._others.items():
                if group.pop(change.id, None) is not None:
                    self._order.pop(("other", other.value), None)
            if isinstance(node, MemoryNode):
                if node.scope in self._memories:  # else read with its scope when asked
                    self._memories[node.scope][node.id] = entry(node)
                    self._order.pop(("memory", node.scope), None)
            elif isinstance(node, EntityNode | AgentNode):
                self._others.setdefault(node.kind, {})[node.id] = entry(node)
                self._order.pop(("other", node.kind.value), None)

    def find(self, node_id: str) -> Linkable | None:
        with self._lock:
            for scope in self.scopes():
                self._scope(scope)
            for group in [*self._memories.values(), *self._others.values()]:
                found = group.get(node_id)
                if found is not None:
                    return found.node
        return None

    def scopes(self) -> list[str]:
        """Every scope that holds a memory, sorted."""
        with self._lock:
            if self._scopes is None:
                assert self.store is not None
                self._scopes = sorted(self.store.memory_scopes())
            return list(self._scopes)

    def kinds(self) -> list[Kind]:
        """The kinds of the other nodes there are (workflows, chats, work items, agents)."""
        with self._lock:
            return [kind for kind, group in self._others.items() if group]

    def memories(self, scope: str) -> list[Entry]:
        """The memories of a scope, by name key."""
        with self._lock:
            return self._sorted(("memory", scope), self._scope(scope))

    def others(self, kind: Kind) -> list[Entry]:
        """The workflows, chats, work items or agents, by name key."""
        with self._lock:
            return self._sorted(("other", kind.value), self._others.get(kind, {}))

    def _sorted(self, name: tuple[str, str], group: dict[str, Entry]) -> list[Entry]:
        # Sorted once per change of the group; callers must not modify the list.
        cached = self._order.get(name)
        if cached is None:
            cached = self._order[name] = sorted(group.values(), key=lambda e: (e.key, e.node.id))
        return cached

    def groups(
        self, source_scope: str, kinds: Sequence[Kind] | None = None, scope: str | None = None,
        shares: Callable[[Entry], bool] | None = None,
    ) -> list[tuple[int, list[Entry]]]:
        """What a link from a note of `source_scope` can name, as (tier, entries by key).

        Tiers follow resolution order: the note's own scope, shared, then workflows, chats and
        work items. With `scope` (the user typed `scope/`), only that scope's memories; with
        `kinds` (a typed `workflow:` ...), only those kinds. Agents come after `agent:`.
        `shares`: which notes of other scopes a bare link reaches (a layout's rules, e.g. the
        lab's skills, tools and project notes); without it, the `shared` scope's.
        """
        if scope is not None:
            wanted = name_key(scope)
            return [(0, self.memories(found)) for found in self.scopes() if name_key(found) == wanted]
        chosen = kinds if kinds is not None else (Kind.MEMORY, Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM)
        out: list[tuple[int, list[Entry]]] = []
        if Kind.MEMORY in chosen:
            out.append((0, self.memories(source_scope)))
            if shares is not None:  # the layout's own rules say which other notes a link reaches
                others = [s for s in self.scopes() if s != source_scope]
                reached = [e for s in others for e in self.memories(s) if shares(e)]
                out.append((1, sorted(reached, key=lambda e: (e.key, e.node.id))))
            elif source_scope != SHARED_SCOPE:
                out.append((1, self.memories(SHARED_SCOPE)))
        out += [(tier, self.others(kind)) for tier, kind in ENTITY_TIERS if kind in chosen]
        if Kind.AGENT in chosen:
            out.append((AGENT_TIER, self.others(Kind.AGENT)))
        return out

    def candidates(
        self, source_scope: str, kinds: Sequence[Kind] | None = None, scope: str | None = None
    ) -> list[tuple[int, Entry]]:
        """`groups`, flattened to (tier, entry) in the same order."""
        return [(tier, e) for tier, group in self.groups(source_scope, kinds, scope) for e in group]
