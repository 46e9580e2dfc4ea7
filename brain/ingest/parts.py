"""A first sync into the embedded store, written in parts as the notes are parsed.

A 100,000-note workspace is half a gigabyte of markdown. Held as one batch (every file's
bytes, every parsed note with its body and links, then the batch's links) a first ingest
peaked at several times the graph it builds. So when the store was just cleared and is this
process's own, `Ingester._apply` takes the parsed notes as the helpers hand them back
(`MemoryBuilder.take`) and writes them a few thousand notes at a time.

Each part's links resolve against the names of the WHOLE walk (`WalkNames`), known from the
file paths before any note is parsed: a link to a note of a later part resolves right the
first time. Planned against what the store held so far, it was first broken and then
re-resolved when its target was written: 891,000 re-resolutions for 550,000 links at
100,000 notes, a share that grew with the workspace (names repeat across agents). What a
path cannot tell is re-resolved later, the way every rescan does (`linking.plan`'s
relinks): an anchored link to a note not written yet, with the part that writes it (the
headings come from its text), and links to a name the foresight got wrong (a file that
could not be read; space's binary `.md`, a File and not a note) with the last part. So the
graph is the one a single batch gives, in every layout.

A shared store (Neo4j) that holds no graph yet is written the same way, into the store its
`staging()` gives: the generation no reader sees, switched in at once when the last part is
written (brain/store/neo4j/generations/rebuild.py). One that holds a graph gets one batch: the
difference, in one transaction. A part that fails leaves the store half-written, as a
failed batch could: `Ingester._forget` makes the next sync clear it (Neo4j: the staged
generation, unseen) and start again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from sys import intern
from typing import Protocol, runtime_checkable

from brain.layouts.base import Layout
from brain.model import (
    SHARED_SCOPE,
    AgentNode,
    EntityNode,
    FileNode,
    Kind,
    Link,
    Node,
    agent_id,
    leaf_key,
    name_key,
)
from brain.resolve import LinkRules, NameEntry, anchor_status
from brain.store.base import GraphStore, WriteBatch
from brain.store.linking import Named, NoteChange, ResolutionMemo, entry_of, key_of_id, plan

KEEP = 8  # parsed chunks left with the helpers while this process reads on

Listener = Callable[[WriteBatch, dict[str, Node]], None]
ChangeLogger = Callable[[WriteBatch, dict[str, Node]], list[dict[str, object]]]  # for a shared store


@runtime_checkable
class PausedHealth(Protocol):
    """A store whose health counters a first sync counts once at its end (the embedded one:
    brain/store/memory/health.py), instead of part by part."""

    def pause_health(self) -> None: ...
    def resume_health(self) -> None: ...


class PartWriter:
    """Writes notes in parts and remembers what a sync's result and later steps need."""

    size = 4096  # notes a part: big enough that relinking stays a small share of the work

    def __init__(
        self, store: GraphStore, rules: LinkRules, listeners: Sequence[Listener],
        names: Callable[[], WalkNames] | None = None, size: int | None = None,
    ) -> None:
        if size is not None:
            self.size = size
        self.store = store
        self.rules = rules
        self.listeners = listeners
        # None: each part planned against the store so far, then relinked. Worked out when
        # the first part is planned: 10,000 notes' names took 22 ms before a helper got its
        # first chunk, which this process meanwhile parsed itself.
        self._walk_names = names
        self._names: WalkNames | None = None
        self.deferred: dict[str, list[Link]] = {}  # anchored links by the target not written yet
        self.written = False  # a part is in the store: later plans look at it
        self.parsed = 0
        self.owners: set[str] = set()
        self.scopes: set[str] = set()
        self.changed_ids: set[str] = set()  # interned: one copy of each id with the store's
        self.last = WriteBatch()

    @property
    def names(self) -> WalkNames | None:
        if self._walk_names is not None:
            self._names, self._walk_names = self._walk_names(), None
        return self._names

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
        self._write_part(notes)

    def _write_part(self, notes: Sequence[NoteChange]) -> None:
        names = self.names
        if not self.written and isinstance(self.store, PausedHealth):
            self.store.pause_health()  # counted once by `finish`
        if names is None:
            batch = plan(self.store, notes, fresh=not self.written, rules=self.rules)
        else:
            names.confirm(n.memory for n in notes)
            batch = plan(self.store, notes, fresh=not self.written, rules=self.rules,
                         names=names.lookup, relink_keys=(), memo=names.resolved)
            batch.relinks += self._found_anchors(notes)
        self.commit(batch)
        if names is not None:
            missing, names.resolved.missing = names.resolved.missing, []
            self._defer_anchors(missing)

    def finish(
        self, notes: Sequence[NoteChange], agents: Sequence[AgentNode],
        entities: Sequence[EntityNode], deletes: Collection[str], files: Sequence[FileNode],
    ) -> None:
        """The last part (its notes already `note`d): the notes left and every other node,
        and the links of the parts before that the walk's names could not settle."""
        if self.names is not None and self.written and notes:
            # The last notes are a part like the others, resolved against the walk's names
            # (each target once): planned against the store, they were a tenth of the sync.
            self._write_part(notes)
            notes = ()
        names, self._names = self.names, None
        if names is not None:
            names.resolved.clear()
        relink_keys: set[str] | None = None  # those of every node written (a rescan's)
        if names is not None and self.written:
            names.confirm([n.memory for n in notes], agents, entities, files)
            relink_keys = names.wrong_keys() | {key_of_id(i) for i in deletes}
        deferred = [link for links in self.deferred.values() for link in links]
        self.deferred = {}
        batch = plan(
            self.store, notes, agents, entities, deletes, fresh=not self.written, files=files,
            rules=self.rules, relink_keys=relink_keys, recheck=deferred,
        )
        self.commit(batch)
        if isinstance(self.store, PausedHealth):
            self.store.resume_health()

    def _defer_anchors(self, missing: Sequence[Link]) -> None:
        """An anchored link to a note of a later part is missing its anchor until then
        (`missing`: a part's links whose anchor was not found, as its plan found them)."""
        if missing:
            held = self.store.anchors({link.target_id for link in missing})
            for link in missing:
                if link.target_id not in held:
                    self.deferred.setdefault(link.target_id, []).append(link)

    def _found_anchors(self, notes: Sequence[NoteChange]) -> list[Link]:
        """The deferred links to this part's notes whose anchors are found, now that their
        targets' headings are known: relinked with this part (all of them at the last part
        made one batch of a third of the links' sources at 100,000 notes, the sync's peak of
        memory). Their targets came from the walk's names, which have not changed since:
        only their status can, so it alone is worked out again."""
        deferred = self.deferred
        if not deferred:
            return []
        anchors = {n.memory.id: n.memory.anchors for n in notes if n.memory.id in deferred}
        found: list[Link] = []
        for target_id in anchors:
            for link in deferred.pop(target_id):
                assert link.anchor is not None  # deferred for its anchor
                status = anchor_status(target_id, link.anchor, anchors.get)
                if status is not link.status:
                    found.append(link._replace(status=status))
        return found

    def commit(self, batch: WriteBatch) -> None:
        if not batch:
            return
        # Not the relinked sources: a first sync in parts relinks thousands of the notes before,
        # and unpacking their bodies only to drop them was a tenth of its CPU. The store was
        # empty when the sync began: it only holds what an earlier part wrote.
        changed = self.changed_ids
        before = self.store.get_nodes(
            [i for i in batch.node_ids() if i in changed]) if self.listeners and changed else {}
        self.store.write(batch)
        self.written = True
        self.changed_ids.update(map(intern, batch.changed_ids()))
        self.last = batch
        for listener in self.listeners:
            listener(batch, before)


