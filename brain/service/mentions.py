"""Unlinked mentions of one note, or of a whole workspace, for every front end.

The detector is pure (brain.parse.mentions); this module gives it what it needs from the
graph: the names a note may reach (its own scope's notes, then the shared ones: the levels
of link resolution, design.md 3, so another agent's private notes are never named), the
notes it already links, and its body with the line the body starts on (read as the
ingester reads it: an editor's unsaved buffer first, else the file).

Names are the note's name (its file stem), its `name:` property and its `aliases:`
(Obsidian's frontmatter key). Mentions run on demand (a GraphQL field, a code action,
`brain related`, `brain check --mentions`, maintain), never on the ingest path, and a
brain keeps what it computed (MentionCache) until the note, its links or the names it may
reach change. What a sweep costs next to an ingest: bench/bench_mentions.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from brain.ingest.note_bodies import read_regular
from brain.model import SHARED_SCOPE, JSONValue, Kind, MemoryNode, name_key
from brain.parse.frontmatter import split_frontmatter
from brain.parse.mentions import Mention, MentionTarget, NameIndex
from brain.parse.mentions import find_mentions as detect
from brain.parse.note import decode
from brain.search.related import Related, related_notes
from brain.search.service import SearchService
from brain.store.base import GraphStore, MemoryFilter
from brain.store.visibility import EVERYTHING, Reach

if TYPE_CHECKING:
    from brain.service.brain import Brain

SWEEP_BATCH = 1000  # notes whose links one store call reads


#: The properties that give a note names beside its file name (`names_of`).
NAME_PROPERTIES = ("name", "aliases", "alias")


def names_of(memory: MemoryNode) -> Iterator[str]:
    """The names a note answers to: its name, `name:` and each of `aliases:`."""
    yield memory.name
    for key in NAME_PROPERTIES:
        value: JSONValue = memory.properties.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


class Names:
    """The name index of each source scope, built once per scope and reused (a workspace
    sweep reads every scope's notes once, not once per note). `fingerprint(scope)` changes
    when the names a scope's notes may reach change: a note's mentions computed before stay
    right while its text, its links and that fingerprint stay the same (MentionCache)."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._scopes: dict[str, list[MemoryNode]] = {}
        self._indexes: dict[str, NameIndex] = {}
        self._fingerprints: dict[str, int] = {}

    def _notes(self, scope: str) -> list[MemoryNode]:
        found = self._scopes.get(scope)
        if found is None:
            listed = self.store.list_memories(MemoryFilter(scope=scope), bodies=False)
            found = self._scopes[scope] = [m for m in listed if m.note_kind is Kind.MEMORY]
        return found

    def index(self, scope: str) -> NameIndex:
        index = self._indexes.get(scope)
        if index is None:
            entries = self._entries(scope)
            self._fingerprints[scope] = hash(tuple(sorted((n, t.id, t.link, t.level) for n, t in entries)))
            index = self._indexes[scope] = NameIndex(entries)
        return index

    def fingerprint(self, scope: str) -> int:
        self.index(scope)
        return self._fingerprints[scope]

    def _entries(self, scope: str) -> list[tuple[str, MentionTarget]]:
        own = self._notes(scope)
        own_keys = {name_key(m.name) for m in own}
        entries = [(n, MentionTarget(m.id, m.name, 0)) for m in own for n in names_of(m)]
        if scope != SHARED_SCOPE:
            for m in self._notes(SHARED_SCOPE):
                # `[[name]]` would reach the own note of that name: say `shared/name`.
                link = m.name if name_key(m.name) not in own_keys else f"{SHARED_SCOPE}/{m.name}"
                entries += [(n, MentionTarget(m.id, link, 1)) for n in names_of(m)]
        return entries


class MentionCache:
    """One brain's mentions, computed when asked and kept (GraphQL, MCP, `brain related`
    ask note by note; at 10,000 notes each ask used to list two scopes' notes and read the
    body again). `version` is the brain's count of applied batches: a new one rebuilds the
    names, and a note's kept answer is used again while its key holds: its content hash,
    its scope's names fingerprint and the notes it links. So an edit costs the edited note,
    and a renamed or added note the notes of the scopes that may reach it."""

    MAX_NOTES = 100_000  # answers kept: one list of a few mentions a note

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._version = -1
        self._names = Names(store)
        self._found: dict[str, tuple[tuple[str, int, frozenset[str]], list[Mention]]] = {}

    def names(self, version: int) -> Names:
        if version != self._version:
            self._version, self._names = version, Names(self.store)
        return self._names

    def mentions(
        self, root: Path, memory: MemoryNode, version: int, linked: set[str],
        overlays: dict[str, bytes] | None = None,
    ) -> list[Mention]:
        names = self.names(version)
        key = (memory.hash, names.fingerprint(memory.scope), frozenset(linked))
        kept = self._found.get(memory.id)
        if kept is not None and kept[0] == key and not (overlays and memory.path in overlays):
            return kept[1]
        body, body_line = body_and_line(root, memory, overlays)
        found = detect(body, body_line, names.index(memory.scope), source_id=memory.id, linked=linked)
        if len(self._found) >= self.MAX_NOTES:
            self._found.clear()
        self._found[memory.id] = (key, found)
        return found


_CACHES: WeakKeyDictionary[object, MentionCache] = WeakKeyDictionary()


def mention_cache(owner: object, store: GraphStore) -> MentionCache:
    """The MentionCache of `owner` (a Brain: kept as long as it lives)."""
    cache = _CACHES.get(owner)
    if cache is None or cache.store is not store:
        cache = _CACHES[owner] = MentionCache(store)
    return cache


def note_text(root: Path, memory: MemoryNode, overlays: dict[str, bytes] | None = None) -> str | None:
    """The note's whole text as it is now (an editor's unsaved buffer first), None if gone."""
    raw = (overlays or {}).get(memory.path)
    if raw is None:
        raw = read_regular(root, memory.path)
    if raw is None:
        return None
    text, _ = decode(raw, memory.path)
    return text


def body_and_line(
    root: Path, memory: MemoryNode, overlays: dict[str, bytes] | None = None
) -> tuple[str, int]:
    """The note's body as it is now and the line it starts on ("" for a file gone)."""
    text = note_text(root, memory, overlays)
    if text is None:
        return "", 1
    _fm, body, body_line, _present = split_frontmatter(text, memory.path, [])
    return body, body_line


def note_mentions(
    store: GraphStore, root: Path, memory: MemoryNode, *, names: Names | None = None,
    reach: Reach = EVERYTHING, overlays: dict[str, bytes] | None = None,
    linked: set[str] | None = None, cached: tuple[MentionCache, int] | None = None,
) -> list[Mention]:
    """The unlinked mentions in `memory`, naming only notes `reach` sees. `linked`: the ids
    it links, when the caller read them already (a sweep reads every note's at once);
    `cached`: a brain's MentionCache and its version (`brain_mentions`)."""
    if memory.note_kind is not Kind.MEMORY or not reach.sees(memory.id):
        return []
    linked = linked if linked is not None else linked_ids(store, memory)
    if cached is not None:
        found = cached[0].mentions(root, memory, cached[1], linked, overlays)
    else:
        names = names if names is not None else Names(store)
        body, body_line = body_and_line(root, memory, overlays)
        found = detect(body, body_line, names.index(memory.scope), source_id=memory.id, linked=linked)
    if reach.everything:
        return found
    return [m for m in found if (m.target is None or reach.sees(m.target))
            and all(reach.sees(c) for c in m.candidates)]


def brain_mentions(
    brain: Brain, memory: MemoryNode, *, reach: Reach = EVERYTHING,
    overlays: dict[str, bytes] | None = None,
) -> list[Mention]:
    """`note_mentions` for a front end that asks note by note, from the brain's cache."""
    cache = mention_cache(brain, brain.store)
    return note_mentions(brain.store, brain.root, memory, reach=reach, overlays=overlays,
                         cached=(cache, brain.changes))


def workspace_mentions(
    store: GraphStore, root: Path, memories: Iterable[MemoryNode] | None = None,
) -> Iterator[tuple[MemoryNode, list[Mention]]]:
    """Every note with unlinked mentions, in id order (`brain check --mentions`, maintain).
    The notes' links are read in one call a thousand notes, not one a note."""
    names = Names(store)
    notes = list(memories if memories is not None else store.list_memories(MemoryFilter(), bodies=False))
    for start in range(0, len(notes), SWEEP_BATCH):
        batch = [m for m in notes[start : start + SWEEP_BATCH] if m.note_kind is Kind.MEMORY]
        links = store.link_targets([m.id for m in batch])
        for memory in batch:
            found = note_mentions(store, root, memory, names=names, linked=links.get(memory.id, set()))
            if found:
                yield memory, found


def linked_ids(store: GraphStore, memory: MemoryNode) -> set[str]:
    return store.link_targets([memory.id]).get(memory.id, set())


def related_to(
    search: SearchService, root: Path, memory: MemoryNode, *, reach: Reach = EVERYTHING,
    first: int = 10, overlays: dict[str, bytes] | None = None,
) -> list[Related]:
    """The notes nearest `memory` that it does not link, among those `reach` sees."""
    if not reach.sees(memory.id):
        return []
    body, _line = body_and_line(root, memory, overlays)
    return related_notes(search, memory, body, scopes=reach.scopes,
                         linked=linked_ids(search.store, memory), first=first)
