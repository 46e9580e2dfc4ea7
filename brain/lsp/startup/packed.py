"""A walk's names as they cross the pipe from the walking child (brain/lsp/startup/prewalk.py), packed
so that the server unpacks only what a completion reads.

Unpickling the 10,000 nodes and name entries of a walk cost the server 0.15 s of CPU (a frozen
slotted dataclass is rebuilt one attribute at a time, in Python), on the core that is still
busy importing, right when the first `[[` waits for them; building the catalog added 0.02 s.
So the child builds the catalog and pickles each of its groups on its own (a scope's
memories, the workflows, chats, work items, agents), sorted as the catalog sorts them, and
sends each name key's entries as one string. The server unpickles a group when a completion first
reads it (a `[[` in one scope reads that scope, `shared` and the entities: a quarter of the
nodes) and makes the `NameEntry`s of a key when a lookup asks for that key. The nodes are
pickled as calls of their classes with every field (a third cheaper to unpickle than the
dataclasses' own `__setstate__`).
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import operator
import pickle
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from brain.lsp.features.catalog import Catalog, Entry, Linkable
from brain.model import AgentNode, EntityNode, Kind, MemoryNode
from brain.resolve import NameEntry

if TYPE_CHECKING:
    from brain.lsp.startup.early import EarlyNames, WalkedNames

GroupKey = tuple[str, str]  # ("memory", scope) or ("other", kind value)
SEP = "\0"  # between the fields of a key's entries: no path, hence no id or scope, holds it


@dataclass(frozen=True, slots=True)
class PackedNames:
    groups: dict[GroupKey, bytes]  # each a pickled list[Entry], in the catalog's order
    where: bytes  # a pickled dict: node id -> its group (for `find`, rarely early)
    names: dict[str, str]  # name key -> its entries, by `encode_entries`

    def early(self, root: Path) -> EarlyNames:
        from brain.lsp.startup.early import EarlyNames

        return EarlyNames(PackedCatalog(self.groups, self.where), NameRows(self.names), root)


def pack(walked: WalkedNames) -> PackedNames:
    """What the child sends: the walk's catalog, group by group, and its name keys as rows."""
    catalog = Catalog.of_nodes(walked.nodes)
    groups: dict[GroupKey, list[Entry]] = {
        ("memory", scope): catalog.memories(scope) for scope in catalog.scopes()
    }
    for kind in catalog.kinds():
        groups[("other", kind.value)] = catalog.others(kind)
    where = {e.node.id: key for key, entries in groups.items() for e in entries}
    return PackedNames(
        {key: dumps(entries) for key, entries in groups.items()},
        pickle.dumps(where, protocol=pickle.HIGHEST_PROTOCOL),
        {key: encode_entries(entries) for key, entries in walked.names.items()},
    )


def encode_entries(entries: list[NameEntry]) -> str:
    """A key's entries as one string (one object to unpickle, not a list of tuples of four):
    id, kind and scope of each (no scope: empty; a scope is a folder's name, never empty)."""
    return SEP.join(f"{e.id}{SEP}{e.kind.value}{SEP}{e.scope or ''}" for e in entries)


def decode_entries(key: str, encoded: str) -> list[NameEntry]:
    if not encoded:
        return []
    fields = encoded.split(SEP)
    return [NameEntry(node_id, Kind(kind), key, scope or None)
            for node_id, kind, scope in zip(fields[0::3], fields[1::3], fields[2::3], strict=True)]


def _as_call(cls: type) -> Callable[[object], tuple[type, tuple[object, ...]]]:
    """Pickle an instance of the dataclass `cls` as `cls` called with all its init fields, in
    order (read by one C call: the pickler calls this for every node; __post_init__ works out
    the others, MemoryNode's id)."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    fields = operator.attrgetter(*names)
    return lambda obj: (cls, fields(obj))


_AS_CALLS = dict(copyreg.dispatch_table)
_AS_CALLS.update({cls: _as_call(cls) for cls in (Entry, MemoryNode, EntityNode, AgentNode)
                  if sum(f.init for f in dataclasses.fields(cls)) > 1})


def dumps(entries: list[Entry]) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _AS_CALLS
    pickler.dump(entries)
    return out.getvalue()


class PackedCatalog(Catalog):
    """The catalog of a walk (no store to follow), each group unpickled when first read."""

    def __init__(self, groups: dict[GroupKey, bytes], where: bytes) -> None:
        super().__init__(None)
        self._packed = groups
        self._packed_where = where
        self._where: dict[str, GroupKey] | None = None
        self._unpacked: dict[GroupKey, list[Entry]] = {}
        self._by_id: dict[GroupKey, dict[str, Linkable]] = {}
        self._group_lock = threading.Lock()  # requests and the hover of another thread
        self.built = True

    def _group(self, key: GroupKey) -> list[Entry]:
        with self._group_lock:
            entries = self._unpacked.get(key)
            if entries is None:
                packed = self._packed.get(key)
                entries = self._unpacked[key] = pickle.loads(packed) if packed is not None else []
            return entries

    def unpacked(self) -> set[GroupKey]:
        """The groups read so far."""
        with self._group_lock:
            return set(self._unpacked)

    def find(self, node_id: str) -> Linkable | None:
        if self._where is None:
            self._where = pickle.loads(self._packed_where)
        key = self._where.get(node_id)
        if key is None:
            return None
        by_id = self._by_id.get(key)
        if by_id is None:
            by_id = self._by_id[key] = {e.node.id: e.node for e in self._group(key)}
        return by_id.get(node_id)

    def scopes(self) -> list[str]:
        return sorted(scope for part, scope in self._packed if part == "memory")

    def kinds(self) -> list[Kind]:
        return [Kind(value) for part, value in self._packed if part == "other"]

    def memories(self, scope: str) -> list[Entry]:
        return self._group(("memory", scope))

    def others(self, kind: Kind) -> list[Entry]:
        return self._group(("other", kind.value))


class NameRows(Mapping[str, list[NameEntry]]):
    """Name key -> its entries, decoded when the key is looked up."""

    def __init__(self, rows: dict[str, str]) -> None:
        self._rows = rows

    def __getitem__(self, key: str) -> list[NameEntry]:
        return decode_entries(key, self._rows[key])

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
