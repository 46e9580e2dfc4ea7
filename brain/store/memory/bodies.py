"""The bodies an embedded store gives back: held compressed, or read again from their file.

Bodies are most of a graph's bytes (99 MB even compressed at 100,000 notes) and few queries
read them. A note the ingester read from disk needs none held: its file has it. So a store
given a `BodySource` (brain/ingest/note_bodies.py: the workspace's files) keeps only a mark for such
a body and reads it back when a query asks for it, checked against the note's content hash;
every other body (a note written without a workspace, an editor's unsaved buffer) is held
zlib-compressed, as before.
"""

from __future__ import annotations

from dataclasses import replace

from brain.model import MemoryNode
from brain.store.base import BodySource
from brain.store.memory.rows import pack_body, unpack_body

#: The mark of a body read back from its file (a compressed body is never empty).
ON_DISK = b""


class Bodies:
    """Memory id -> its body: compressed bytes, or ON_DISK; none for an empty body."""

    def __init__(self) -> None:
        self.held: dict[str, bytes] = {}
        self.source: BodySource | None = None  # kept through `clear`: it belongs to the workspace

    def clear(self) -> None:
        self.held = {}

    def put(self, node_id: str, memory: MemoryNode) -> None:
        # On disk whatever the body given: a first sync's parsers send none (memory_files.shipped).
        if self.source is not None and self.source.on_disk(memory):
            self.held[node_id] = ON_DISK
        elif not memory.body:
            self.held.pop(node_id, None)
        else:
            self.held[node_id] = pack_body(memory.body)

    def drop(self, node_id: str) -> None:
        self.held.pop(node_id, None)

    def full(self, memory: MemoryNode) -> MemoryNode:
        """The memory with its body (held without one): nodes leave the store only this way."""
        packed = self.held.get(memory.id)
        if packed is None:
            return memory
        if packed:
            return replace(memory, body=unpack_body(packed))
        return replace(memory, body=self.source.read(memory) if self.source is not None else "")
