"""Read-only questions the editor features ask the graph, answered with brain's own resolver.

`Lookup` gives `brain.resolve.resolve_link` its name and heading lookups from a store (one
query per key, cached for the request), so a hover, a completion or a rename decides where a
link points exactly as ingest and `brain check` do.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from brain.model import (
    AgentNode,
    Anchors,
    EntityNode,
    Kind,
    LinkStatus,
    MemoryNode,
    Node,
    WikiLink,
    note_id,
)
from brain.resolve import LATCHAI_LINKS, LinkRules, NameEntry, Resolution, parse_target, resolve_link

if TYPE_CHECKING:
    from brain.layouts.base import Layout

Linkable = MemoryNode | EntityNode | AgentNode
_LANDED = (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR)


class NameSource(Protocol):
    """What a lookup asks: a store, or the names a walk found before indexing ends (early.py)."""

    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]: ...
    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]: ...


class Lookup:
    """Name and anchor lookups over a store, cached, optionally with names swapped (a rename)."""

    def __init__(
        self,
        store: NameSource,
        without: Collection[str] = (),
        extra: Iterable[NameEntry] = (),
        anchors: dict[str, Anchors] | None = None,
    ) -> None:
        self.store = store
        self._names: dict[str, list[NameEntry]] = {}
        self._anchors: dict[str, Anchors | None] = dict(anchors or {})
        self._without = set(without)
        self._extra: dict[str, list[NameEntry]] = {}
        for entry in extra:
            self._extra.setdefault(entry.key, []).append(entry)

    def prefetch(self, keys: Iterable[str]) -> None:
        wanted = {k for k in keys if k not in self._names}
        if wanted:
            found = self.store.name_entries(wanted)
            for key in wanted:
                self._store_names(key, found.get(key, []))

    def names(self, key: str) -> Sequence[NameEntry]:
        if key not in self._names:
            self._store_names(key, self.store.name_entries([key]).get(key, []))
        return self._names[key]

    def _store_names(self, key: str, entries: list[NameEntry]) -> None:
        kept = [e for e in entries if e.id not in self._without]
        self._names[key] = kept + self._extra.get(key, [])

    def anchors(self, node_id: str) -> Anchors | None:
        if node_id not in self._anchors:
            self._anchors[node_id] = self.store.anchors([node_id]).get(node_id)
        return self._anchors[node_id]

    def resolve(self, link: WikiLink, source: NoteIdentity) -> Resolution:
        return resolve_link(link, source.id, source.scope, self.names, self.anchors, source.rules)


@dataclass(frozen=True, slots=True)
class NoteIdentity:
    """The note a document is, from its path as the workspace's layout reads it
    (latchai: `memory/<scope>/<name>.md`; space: `<agent>/memory/<path>.md`; ...), and the
    link rules its links resolve by."""

    scope: str
    name: str
    path: str
    kind: Kind = Kind.MEMORY
    rules: LinkRules = field(default=LATCHAI_LINKS, compare=False)

    @property
    def id(self) -> str:
        return note_id(self.kind, self.scope, self.name)


def identity_of(rel: str, layout: Layout | None = None) -> NoteIdentity | None:
    """The note at `rel` by the layout's classification (latchai when none is given)."""
    if layout is None:
        from brain.layouts import LATCHAI

        layout = LATCHAI
    role = layout.classify(rel)
    if role.kind != "memory":
        return None
    return NoteIdentity(role.scope, role.name, rel, role.node_kind, layout.links)


def probe(target: str, anchor: str | None = None) -> WikiLink:
    """A link with this target, to ask the resolver about (position unused)."""
    raw = f"[[{target}{'#' + anchor if anchor else ''}]]"
    return WikiLink(raw, target, None, anchor, False, 1, 1)


def resolves_to(lookup: Lookup, target: str, source: NoteIdentity, node_id: str) -> bool:
    """True when `[[target]]`, written in `source`, lands on `node_id`."""
    resolution = lookup.resolve(probe(target), source)
    return resolution.target_id == node_id and resolution.status in _LANDED


def node_name(node: Linkable) -> str:
    if isinstance(node, MemoryNode | AgentNode):
        return node.name
    return node.ident


def target_key(target: str) -> str:
    return parse_target(target).key


def path_of(node: Node) -> str | None:
    if isinstance(node, MemoryNode | EntityNode | AgentNode):
        return node.path
    return None
