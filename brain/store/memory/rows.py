"""The embedded store's compact forms: a link as a plain tuple, a memory as a row until asked.

At 100,000 notes the store holds 550,000 links and 100,000 memories. As objects (a frozen
dataclass each, with its own copies of every id) they cost most of a gigabyte and seconds to
build from a snapshot. So a link is read and written as the tuple of its fields in `Link`'s
order (built by one C call, ids shared with the nodes they name; the store holds them as
columns, brain/store/memory/links/table.py), and a memory loaded from a snapshot stays the row
it was decoded as until something reads it. Both become the public `Link` and `MemoryNode`
only on their way out of the store.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from itertools import chain
from typing import Any, Final

from brain.model import (
    NO_HEADINGS,
    Anchors,
    Block,
    Heading,
    Headings,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Problem,
    Severity,
    leaf_key,
    name_key,
)
from brain.resolve import NameEntry
from brain.store.linking import entry_of
from brain.store.memory.packed import BLOB, NESTED_AT, pack_nested, unpack_nested

# (source, ordinal, target_id, status, raw, target, key, label, anchor, embed, line, column,
#  candidates): `as_link(row)` is the link. `raw` is None where it is the link written the
#  plain way (`written`): most links are, and their text was 60 bytes a link of the store
#  (33 MB at 100,000 notes, in the snapshot's string table as well).
LinkRow = tuple[str, int, str, LinkStatus, str | None, str, str, str | None, str | None, bool, int,
                int, tuple[str, ...]]
SOURCE: Final = 0
ORDINAL: Final = 1
TARGET_ID: Final = 2
STATUS: Final = 3
RAW: Final = 4
KEY: Final = 6


def written(target: str, anchor: str | None, label: str | None, embed: bool) -> str:
    """A wikilink's text, written the plain way: `[[target#anchor|label]]`, `!` if embedded."""
    return "".join((
        "![[" if embed else "[[", target, "" if anchor is None else "#" + anchor,
        "" if label is None else "|" + label, "]]",
    ))


def link_row(link: Link) -> LinkRow:
    """The link as held (brain.store.linking interns its ids when it builds it)."""
    source, ordinal, target_id, status, raw, target, key, label, anchor, embed, line, column, \
        candidates = link
    # Kept only where it is not written the plain way (one copy of each such text).
    kept = None if raw == written(target, anchor, label, embed) else sys.intern(raw)
    return (source, ordinal, target_id, status, kept, target, key, label, anchor, embed, line,
            column, candidates)


def kept_raws(
    raws: Sequence[str], targets: Sequence[str], anchors: Sequence[str | None],
    labels: Sequence[str | None], embeds: Sequence[bool],
) -> tuple[str | None, ...]:
    """`link_row`'s RAW field of many links at once, from their columns: `written` inlined
    in one comprehension. A row built for each link, then taken apart again into columns,
    was a fifth of a first sync's store write (issue 43)."""
    intern = sys.intern
    return tuple(
        None if raw == "".join((
            "![[" if embed else "[[", target, "" if anchor is None else "#" + anchor,
            "" if label is None else "|" + label, "]]",
        )) else intern(raw)
        for raw, target, anchor, label, embed in zip(raws, targets, anchors, labels, embeds, strict=True)
    )


def as_link(row: LinkRow) -> Link:
    if row[RAW] is None:
        source, ordinal, target_id, status, _, target, key, label, anchor, embed, line, column, \
            candidates = row
        return Link(source, ordinal, target_id, status, written(target, anchor, label, embed),
                    target, key, label, anchor, embed, line, column, candidates)
    return Link._make(row)


# A memory as a snapshot gives it: MemoryNode's fields in order, with the body left out and
# headings, problems and blocks as plain lists (built into objects on first read).
MemoryRow = tuple[Any, ...]
MEMORY_FIELDS = tuple(f.name for f in fields(MemoryNode) if f.init)  # not `id`: worked out
PATH = MEMORY_FIELDS.index("path")
SCOPE = MEMORY_FIELDS.index("scope")
_NAME = MEMORY_FIELDS.index("name")
KIND = MEMORY_FIELDS.index("note_kind")
_TYPE = MEMORY_FIELDS.index("type")
_HASH = MEMORY_FIELDS.index("hash")
_DESCRIPTION = MEMORY_FIELDS.index("description")
_MODIFIED = MEMORY_FIELDS.index("modified_at")
_HEADINGS = MEMORY_FIELDS.index("headings")
_PROBLEMS = MEMORY_FIELDS.index("problems")
_BLOCKS = MEMORY_FIELDS.index("blocks")
_TRIGGERS = MEMORY_FIELDS.index("triggers")
_BODY = MEMORY_FIELDS.index("body")
_PROPERTIES = MEMORY_FIELDS.index("properties")
_SEVERITIES = {s.value: s for s in Severity}
PROBLEM_FIELDS = tuple(f.name for f in fields(Problem))
_SEVERITY = PROBLEM_FIELDS.index("severity")
_PROBLEM_CANDIDATES = PROBLEM_FIELDS.index("candidates")


