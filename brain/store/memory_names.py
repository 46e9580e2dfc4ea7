"""The embedded store's name index (name key -> {node id: NameEntry}), lazy after a restore.

Every link resolution and every completion asks it for a few keys. After a snapshot's
restore, building all of it (a NameEntry and a dict for each of 100,000 names) took 0.3 s
of a warm language server's first completion, which asks for about a hundred keys. So a
restore only groups the memories' ids by key (their keys folded in one pass: 0.08 s) and a
key's entries are built the first time it is asked for. The agents, entities and files (a
few thousand) are indexed at once.

A memory's key and kind follow from its id (`memory:scope/name`, the key that of the name's
last segment), so an id grouped under a key stays there; one written since is indexed by
the write itself, and one deleted since is skipped when its key is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import overload

from brain.model import AgentNode, EntityNode, FileNode, MemoryNode
from brain.resolve import NameEntry
from brain.store.linking import entry_of
from brain.store.memory_rows import MemoryRow, memory_key, name_entry


class NameIndex(dict[str, dict[str, NameEntry]]):
    """name key -> {node id: entry}; a key not built yet is built from the restored memories
    on first access (`index[key]`, `get`, `in`). An absent key reads as empty, as a
    defaultdict's, and `index[key]` inserts it (a write adds to it)."""

    def __init__(self) -> None:
        super().__init__()
        self._pending: dict[str, str | list[str]] = {}  # key -> memory id(s), entries unbuilt
        self._memories: Mapping[str, MemoryNode | MemoryRow] = {}

    def index_lazily(
        self, memories: Mapping[str, MemoryNode | MemoryRow],
        others: Iterable[Mapping[str, AgentNode | EntityNode | FileNode]],
    ) -> None:
        """Take a restored store's nodes: the memories (held by `memories`, which the store
        keeps current) grouped by key, the other nodes indexed now."""
        self.clear()
        self._memories = memories
        pending: dict[str, str | list[str]] = {}
        for node_id, held in memories.items():
            key = memory_key(held)
            ids = pending.get(key)
            if ids is None:
                pending[key] = node_id
            elif type(ids) is list:
                ids.append(node_id)
            else:
                pending[key] = [ids, node_id]  # type: ignore[list-item]
        self._pending = pending
        for group in others:
            for node in group.values():
                entry = entry_of(node)
                self[entry.key][entry.id] = entry

    def __missing__(self, key: str) -> dict[str, NameEntry]:
        built = self._build(key)
        self[key] = built
        return built

    @overload  # type: ignore[override]
    def get(self, key: str, /) -> dict[str, NameEntry] | None: ...
    @overload
    def get(self, key: str, default: dict[str, NameEntry], /) -> dict[str, NameEntry]: ...

    def get(self, key: str, default: dict[str, NameEntry] | None = None, /) -> dict[str, NameEntry] | None:
        if key in self._pending:
            return self[key]
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or key in self._pending

    def _build(self, key: str) -> dict[str, NameEntry]:
        ids = self._pending.pop(key, None)
        if ids is None:
            return {}
        memories = self._memories
        built: dict[str, NameEntry] = {}
        for node_id in [ids] if type(ids) is str else ids:
            held = memories.get(node_id)
            if held is not None:  # else deleted since the restore
                built[node_id] = name_entry(held, node_id)
        return built

    def clear(self) -> None:
        super().clear()
        self._pending = {}
        self._memories = {}
