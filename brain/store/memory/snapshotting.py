"""The startup snapshot's side of MemoryStore (mixed in; uses its lock and tables): everything
held, as brain/snapshot/columns.py packs it, and a store made again from it.
"""

from __future__ import annotations

import threading
from dataclasses import fields

from brain.model import AgentNode, EntityNode, FileNode, MemoryNode
from brain.store.base import WriteBatch
from brain.store.memory.bodies import Bodies
from brain.store.memory.health import HealthIndex
from brain.store.memory.image import StoreImage, image_tables
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import MemoryRow
from brain.store.memory.search import KeywordIndex

_IMAGE_FIELDS = {"memories", "agents", "entities", "files", "links", "deletes", "relinks", "keywords"}


class MemorySnapshotting:
    _lock: threading.RLock
    _memories: dict[str, MemoryNode | MemoryRow]
    _bodies: Bodies
    _agents: dict[str, AgentNode]
    _entities: dict[str, EntityNode]
    _files: dict[str, FileNode]
    _out: LinkTable
    _by_path: dict[str, str]
    _keywords: KeywordIndex
    _health: HealthIndex
    _indexed: bool
    _names_indexed: bool

    def clear(self) -> None:
        raise NotImplementedError

    def contents(self) -> StoreImage:
        """Everything held (brain/snapshot/columns.py packs it): references to immutable
        rows and nodes, so the lock is held only while the lists are copied."""
        unknown = {f.name for f in fields(WriteBatch)} - _IMAGE_FIELDS
        if unknown:  # a node kind added without a line here: refuse, never write part of the graph
            raise TypeError(f"MemoryStore.contents does not hold WriteBatch.{', '.join(sorted(unknown))}")
        with self._lock:
            ids = list(self._memories)
            return StoreImage(
                memory_ids=ids,
                memories=list(self._memories.values()),
                bodies=list(map(self._bodies.held.get, ids)),
                links=self._out.image(),
                agents=list(self._agents.values()),
                entities=list(self._entities.values()),
                files=list(self._files.values()),
                keywords=self._keywords.image(),
            )

    def restore(self, image: StoreImage) -> None:
        """Become the graph `contents()` gave (of this store or another process's). Memories
        stay rows and the indexes wait for their first use, so this costs a few dict builds."""
        with self._lock:
            self.clear()
            self._keywords.load_image(image.keywords)
            self._memories, self._bodies.held, self._by_path, self._out = image_tables(image)
            self._agents = {a.id: a for a in image.agents}
            self._entities = {e.id: e for e in image.entities}
            self._files = {f.id: f for f in image.files}
            # The image holds no health counters either: counted on the first question.
            self._indexed = self._names_indexed = self._health.valid = False