def memory_row(memory: MemoryNode) -> MemoryRow:
    """A memory as a snapshot keeps it (plain values only; `memory_of` is the inverse)."""
    row: list[Any] = [getattr(memory, name) for name in MEMORY_FIELDS]
    row[_BODY] = ""
    row[_HEADINGS] = [(h.text, h.level, h.line, h.source) for h in memory.headings]
    row[_BLOCKS] = [(b.id, b.line, b.column, b.start_line) for b in memory.blocks]
    row[_PROBLEMS] = [problem_row(p) for p in memory.problems]
    row[_TRIGGERS] = list(memory.triggers)
    row[KIND] = memory.note_kind.value
    row[_PROPERTIES] = dict(memory.properties)
    return tuple(row)


def problem_row(problem: Problem) -> tuple[Any, ...]:
    row = [getattr(problem, name) for name in PROBLEM_FIELDS]
    row[_SEVERITY] = problem.severity.value
    row[_PROBLEM_CANDIDATES] = list(problem.candidates)
    return tuple(row)


def problem_of(row: Any) -> Problem:
    values = list(row)
    values[_SEVERITY] = _SEVERITIES[values[_SEVERITY]]
    values[_PROBLEM_CANDIDATES] = tuple(values[_PROBLEM_CANDIDATES])
    return Problem(*values)


_KINDS = {k.value: k for k in Kind}


# The properties of every memory that has none (most: `description` and `type` are fields of
# their own). Nothing mutates a memory's properties; one empty dict a memory was 64 bytes,
# 64 MB at 1,000,000 notes.
NO_PROPERTIES: dict[str, Any] = {}


def held_memory(memory: MemoryNode) -> MemoryNode:
    """The memory as the store holds it: no body (the store keeps bodies apart), one copy of
    its scope, type and name (the name is its key, most are) and of empty properties."""
    scope, name, kind, properties = held_fields(memory.scope, memory.name, memory.type, memory.properties)
    if memory.body or scope is not memory.scope or name is not memory.name or (
            kind is not memory.type or properties is not memory.properties):
        memory = replace(memory, body="", scope=scope, name=name, type=kind, properties=properties)
    return memory


def held_values(values: list[Any], name_is_key: bool = False) -> None:
    """A memory's field values (a parse helper's pickle) made those `held_memory` keeps, so
    the store holds the memory built from them as it is (no copy of a frozen dataclass a note).
    `name_is_key`: the helper found the name to be its own key, which is not worked out again
    here (this process's busiest thread)."""
    values[SCOPE], values[_NAME], values[_TYPE], values[_PROPERTIES] = held_fields(
        values[SCOPE], values[_NAME], values[_TYPE], values[_PROPERTIES], name_is_key)


def held_fields(
    scope: str, name: str, kind: str | None, properties: Mapping[str, Any],
    name_is_key: bool = False,
) -> tuple[str, str, str | None, Mapping[str, Any]]:
    """A memory's scope, name, type and properties as the store holds them (`held_memory`)."""
    key = sys.intern(name if name_is_key else leaf_key(name))
    return (sys.intern(scope), key if key == name else name,
            kind if kind is None else sys.intern(kind), properties or NO_PROPERTIES)


def memory_of(row: MemoryRow) -> MemoryNode:
    """The memory a row stands for (without its body; the store keeps that apart): a packed
    row's nested fields are unpacked now (brain/store/memory/packed.py)."""
    values = unpacked(row)
    values[_PROPERTIES] = values[_PROPERTIES] or NO_PROPERTIES
    headings = values[_HEADINGS]
    if not isinstance(headings, Headings):  # a row with its nested fields apart
        values[_HEADINGS] = Headings(Heading(*h) for h in headings) if headings else NO_HEADINGS
    values[_BLOCKS] = tuple(Block(*b) for b in values[_BLOCKS])
    values[_PROBLEMS] = tuple(problem_of(p) for p in values[_PROBLEMS])
    values[_TRIGGERS] = tuple(values[_TRIGGERS])
    values[KIND] = _KINDS[values[KIND]]
    return MemoryNode(*values)


def unpacked(row: MemoryRow) -> list[Any]:
    """The row's values with its nested fields in their slots (a packed row's headings as
    `Headings`, the other nested fields as `memory_row` gives them)."""
    values = list(row)
    if type(values[BLOB]) is bytes:
        for at, value in zip(NESTED_AT, unpack_nested(values[BLOB]), strict=True):
            values[at] = value
        flat = values[_HEADINGS]
        if type(flat) is not list:
            raise ValueError("a memory's headings that are not a list")
        values[_HEADINGS] = Headings.of_flat(tuple(flat)) if flat else NO_HEADINGS
    return values


def packed_row(memory: MemoryNode) -> MemoryNode | MemoryRow:
    """The memory as the store holds it: a packed row (brain/store/memory/packed.py), or the
    node itself where a property is of a type msgpack has no form for (none that frontmatter
    parses to: kept as a guard, a node is always a valid way to hold a memory)."""
    row: list[Any] = [getattr(memory, name) for name in MEMORY_FIELDS]
    try:
        row[BLOB] = pack_nested(_nested_values(memory))
    except TypeError:
        return memory
    row[_BODY] = ""
    row[KIND] = memory.note_kind.value
    for at in NESTED_AT[1:]:
        row[at] = None
    return tuple(row)


