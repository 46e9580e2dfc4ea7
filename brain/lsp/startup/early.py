"""The names a folder walk finds: what completion can offer before the first ingest ends.

A cold start parses every file (seconds at 10,000 notes), yet a link's target is named by
its path alone: the layout's walk and `classify` give every note, workflow, chat, work item
and agent in a fraction of a second. `EarlyNames` holds them as bare nodes and answers name
lookups the way the store does (`name_entries`), so a completion offered early inserts the
same text the resolver will send to the same node once everything is parsed.

It knows nothing a parse decides (types, headings, whether an agent remembers, which links
are broken), so the features that need those wait for the index; what is offered early says
what the path says, and what the index will show beside each item a completion lists (a
note's or agent's description, a workflow's title), read from that item's one file.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from brain import safefs
from brain.lsp.features.catalog import Catalog, Linkable
from brain.model import AgentNode, Anchors, EntityNode, Kind, MemoryNode, file_id, leaf_key, note_id
from brain.parse.note import note_description
from brain.resolve import NameEntry
from brain.store.linking import entry_of
from brain.workspace import read_agent_definition, read_entity_title

if TYPE_CHECKING:
    from brain.layouts.base import Layout


EARLY_READ_MAX = 256 * 1024  # a bigger note waits for the index for its description


@dataclass(slots=True)
class EarlyNames:
    """Every linkable name of a workspace by its paths, as bare nodes, with their name keys."""

    catalog: Catalog
    names: Mapping[str, list[NameEntry]] = field(default_factory=dict)
    root: Path | None = None
    _descriptions: dict[str, str] = field(default_factory=dict)

    def description(self, node: Linkable) -> str:
        """What the index will say of a node (a note's description, a workflow's title, an
        agent's description), read from its one file: only for the items a completion shows,
        a hundred small reads, not the 10,000 of an ingest. What can't be read says nothing."""
        known = self._descriptions.get(node.id)
        if known is None:
            known = self._descriptions[node.id] = self._read_description(node)
        return known

    def _read_description(self, node: Linkable) -> str:
        fallback = node.ident if isinstance(node, EntityNode) else ""  # ingest's title default
        if self.root is None or not node.path:
            return fallback
        try:
            with os.fdopen(safefs.open_regular(self.root / node.path), "rb") as file:  # never a FIFO
                raw = file.read(EARLY_READ_MAX + 1)
        except OSError:
            return fallback
        if len(raw) > EARLY_READ_MAX:
            return fallback
        if isinstance(node, MemoryNode):
            return note_description(raw.decode("utf-8", errors="replace"), node.path)
        if isinstance(node, EntityNode):
            return read_entity_title(node.path, raw) or fallback
        return read_agent_definition(node.path, node.name, raw).description

    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]:
        return {key: list(self.names[key]) for key in keys if key in self.names}

    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]:
        return {}  # headings and blocks come from parsing: unknown until indexed

    def node(self, node_id: str) -> Linkable | None:
        return self.catalog.find(node_id)


@dataclass(frozen=True, slots=True)
class WalkedNames:
    """What a walk found (packed to cross the pipe from brain/lsp/startup/prewalk.py by packed.py)."""

    nodes: list[tuple[str, Linkable]]
    names: dict[str, list[NameEntry]]

    def early(self, root: Path) -> EarlyNames:
        return EarlyNames(Catalog.of_nodes(self.nodes), self.names, root)


def walk_names(root: Path, layout: Layout) -> EarlyNames:
    """The names the layout's walk finds under `root` (no file is read)."""
    return walk_parts(root, layout).early(root)


def walk_parts(root: Path, layout: Layout) -> WalkedNames:
    """The walk of `walk_names`, before its catalog is built."""
    nodes: dict[str, Linkable] = {}
    names: list[NameEntry] = []
    definitions: dict[str, str] = {}
    owners: set[str] = set()
    for st in sorted(layout.walk(root), key=lambda s: s.rel):  # the first path of an id wins
        role = layout.classify(st.rel)
        if st.is_link or role.kind in ("ignored", "problem"):
            continue
        if role.kind == "memory":
            node_id = note_id(role.node_kind, role.scope, role.name)
            if node_id in nodes:
                continue
            memory = MemoryNode(
                scope=role.scope, name=role.name, path=st.rel, description="", type=None, hash="",
                size=st.size, modified_at=st.mtime_ns / 1e9, body="", note_kind=role.node_kind,
            )
            nodes[node_id] = memory
            names.append(NameEntry(node_id, role.node_kind, leaf_key(role.name), role.scope))
            owner = memory.owner
            if owner is not None:
                owners.add(owner)
        elif role.kind == "entity" and role.entity_kind is not None:
            entity = EntityNode(role.entity_kind, role.name, role.name, st.rel)
            if entity.id not in nodes:
                nodes[entity.id] = entity
                names.append(entry_of(entity))
        elif role.kind == "agent":
            definitions.setdefault(role.name, st.rel)
        elif role.kind == "file":
            named = file_id(role.scope, role.name)
            names.append(NameEntry(named, Kind.FILE, leaf_key(role.name), role.scope))
    # Agents as ingest counts them: every definition, scope folder and owner of a note.
    for name in sorted(set(definitions) | layout.scope_folders(root) | owners):
        agent = AgentNode(name, "", False, False, definitions.get(name))
        nodes[agent.id] = agent
        names.append(entry_of(agent))
    by_key: dict[str, list[NameEntry]] = {}
    for name_entry in names:
        by_key.setdefault(name_entry.key, []).append(name_entry)
    return WalkedNames(list(nodes.items()), by_key)
