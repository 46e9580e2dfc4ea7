"""The embedded store's name index (name key -> the entries of the nodes of that name), lazy
after a restore.

Every link resolution and every completion asks it for a few keys. After a snapshot's
restore, building all of it (a NameEntry for each of 100,000 names) took 0.3 s of a warm
language server's first completion, which asks for about a hundred keys. So a restore only
groups the memories' ids by key (their keys folded in one pass: 0.08 s) and a key's entries
are built the first time it is asked for. The agents, entities and files (a few thousand)
are indexed at once.

Most keys name one node. Such a key holds its entry bare; a key shared by several nodes
holds a dict of them by id. A one-entry dict a key was 17 MB at 100,000 notes.

A memory's key and kind follow from its id (`memory:scope/name`, the key that of the name's
last segment), so an id grouped under a key stays there; one written since is indexed by
the write itself, and one deleted since is skipped when its key is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from brain.model import AgentNode, EntityNode, FileNode, MemoryNode
from brain.resolve import NameEntry
from brain.store.linking import entry_of
from brain.store.memory.rows import MemoryRow, memory_key, name_entry

Held = NameEntry | dict[str, NameEntry]  # one node's entry, or several by id


class NameIndex:
    """name key -> the entries of that name; a key not built yet is built from the restored
    memories when first asked for."""

    def __init__(self) -> None:
        self._keys: dict[str, Held] = {}
        self._pending: dict[str, str | list[str]] = {}  # key -> memory id(s), entries unbuilt
        self._memories: Mapping[str, MemoryNode | MemoryRow] = {}

    def clear(self) -> None:
        self._keys = {}
        self._pending = {}
        self._memories = {}

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
                self.put(entry_of(node))

    def put(self, entry: NameEntry) -> None:
        key = entry.key
        held = self._held(key)
        if held is None or (type(held) is NameEntry and held.id == entry.id):
            self._keys[key] = entry
        elif type(held) is NameEntry:
            self._keys[key] = {held.id: held, entry.id: entry}
        else:
            held[entry.id] = entry  # type: ignore[index]

    def drop(self, key: str, node_id: str) -> None:
        held = self._held(key)
        if type(held) is NameEntry:
            if held.id == node_id:
                del self._keys[key]
        elif held is not None:
            held.pop(node_id, None)  # type: ignore[union-attr]
            if len(held) == 1:
                self._keys[key] = next(iter(held.values()))
            elif not held:
                del self._keys[key]

    def entries(self, key: str) -> list[NameEntry]:
        """The entries of the nodes named `key`, in the order they were indexed."""
        held = self._held(key)
        if held is None:
            return []
        return [held] if type(held) is NameEntry else list(held.values())  # type: ignore[union-attr]

    def every_entry(self) -> list[NameEntry]:
        """Every entry, each key built."""
        for key in list(self._pending):
            self._build(key)
        out: list[NameEntry] = []
        for held in self._keys.values():
            out.extend([held] if type(held) is NameEntry else held.values())  # type: ignore[union-attr]
        return out

    def __len__(self) -> int:
        """The keys built so far."""
        return len(self._keys)

    def _held(self, key: str) -> Held | None:
        if key in self._pending:
            self._build(key)
        return self._keys.get(key)

    def _build(self, key: str) -> None:
        ids = self._pending.pop(key)
        memories = self._memories
        for node_id in [ids] if type(ids) is str else ids:
            held = memories.get(node_id)
            if held is not None:  # else deleted since the restore
                self.put(name_entry(held, node_id))