def _nested_values(memory: MemoryNode) -> list[Any]:
    """The five nested fields as a blob holds them: the headings as their flat values (what
    `Headings` holds: no `Heading` is built either way), the rest as `memory_row` gives them."""
    headings = memory.headings
    flat = headings.flat if isinstance(headings, Headings) else tuple(chain.from_iterable(headings))
    return [
        list(flat), dict(memory.properties), [problem_row(p) for p in memory.problems],
        [(b.id, b.line, b.column, b.start_line) for b in memory.blocks], list(memory.triggers),
    ]


def nested_blob(held: MemoryNode | MemoryRow) -> bytes:
    """What a snapshot writes of a memory's nested fields, however it is held (raises as
    msgpack does where it cannot hold one: the snapshot is then not written)."""
    if type(held) is tuple and type(held[BLOB]) is bytes:
        blob: bytes = held[BLOB]
        return blob
    memory = held if isinstance(held, MemoryNode) else memory_of(held)
    return pack_nested(_nested_values(memory))


def anchors_of(held: MemoryNode | MemoryRow) -> Anchors:
    """A memory's headings and blocks without building the memory (link resolution asks
    this of notes nothing else reads: built, they stayed built)."""
    if type(held) is not tuple:
        return held.anchors  # type: ignore[union-attr]
    values = unpacked(held)
    return Anchors(values[_HEADINGS], tuple(Block(*b) for b in values[_BLOCKS]))


def scope_of(held: MemoryNode | MemoryRow) -> str:
    """The scope of a memory as the store holds it (a row until first read)."""
    return held[SCOPE] if type(held) is tuple else held.scope  # type: ignore[union-attr]


def facts_of(held: MemoryNode | MemoryRow) -> tuple[str, str, str | None]:
    """(hash, scope, type) of a memory as the store holds it: what its vector index asks."""
    if type(held) is tuple:
        return held[_HASH], held[SCOPE], held[_TYPE]
    return held.hash, held.scope, held.type  # type: ignore[union-attr]


def health_facts_of(held: MemoryNode | MemoryRow) -> tuple[str, float, bool, bool]:
    """(scope, modified_at, without a description, without a type) of a memory as the store
    holds it: what memory health counts, read from a row without building the node (a health
    count over a packed store would otherwise unpack, and keep, every memory)."""
    if type(held) is tuple:
        description, note_type = held[_DESCRIPTION], held[_TYPE]
        return held[SCOPE], held[_MODIFIED], not description.strip(), not note_type
    m: MemoryNode = held  # type: ignore[assignment]
    return m.scope, m.modified_at, not m.description.strip(), not m.type


class MemoryOrder:
    """The memories' ids in order, and each scope's (grouped on first ask): a listing of one
    scope passes over that scope's memories, not over every one. Built anew after a change."""

    def __init__(self, memories: Mapping[str, MemoryNode | MemoryRow]) -> None:
        self.ids = sorted(memories)
        self._memories = memories
        self._scopes: dict[str, list[str]] | None = None

    def of_scope(self, scope: str) -> list[str]:
        if self._scopes is None:
            scopes: dict[str, list[str]] = {}
            for node_id in self.ids:  # in order, so each scope's list is too
                scopes.setdefault(scope_of(self._memories[node_id]), []).append(node_id)
            self._scopes = scopes
        return self._scopes.get(scope, [])


def checked_memory_row(row: Any) -> MemoryRow:
    """A decoded row, its shape checked now (a row is built into a memory only when read,
    and a bad one must be refused with the snapshot, not fail a query later)."""
    if type(row) is not tuple or len(row) != len(MEMORY_FIELDS):
        raise ValueError("a memory row of the wrong shape")
    if row[KIND] not in _KINDS:
        raise ValueError(f"a memory of unknown kind {row[KIND]!r}")
    return row


def pack_body(body: str) -> bytes:
    # Level 1: a third of the size at a fifth of level 6's time; a lone surrogate survives.
    return zlib.compress(body.encode("utf-8", "surrogatepass"), 1)


def unpack_body(packed: bytes) -> str:
    return zlib.decompress(packed).decode("utf-8", "surrogatepass")


# `leaf_key` without its cache: an index of 100,000 distinct names only churns the cache (all
# misses), which made each key three times dearer and dropped the keys that lookups repeat.
_fold = name_key.__wrapped__


def memory_key(held: MemoryNode | MemoryRow) -> str:
    """The name key of a memory as held (a node, or still a row): its name's last segment."""
    name: str = held[1] if type(held) is tuple else held.name  # type: ignore[union-attr]
    return _fold(name.rsplit("/", 1)[-1])


def name_entry(held: MemoryNode | MemoryRow, node_id: str) -> NameEntry:
    """The name index's entry of a memory, held as a node or still as a row."""
    if type(held) is tuple:
        return NameEntry(node_id, _KINDS[held[KIND]], memory_key(held), held[0])
    return entry_of(held)  # type: ignore[arg-type]
