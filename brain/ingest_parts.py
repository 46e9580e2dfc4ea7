"""A first sync into the embedded store, written in parts as the notes are parsed.

A 100,000-note workspace is half a gigabyte of markdown. Held as one batch (every file's
bytes, every parsed note with its body and links, then the batch's links) a first ingest
peaked at several times the graph it builds. So when the store was just cleared and is this
process's own, `Ingester._apply` takes the parsed notes as the helpers hand them back
(`MemoryBuilder.take`) and writes them a few thousand notes at a time, each part planned against what
the store already holds: a link to a note of a later part is first broken, then re-resolved
when that note is written (`linking.plan`'s relinks, the path every rescan takes), so the
graph is the one a single batch gives. A shared store (Neo4j) still gets one batch: it
writes the difference in one transaction. A part that fails leaves the store half-written,
as a failed batch could: `Ingester._forget` makes the next sync clear it and start again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from sys import intern

from brain.model import Node
from brain.resolve import LinkRules
from brain.store.base import GraphStore, WriteBatch
from brain.store.linking import NoteChange, plan

KEEP = 8  # parsed chunks left with the helpers while this process reads on

Listener = Callable[[WriteBatch, dict[str, Node]], None]


class PartWriter:
    """Writes notes in parts and remembers what a sync's result and later steps need."""

    size = 4096  # notes a part: big enough that relinking stays a small share of the work

    def __init__(self, store: GraphStore, rules: LinkRules, listeners: Sequence[Listener]) -> None:
        self.store = store
        self.rules = rules
        self.listeners = listeners
        self.written = False  # a part is in the store: later plans look at it
        self.parsed = 0
        self.owners: set[str] = set()
        self.scopes: set[str] = set()
        self.changed_ids: set[str] = set()  # interned: one copy of each id with the store's
        self.last = WriteBatch()

    def note(self, notes: Sequence[NoteChange]) -> None:
        """What a part's notes tell the rest of the sync (agents, scope rules, the result)."""
        self.parsed += len(notes)
        for change in notes:
            memory = change.memory
            self.scopes.add(memory.scope)
            owner = memory.owner
            if owner is not None:
                self.owners.add(owner)

    def write(self, notes: Sequence[NoteChange]) -> None:
        self.note(notes)
        batch = plan(self.store, notes, fresh=not self.written, rules=self.rules)
        self.commit(batch)

    def commit(self, batch: WriteBatch) -> None:
        if not batch:
            return
        # Not the relinked sources: a first sync in parts relinks thousands of the notes before,
        # and unpacking their bodies only to drop them was a tenth of its CPU.
        before = self.store.get_nodes(batch.node_ids()) if self.listeners else {}
        self.store.write(batch)
        self.written = True
        self.changed_ids.update(map(intern, batch.changed_ids()))
        self.last = batch
        for listener in self.listeners:
            listener(batch, before)
