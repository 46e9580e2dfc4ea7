"""Unlinked mentions of one note, or of a whole workspace, for every front end.

The detector is pure (brain.parse.mentions); this module gives it what it needs from the
graph: the names a note may reach (its own scope's notes, then the shared ones: the levels
of link resolution, design.md 3, so another agent's private notes are never named), the
notes it already links, and its body with the line the body starts on (read as the
ingester reads it: an editor's unsaved buffer first, else the file).

Names are the note's name (its file stem), its `name:` property and its `aliases:`
(Obsidian's frontmatter key). Mentions run on demand (a GraphQL field, a code action,
`brain related`, `brain check --mentions`, maintain), never on the ingest path: one
body read per note is the whole cost, measured in bench/bench_mentions.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

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


def names_of(memory: MemoryNode) -> Iterator[str]:
    """The names a note answers to: its name, `name:` and each of `aliases:`."""
    yield memory.name
    for key in ("name", "aliases", "alias"):
        value: JSONValue = memory.properties.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


class Names:
    """The name index of each source scope, built once per scope and reused (a workspace
    sweep reads every scope's notes once, not once per note)."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._scopes: dict[str, list[MemoryNode]] = {}
        self._indexes: dict[str, NameIndex] = {}

    def _notes(self, scope: str) -> list[MemoryNode]:
        found = self._scopes.get(scope)
        if found is None:
            listed = self.store.list_memories(MemoryFilter(scope=scope), bodies=False)
            found = self._scopes[scope] = [m for m in listed if m.note_kind is Kind.MEMORY]
        return found

    def index(self, scope: str) -> NameIndex:
        index = self._indexes.get(scope)
        if index is None:
            own = self._notes(scope)
            own_keys = {name_key(m.name) for m in own}
            entries = [(n, MentionTarget(m.id, m.name, 0)) for m in own for n in names_of(m)]
            if scope != SHARED_SCOPE:
                for m in self._notes(SHARED_SCOPE):
                    # `[[name]]` would reach the own note of that name: say `shared/name`.
                    link = m.name if name_key(m.name) not in own_keys else f"{SHARED_SCOPE}/{m.name}"
                    entries += [(n, MentionTarget(m.id, link, 1)) for n in names_of(m)]
            index = self._indexes[scope] = NameIndex(entries)
        return index


def body_and_line(
    root: Path, memory: MemoryNode, overlays: dict[str, bytes] | None = None
) -> tuple[str, int]:
    """The note's body as it is now and the line it starts on ("" for a file gone)."""
    raw = (overlays or {}).get(memory.path)
    if raw is None:
        raw = read_regular(root, memory.path)
    if raw is None:
        return "", 1
    text, _ = decode(raw, memory.path)
    _fm, body, body_line, _present = split_frontmatter(text, memory.path, [])
    return body, body_line


def note_mentions(
    store: GraphStore, root: Path, memory: MemoryNode, *, names: Names | None = None,
    reach: Reach = EVERYTHING, overlays: dict[str, bytes] | None = None,
) -> list[Mention]:
    """The unlinked mentions in `memory`, naming only notes `reach` sees."""
    if memory.note_kind is not Kind.MEMORY or not reach.sees(memory.id):
        return []
    names = names if names is not None else Names(store)
    linked = linked_ids(store, memory)
    body, body_line = body_and_line(root, memory, overlays)
    found = detect(body, body_line, names.index(memory.scope), source_id=memory.id, linked=linked)
    if reach.everything:
        return found
    return [m for m in found if (m.target is None or reach.sees(m.target))
            and all(reach.sees(c) for c in m.candidates)]


def workspace_mentions(
    store: GraphStore, root: Path, memories: Iterable[MemoryNode] | None = None,
) -> Iterator[tuple[MemoryNode, list[Mention]]]:
    """Every note with unlinked mentions, in id order (`brain check --mentions`, maintain)."""
    names = Names(store)
    notes = memories if memories is not None else store.list_memories(MemoryFilter(), bodies=False)
    for memory in notes:
        found = note_mentions(store, root, memory, names=names)
        if found:
            yield memory, found


def linked_ids(store: GraphStore, memory: MemoryNode) -> set[str]:
    return {link.target_id for link in store.links_from([memory.id]).get(memory.id, [])}


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
