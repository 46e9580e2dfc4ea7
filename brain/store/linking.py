"""Turns changed nodes into one WriteBatch, re-resolving exactly the links they affect.

A link can only change where it points when a node with the name it asks for appears or
disappears (or when its own note changes). Every stored link keeps the name key it asks
for, so the links to re-resolve are `links_with_keys(names of changed nodes)`, however big
the graph is. Anchors (headings and block ids) are checked the same way.

A first sync written in parts (brain/ingest/parts.py) knows every name before any note is
parsed: it passes them as `names`, and only asks to re-resolve what that foresight got
wrong (`relink_keys`) and the anchored links whose target was not written yet (`recheck`).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple

from brain.model import (
    NOTE_KINDS,
    AgentNode,
    Anchors,
    EntityNode,
    FileNode,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    WikiLink,
    is_note_id,
    leaf_key,
    name_key,
    new_link,
)
from brain.resolve import LATCHAI_LINKS, LinkRules, NameEntry, NameLookup, anchor_status, resolve_link
from brain.store.base import GraphStore, WriteBatch

if TYPE_CHECKING:  # numpy is not imported for a type
    from brain.index.postings import KeywordRow

intern = sys.intern


class NoteChange(NamedTuple):
    """A memory to upsert with the wikilinks parsed from it (a named tuple: one a note, built
    in a parse helper and again from its pickle)."""

    memory: MemoryNode
    links: tuple[WikiLink, ...]
    keywords: KeywordRow | None = None  # its keyword counts, if a parse helper made them


Named = MemoryNode | AgentNode | EntityNode | FileNode

#: What a link target written in a scope resolves to while the names stay the same: the
#: target (interned), its target id, status, candidates, and name key. Its anchor, if any, is
#: checked apart: only that depends on the target's text.
Known = tuple[str, str, LinkStatus, tuple[str, ...], str]
MEMO_LIMIT = 1 << 16  # entries at least; a memo sized by its workspace (`for_names`) holds more
MEMO_PER_NAME = 4  # entries a name of the walk (its targets out of reach and in reach, spelled several ways)
# Entries at most, however big the workspace (about 200 bytes each with their strings): sized
# by names alone, 1,000,000 notes allowed it four million.
MEMO_CAP = 1 << 19
NEAR_SCOPES = 4  # scopes whose own answers are kept: a first sync writes a scope's notes together
ANCHORED_LIMIT = 1 << 16  # (target, anchor) pairs kept; past it those alone start over


class ResolutionMemo:
    """Where link targets resolve, kept across the plans of a first sync's parts: they all
    resolve against the walk's names (brain/ingest/parts.py), so each target once.

    Keyed by what decides the answer. A layout's rules only compare entries' scopes with the
    source's (brain.resolve.LinkRules): a target resolves the same from every scope that
    holds no entry of its name, so `shared` keeps that answer once for all those scopes, and
    `near` keeps a scope's own answer only for the targets with an entry in that scope. A
    target seen before costs one or two dict lookups and a look at its name's entries (most
    have one). Its size follows the workspace's names (`for_names`): a memo of 65,536 entries
    that started over when full resolved 324,000 targets for the 550,740 links of 100,000
    notes (a scope's notes link across all its names, and the shared ones), where each
    answer once is about 120,000; held as before, one answer for every (scope, target) seen,
    the same memo took 53 MB more there.

    Bounded all the same (`MEMO_CAP`): it is a cache, and an answer it no longer holds is
    resolved again, the same. A scope's own answers are kept for the `NEAR_SCOPES` scopes
    written last (the walk's order writes one scope's notes, then the next's); past its limit
    the older half of each table goes (dicts keep their order of insertion), not all of it.
    """

    def __init__(self, limit: int = 0) -> None:
        self.limit = max(MEMO_LIMIT, min(limit, MEMO_CAP))
        self.shared: dict[str, Known] = {}
        self.near: dict[str, dict[str, Known]] = {}  # the scope written last, last
        # Each (target, anchor) found or not in a target written already: its headings stay
        # as they are through the sync (9,300 anchored links at 10,000 notes).
        self.anchored: dict[tuple[str, str], LinkStatus] = {}
        self.size = 0
        # The links planned with this memo whose anchor was not found, as they are planned
        # (not emptied with the memo: its user takes them): a part defers those to a target
        # not written yet (brain/ingest/parts.py) without a scan of all its links.
        self.missing: list[Link] = []

    @classmethod
    def for_names(cls, names: int) -> ResolutionMemo:
        """A memo that holds what a workspace of `names` names asks, up to `MEMO_CAP`."""
        return cls(MEMO_PER_NAME * names)

    def clear(self) -> None:
        self.shared.clear()
        self.near.clear()
        self.anchored.clear()
        self.size = 0

    def trim(self) -> None:
        """Keep the newer half of each table."""
        for held in (self.shared, *self.near.values()):
            for key in list(islice(held, len(held) // 2)):
                del held[key]
        self.size = len(self.shared) + sum(map(len, self.near.values()))

    def scope(self, scope: str) -> dict[str, Known]:
        """The targets known in `scope` (after dropping the older half if the memo is full)."""
        if self.size >= self.limit:
            self.trim()
        near = self.near.get(scope)
        if near is None:
            if len(self.near) >= NEAR_SCOPES:  # the scope written longest ago: likely done
                self.size -= len(self.near.pop(next(iter(self.near))))
            near = self.near[scope] = {}
        elif next(reversed(self.near)) != scope:  # written again: last in line
            self.near[scope] = self.near.pop(scope)
        return near


def entry_of(node: Named) -> NameEntry:
    """The name entry of a node: a note or file is named by the last segment of its name."""
    # Interned: a node's id is held by the store's indexes, its links and the keyword index,
    # and `id` builds a new string at every call (one copy instead of nine at 100,000 notes);
    # a memory's is interned already (MemoryNode keeps it).
    if isinstance(node, MemoryNode):
        return NameEntry(node.id, node.note_kind, intern(leaf_key(node.name)), node.scope)
    if isinstance(node, FileNode):
        return NameEntry(intern(node.id), Kind.FILE, intern(leaf_key(node.name)), node.scope)
    if isinstance(node, AgentNode):
        return NameEntry(intern(node.id), Kind.AGENT, intern(name_key(node.name)))
    return NameEntry(intern(node.id), node.entity_kind, intern(name_key(node.ident)))


def key_of_id(node_id: str) -> str:
    """The name key of a node id (`memory:scope/name` -> `name`, `file:a/x/y.png` -> `y.png`)."""
    kind, rest = node_id.split(":", 1)
    if is_note_id(node_id) or kind == Kind.FILE.value:
        return leaf_key(rest.split("/", 1)[1])
    return name_key(rest)


def plan(
    store: GraphStore,
    notes: Sequence[NoteChange] = (),
    agents: Sequence[AgentNode] = (),
    entities: Sequence[EntityNode] = (),
    deletes: Collection[str] = (),
    fresh: bool = False,
    files: Sequence[FileNode] = (),
    rules: LinkRules = LATCHAI_LINKS,
    names: NameLookup | None = None,
    relink_keys: Collection[str] | None = None,
    recheck: Iterable[Link] = (),
    memo: ResolutionMemo | None = None,
) -> WriteBatch:
    """The batch that applies these changes. `fresh`: the store is known to be empty.

    `rules` are the layout's link rules (brain.layouts): how targets parse and in which
    order names are looked for. `names`: every name as it will be once the whole sync is
    written (the notes' links resolve against it, not against the store). `relink_keys`:
    the names whose stored links to re-resolve (default: those of the changed nodes);
    `recheck`: stored links to re-resolve besides. `memo`: resolutions kept from plans
    against the same `names` (the caller's: it must start a new one when names change).
    """
    upserted: list[Named] = [n.memory for n in notes]
    upserted += list(agents) + list(entities) + list(files)
    changed_ids = {n.id for n in upserted} | set(deletes)
    if relink_keys is None:
        relink_keys = {entry_of(n).key for n in upserted} | {key_of_id(i) for i in deletes}

    others: list[Link] = []
    sources = {n.memory.id for n in notes} | set(deletes)
    if not fresh and relink_keys:
        others = [link for link in store.links_with_keys(relink_keys) if link.source not in sources]
    if recheck:
        seen = {(link.source, link.ordinal) for link in others}
        others += [
            link for link in recheck
            if link.source not in sources and (link.source, link.ordinal) not in seen
        ]

    if names is None:
        wanted_keys = {rules.parse(w.target).key for n in notes for w in n.links if w.target}
        wanted_keys |= {link.key for link in others}
        names = _NameIndex(store, wanted_keys, upserted, changed_ids, fresh).lookup
    headings = _AnchorIndex(store, notes, others, names, fresh, rules)

    batch = WriteBatch(
        memories=[n.memory for n in notes],
        agents=list(agents),
        entities=list(entities),
        deletes=sorted(set(deletes)),
        files=list(files),
    )
    for note in notes:
        memory = note.memory
        source = memory.id  # interned: one copy for all its links (and the store's indexes)
        if note.keywords is not None:
            batch.keywords[source] = note.keywords
        if memo is not None:
            batch.links[source] = _remembered(source, memory.scope, note.links, names, headings, rules, memo)
            continue
        batch.links[source] = [
            _stored(source, memory.scope, ordinal, wiki, names, headings, rules)
            for ordinal, wiki in enumerate(note.links)
        ]
    for old in others:
        scope = old.source.split(":", 1)[1].split("/", 1)[0]
        wiki = WikiLink(old.raw, old.target, old.label, old.anchor, old.embed, old.line, old.column)
        new = _stored(old.source, scope, old.ordinal, wiki, names, headings, rules)
        before = (old.target_id, old.status, old.candidates)
        if (new.target_id, new.status, new.candidates) != before:
            batch.relinks.append(new)
    return batch


def _stored(
    source: str, scope: str, ordinal: int, wiki: WikiLink, names: NameLookup,
    headings: _AnchorIndex, rules: LinkRules,
) -> Link:
    resolution = resolve_link(wiki, source, scope, names, headings.lookup, rules)
    # Ids and keys interned: 550,000 links at 100,000 notes name far fewer distinct ones.
    return Link(
        source=source,
        ordinal=ordinal,
        target_id=intern(resolution.target_id),
        status=resolution.status,
        raw=intern(wiki.raw),  # `[[x]]` is written the same way in many notes
        target=intern(wiki.target),
        key=intern(rules.parse(wiki.target).key) if wiki.target else "",
        label=wiki.label,
        anchor=wiki.anchor,
        embed=wiki.embed,
        line=wiki.line,
        column=wiki.column,
        candidates=resolution.candidates,
    )


def _remembered(
    source: str, scope: str, links: Sequence[WikiLink], names: NameLookup,
    headings: _AnchorIndex, rules: LinkRules, memo: ResolutionMemo,
) -> list[Link]:
    """`_stored` of each of a note's links, each target resolved once a scope (and once for
    all the scopes that hold no entry of its name)."""
    near = memo.scope(scope)
    out: list[Link] = []
    for ordinal, wiki in enumerate(links):
        target = wiki.target
        known = near.get(target)
        if known is None:
            if not target:  # `[[#Heading]]`: its own note's heading
                link = _stored(source, scope, ordinal, wiki, names, headings, rules)
                if link.status is LinkStatus.MISSING_ANCHOR:
                    memo.missing.append(link)
                out.append(link)
                continue
            known = _resolved(source, scope, target, names, rules, memo)
        target, target_id, status, candidates, key = known
        anchor = wiki.anchor
        if anchor is not None and status is LinkStatus.RESOLVED:
            status = _anchored(target_id, anchor, headings, memo)
            if status is LinkStatus.MISSING_ANCHOR:
                link = new_link((
                    source, ordinal, target_id, status, wiki.raw, target, key, wiki.label, anchor,
                    wiki.embed, wiki.line, wiki.column, candidates,
                ))
                memo.missing.append(link)
                out.append(link)
                continue
        out.append(new_link((
            source, ordinal, target_id, status, wiki.raw, target, key, wiki.label, anchor,
            wiki.embed, wiki.line, wiki.column, candidates,
        )))
    return out


def _anchored(target_id: str, anchor: str, headings: _AnchorIndex, memo: ResolutionMemo) -> LinkStatus:
    status = memo.anchored.get((target_id, anchor))
    if status is None:
        status = anchor_status(target_id, anchor, headings.lookup)
        if headings.lookup(target_id) is not None:  # not a target written later
            if len(memo.anchored) >= ANCHORED_LIMIT:
                memo.anchored.clear()
            memo.anchored[target_id, anchor] = status
    return status


def _resolved(
    source: str, scope: str, target: str, names: NameLookup, rules: LinkRules,
    memo: ResolutionMemo,
) -> Known:
    """A target not known yet in `scope`: its answer for every scope out of its reach if
    it has one and this scope is one of them, else resolved and kept where it applies."""
    known = memo.shared.get(target)
    key = known[4] if known is not None else intern(rules.parse(target).key)
    reach = False
    for entry in names(key):  # most names have one entry (a loop: `any` over a generator
        if entry.scope == scope:  # was a tenth of a sync's resolving)
            reach = True
            break
    if known is not None and not reach:
        return known
    # Without its anchor: `anchor_status` checks that per link.
    resolution = resolve_link(WikiLink("", target, None, None, False, 0, 0), source, scope,
                              names, _no_anchors, rules)
    target = intern(target)
    known = (target, intern(resolution.target_id), resolution.status, resolution.candidates, key)
    if reach:
        memo.near[scope][target] = known
    else:
        memo.shared[target] = known
    memo.size += 1
    return known


def _no_anchors(node_id: str) -> Anchors | None:
    return None


class _NameIndex:
    """Names as they will be after the batch: the store's, minus changed ids, plus the batch."""

    def __init__(
        self,
        store: GraphStore,
        keys: Collection[str],
        upserted: Iterable[Named],
        changed_ids: Collection[str],
        fresh: bool,
    ) -> None:
        self.entries: dict[str, list[NameEntry]] = defaultdict(list)
        if not fresh and keys:
            for key, found in store.name_entries(keys).items():
                self.entries[key] = [e for e in found if e.id not in changed_ids]
        for node in upserted:
            entry = entry_of(node)
            self.entries[entry.key].append(entry)

    def lookup(self, key: str) -> Sequence[NameEntry]:
        return self.entries.get(key, ())


class _AnchorIndex:
    """Anchors of anchor targets: the batch's own, else fetched once from the store.

    A target the store does not hold has none (a first sync in parts: not written yet).
    """

    def __init__(
        self,
        store: GraphStore,
        notes: Sequence[NoteChange],
        others: Sequence[Link],
        names: NameLookup,
        fresh: bool,
        rules: LinkRules = LATCHAI_LINKS,
    ) -> None:
        self.known: dict[str, Anchors] = {n.memory.id: n.memory.anchors for n in notes}
        self.missed: set[str] = set()
        self.store = store
        self.fresh = fresh
        if not fresh:
            # Fetch the anchors of every memory an anchored link may land on, in one call
            # (with a walk's names, some are not written yet: missed, as asked one by one;
            # on Neo4j each ask was a round trip, 455 of them in a first sync of 10,000).
            wanted = {
                e.id
                for key in {rules.parse(w.target).key for n in notes for w in n.links
                            if w.anchor and w.target} | {o.key for o in others if o.anchor}
                for e in names(key)
                if e.kind in NOTE_KINDS and e.id not in self.known
            }
            if wanted:
                self.known.update(store.anchors(wanted))
                self.missed.update(wanted - self.known.keys())

    def lookup(self, node_id: str) -> Anchors | None:
        if node_id not in self.known and not self.fresh and node_id not in self.missed:
            self.known.update(self.store.anchors([node_id]))
            if node_id not in self.known:
                self.missed.add(node_id)
        return self.known.get(node_id)
