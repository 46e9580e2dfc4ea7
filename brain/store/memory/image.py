"""What an embedded store holds, handed over whole: to a snapshot and back, or to another store.

`contents()` gives a `StoreImage` (memories as rows or nodes, links as the link table's
columns); `restore` takes one, from a live store or a decoded snapshot, through
`image_tables`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import compress, repeat

from brain.index.bm25 import KeywordImage
from brain.model import AgentNode, EntityNode, FileNode, MemoryNode
from brain.store.memory.links.image import LinkImage
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import PATH, MemoryRow


@dataclass(slots=True)
class StoreImage:
    """Everything an embedded store holds, as `contents()` hands it to a snapshot: memories as
    rows or nodes (bodies apart, compressed), links as columns (None: no links), the keyword
    index as its image (brain/index/bm25.py)."""

    memory_ids: list[str] = field(default_factory=list)
    memories: list[MemoryNode | MemoryRow] = field(default_factory=list)
    bodies: list[bytes | None] = field(default_factory=list)  # b"": read from its file
    links: LinkImage | None = None
    agents: list[AgentNode] = field(default_factory=list)
    entities: list[EntityNode] = field(default_factory=list)
    files: list[FileNode] = field(default_factory=list)
    keywords: bytes | KeywordImage = b""  # pieces, as a live store gives it (streamed)


_ROW_PATH = operator.itemgetter(PATH)


def image_tables(image: StoreImage) -> tuple[
    dict[str, MemoryNode | MemoryRow], dict[str, bytes], dict[str, str], LinkTable
]:
    """A store's memories, bodies, ids by path and links by source, from an image: C loops
    only (a warm start at 100,000 notes waits for these). A body is None (none kept), b""
    (read from its file: memory_bodies.ON_DISK) or compressed bytes; a snapshot's memories
    are all rows."""
    ids, held = image.memory_ids, image.memories
    memories = dict(zip(ids, held, strict=True))
    kept = map(operator.is_not, image.bodies, repeat(None))  # ON_DISK (b"") is kept too
    bodies: dict[str, bytes] = dict(compress(zip(ids, image.bodies, strict=True), kept))  # type: ignore[arg-type]
    try:
        paths: list[str] = list(map(_ROW_PATH, held))  # type: ignore[arg-type]
    except TypeError:  # nodes among them: the image of a live store
        paths = [m.path if isinstance(m, MemoryNode) else m[PATH] for m in held]
    return memories, bodies, dict(zip(paths, ids, strict=True)), LinkTable(image.links)
