"""Notes parsed once by their content, for builds that parse the same versions again and again.

A first `memory(asOf:)` builds a small graph of a moment (brain/tool/asof/small.py): the note
asked, the notes that defined its links' names then, those that linked to it, the agents'
definitions, each at its version then, ingested by a first sync. Most of those versions are
the same from one ask to the next (an agent's definition, a hub note, a note unchanged for a
week) and were parsed by the ask before: profiled, parsing them was most of a first ask.

What a note parses to (brain.ingest.memory_files `_note`) depends only on its bytes, its path,
the layout's rules and whether it is built bare; its modification time only becomes the
node's `modified_at`. So a result is kept under (sha256 of the bytes, path, scope, name,
rules, bare) and given back with the modification time asked: the same node and links a
parse gives. A changed blob has another sha256, so it is parsed. The sha256 is of the bytes
in hand, not a name the caller gives, so no caller can pair a result with other content.

Bounded by the bytes of the notes kept (least recently used out first): a note's parse
(node, links, headings, blocks) is about as big as its text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Hashable

from brain.store.linking import NoteChange

# The notes kept, by the sum of their sizes: a small moment holds tens of notes, so this
# keeps hundreds of asks' worth.
REUSED_NOTES_BYTES = 16 * 1024 * 1024

Key = tuple[str, str, str, str, Hashable, bool]


def note_key(raw: bytes, rel: str, scope: str, name: str, rules: Hashable, bare: bool) -> Key:
    """What decides a note's parse: its content (by sha256), path, scope, name, rules, bareness."""
    return hashlib.sha256(raw).hexdigest(), rel, scope, name, rules, bare


class ReusedNotes:
    """Parsed notes (without keyword counts) by `note_key`, the least recently used dropped
    past `limit` bytes of notes. Shared by threads: a lock around each look."""

    def __init__(self, limit: int = REUSED_NOTES_BYTES) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._notes: OrderedDict[Key, NoteChange] = OrderedDict()
        self._bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._notes)

    def get(self, key: Key, mtime: float) -> NoteChange | None:
        """The note kept under `key`, as modified at `mtime`; None if not kept."""
        with self._lock:
            found = self._notes.get(key)
            if found is None:
                self.misses += 1
                return None
            self._notes.move_to_end(key)
            self.hits += 1
        memory = found.memory
        if memory.modified_at != mtime:
            memory = dataclasses.replace(memory, modified_at=mtime)
        return NoteChange(memory, found.links)

    def put(self, key: Key, note: NoteChange) -> None:
        """Keep `note` (a parse of the content `key` names), without its keyword counts."""
        size = max(note.memory.size, 1)
        if size > self.limit:
            return
        with self._lock:
            old = self._notes.pop(key, None)
            if old is not None:
                self._bytes -= max(old.memory.size, 1)
            self._notes[key] = NoteChange(note.memory, note.links)
            self._bytes += size
            while self._bytes > self.limit:
                _, dropped = self._notes.popitem(last=False)
                self._bytes -= max(dropped.memory.size, 1)


__all__ = ["REUSED_NOTES_BYTES", "ReusedNotes", "note_key"]