class StagedChanges:
    """A staged first sync's changes, part by part, as the compact JSON the change log keeps:
    the listeners are not told of a part readers cannot see yet; the switch logs them all
    (`SharedStore.switch_in`), and this process's subscribers hear of them then."""

    def __init__(self, change_log: ChangeLogger | None) -> None:
        self.change_log = change_log
        self.parts: list[str] = []

    def __call__(self, batch: WriteBatch, before: dict[str, Node]) -> None:
        changes = self.change_log(batch, before) if self.change_log is not None else []
        if changes:
            self.parts.append(json.dumps(changes, ensure_ascii=False, separators=(",", ":")))


class WalkNames:
    """Every name a first sync will write, known from the walk's paths before any parse.

    `confirm` is told each node as it is written; a name it was not told of (a file that
    could not be read) or one it did not foresee (space: a binary `.md` is a File) makes
    its key one of `wrong_keys`, whose links the last part re-resolves.
    """

    def __init__(self, entries: Iterable[NameEntry]) -> None:
        # A name's one entry as it is, a list only for a name with several (as the store's
        # NameIndex does): 7.7 MB where a list a name made it 11.4 at 100,000 notes.
        self.entries: dict[str, NameEntry | list[NameEntry]] = {}
        # By id, not a set of entries: a lookup by a string and a tuple comparison, not the
        # hash of a 4-field tuple (half the time of confirming each note). Ids are unique among
        # the walk's names; a second entry of an id is a surprise from the start (its links
        # are re-resolved: too many keys cost time, never a wrong link).
        self.unconfirmed: dict[str, NameEntry] = {}
        self.surprises: set[str] = set()
        held = self.entries
        for entry in entries:
            key = entry.key
            found = held.get(key)
            if found is None:
                held[key] = entry
            elif type(found) is list:
                found.append(entry)
            else:
                held[key] = [found, entry]  # type: ignore[list-item]
            if self.unconfirmed.setdefault(entry.id, entry) != entry:
                self.surprises.add(key)
        # The parts' links resolve against these names, which stay the same: each target
        # once, in a memo as big as the workspace asks.
        self.resolved = ResolutionMemo.for_names(len(self.unconfirmed))

    def lookup(self, key: str) -> Sequence[NameEntry]:
        found = self.entries.get(key)
        if found is None:
            return ()
        return (found,) if type(found) is NameEntry else found  # type: ignore[return-value]

    def confirm(self, *groups: Iterable[Named]) -> None:
        for group in groups:
            for node in group:
                entry = entry_of(node)
                if self.unconfirmed.get(entry.id) == entry:
                    del self.unconfirmed[entry.id]
                else:
                    self.surprises.add(entry.key)

    def wrong_keys(self) -> set[str]:
        return self.surprises | {entry.key for entry in self.unconfirmed.values()}


def walk_names(
    layout: Layout, claims: Mapping[str, tuple[str, ...]], scopes: Collection[str],
) -> WalkNames:
    """The names of the nodes the files claim (`brain.ingest.claims`: the first file of an
    id wins) and of the agents: definitions, scope folders and the notes' owners."""
    entries: list[NameEntry] = []
    agents = set(scopes)
    for node_id, files in claims.items():
        if not files:
            continue
        role = layout.classify(min(files))
        if role.kind == "memory":
            entries.append(NameEntry(node_id, role.node_kind, intern(leaf_key(role.name)), role.scope))
            if role.scope != SHARED_SCOPE and ":" not in role.scope and role.node_kind not in (
                    Kind.SKILL, Kind.TOOL):  # MemoryNode.owner: the agent that remembers it
                agents.add(role.scope)
        elif role.kind == "file":
            entries.append(NameEntry(node_id, Kind.FILE, intern(leaf_key(role.name)), role.scope))
        elif role.kind == "entity" and role.entity_kind is not None:
            entries.append(NameEntry(node_id, role.entity_kind, intern(name_key(role.name))))
        elif role.kind == "agent":
            agents.add(role.name)
    entries += [NameEntry(intern(agent_id(a)), Kind.AGENT, intern(name_key(a))) for a in agents]
    return WalkNames(entries)
