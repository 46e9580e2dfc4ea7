"""A snapshot's payload as columns: a few bulk decodes instead of a million small objects.

At 100,000 notes a snapshot holds 100,000 memories, 550,000 links and 100,000 file states.
Decoded row by row into dataclasses, that took 9 s; here every string is written once, in
one table, and everything else is a column: numbers as packed arrays (`array.array`, one
`frombytes` each), strings as indexes into the table. Loading is a handful of C-speed
decodes and `zip`s; ids come out shared (a link's source is its memory's id, a file's hash
its memory's hash), memories stay plain rows until read (brain/store/memory/rows.py), and
links stay columns, each source's rows built when read (brain/store/memory/links/table.py).

The payload is a msgpack stream of: the string table, the ingester's file states, the rest
of the ingester's state (brain/snapshot/rows.py, field by field), the memories, their bodies, the
links, and agents, entities and plain files (rows.py again: few). Nothing in the data picks
a class; a column of the wrong type or length, or an index out of the table, raises.
"""

from __future__ import annotations

import functools
import operator
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import accumulate, chain, islice, repeat
from typing import Any

import numpy as np

from brain.ingest.state import FileState, IngestState
from brain.model import AgentNode, EntityNode, FileNode, Kind, MemoryNode
from brain.snapshot import rows
from brain.store.memory.image import StoreImage
from brain.store.memory.links.image import NUMBER_COLUMNS, STRING_COLUMNS, LinkImage, strings_at
from brain.store.memory.packed import BLOB, BLOB_LEAD, NESTED_AT
from brain.store.memory.rows import KIND, MEMORY_FIELDS, MemoryRow, nested_blob

_KIND_VALUES = {k.value for k in Kind}
# What the packed arrays assume about this machine (part of a snapshot's identity).
LAYOUT = f"{sys.byteorder}:I{array('I').itemsize}:q{array('q').itemsize}:d{array('d').itemsize}"
_LEAD = operator.itemgetter(0)  # a blob's first byte
_INDEX = np.dtype(f"=u{array('I').itemsize}")  # what StringTable.column packs
_STRING_FIELDS = ("scope", "name", "path", "type", "hash", "note_kind")
# A memory's description is its own (nothing else holds the same text): written as it is, not
# through the string table, whose dict of every distinct string (an entry and an int object
# each, about 70 bytes) was most of a write's memory above the graph (490 MB at 1,000,000).
_OWN_FIELDS = ("description",)


class StringTable:
    """Every distinct string once; index 0 is None."""

    def __init__(self) -> None:
        self.index: dict[str | None, int] = {None: 0}

    def column(self, values: Iterable[str | None]) -> bytes:
        index = self.index
        out = array("I")
        append = out.append
        for value in values:
            at = index.get(value)
            if at is None:
                at = index[value] = len(index)
            append(at)
        return out.tobytes()

    def strings(self) -> list[str | None]:
        return list(self.index)

    def chunks(self, size: int) -> Iterator[Any]:
        """The table as `_chunks` writes a list, read from the dict (no list of it all: 48 MB
        at 1,000,000 notes, beside the dict)."""
        yield len(self.index)
        keys = iter(self.index)
        while part := list(islice(keys, size)):
            yield part


def _ints(code: str, values: Iterable[int]) -> bytes:
    return array(code, values).tobytes()


def _array(code: str, data: Any, length: int | None = None) -> array[Any]:
    if type(data) is not bytes:
        raise ValueError("a packed column that is not bytes")
    out = array(code)
    out.frombytes(data)
    if length is not None and len(out) != length:
        raise ValueError(f"a column of {len(out)} where {length} were written")
    return out


class _Lookup:
    """Indexes into the string table, resolved by numpy in one C loop (a `map` of
    `list.__getitem__` over 5 million indexes was a quarter of a load). An index out of the
    table raises IndexError, like the list would."""

    def __init__(self, strings: Sequence[str | None]) -> None:
        self.strings = np.empty(len(strings), dtype=object)
        self.strings[:] = strings  # element by element: never a 2-D array of characters

    def column(self, data: Any, length: int | None = None) -> list[Any]:
        if type(data) is not bytes or len(data) % _INDEX.itemsize:
            raise ValueError("a string column that is not packed indexes")
        at = np.frombuffer(data, dtype=_INDEX)
        if length is not None and len(at) != length:
            raise ValueError(f"a column of {len(at)} where {length} were written")
        found: list[Any] = self.strings[at].tolist()
        return found


def _chunks(values: Sequence[Any], size: int) -> Iterator[Any]:
    """A long list as its length, then slices: never one big buffer in memory."""
    yield len(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _unchunk(unpack: Callable[[], Any]) -> list[Any]:
    count = unpack()
    if type(count) is not int:
        raise ValueError("a chunked list without its length")
    out: list[Any] = []
    while len(out) < count:
        part = unpack()
        if type(part) is not list or not part:
            raise ValueError("a chunked list cut short")
        out.extend(part)
    if len(out) != count:
        raise ValueError("a chunked list of the wrong length")
    return out


def _field(held: Sequence[MemoryNode | MemoryRow], name: str) -> Iterator[Any]:
    at = MEMORY_FIELDS.index(name)
    for memory in held:
        yield memory[at] if type(memory) is tuple else getattr(memory, name)



def encode(state: IngestState, image: StoreImage, chunk: int = 512) -> Iterator[Any]:
    """The payload's top-level values, in order (`decode` reads them back). Built column by
    column and sent in slices, so a write costs little beyond the columns themselves."""
    table = StringTable()
    # The write's own copy, so every pass goes in one order (a list of its items was 7 MB
    # of a 100,000-note write's peak).
    files = state.files
    ingest = {
        "rels": table.column(files),
        "sizes": _ints("q", (f.size for f in files.values())),
        "mtimes": _ints("q", (f.mtime_ns for f in files.values())),
        "hashes": table.column(f.hash for f in files.values()),
        "nodes": table.column(f.node_id for f in files.values()),
        "claim_ids": table.column(state.claims),
        "claim_counts": _ints("I", map(len, state.claims.values())),
        "claim_rels": table.column(chain.from_iterable(sorted(c) for c in state.claims.values())),
    }
    del files
    rest = replace(state, files={}, claims={})
    held = image.memories
    memories: dict[str, Any] = {"ids": table.column(image.memory_ids)}
    for name in _STRING_FIELDS:
        memories[name] = table.column(
            k.value if isinstance(k, Kind) else k for k in _field(held, name)
        ) if name == "note_kind" else table.column(_field(held, name))
    memories["size"] = _ints("q", _field(held, "size"))
    memories["modified_at"] = array("d", _field(held, "modified_at")).tobytes()
    links = _link_columns(image.links, table)
    graph_rest = [
        rows.codec(list[AgentNode])[0](image.agents),  # type: ignore[index]
        rows.codec(list[EntityNode])[0](image.entities),  # type: ignore[index]
        rows.codec(list[FileNode])[0](image.files),  # type: ignore[index]
    ]
    yield from table.chunks(chunk * 16)
    del table
    yield ingest
    yield rows.codec(IngestState)[0](rest)  # type: ignore[index]
    yield memories
    for name in _OWN_FIELDS:
        yield len(held)
        for start in range(0, len(held), chunk * 16):
            yield list(_field(held[start : start + chunk * 16], name))
    yield len(held)
    for start in range(0, len(held), chunk):  # one blob a memory, as the store holds it
        yield [nested_blob(m) for m in held[start : start + chunk]]
    yield from _chunks(image.bodies, chunk)
    yield list(links)  # the names, then one column at a time (each a few MB at most)
    yield from (column() for column in links.values())
    yield graph_rest


# How each number column is written (the format of snapshots before the link table's).
_NUMBER_CODES = {"ordinal": "I", "status": "B", "embed": "B", "line": "q", "column": "q"}


def _link_columns(links: LinkImage | None, table: StringTable) -> dict[str, Callable[[], Any]]:
    """The live links' columns, their string indexes turned into the snapshot's table's.

    Every string the live links use goes into the table now (it must be complete before it
    is written, first); each column is built when called, as it is written, so the write
    holds one column at a time (at 100,000 notes, building them all first was 50 MB of the
    write's peak)."""
    image = links or LinkImage.empty()
    keep = image.live_links()

    def live(name: str) -> np.ndarray[Any, Any]:
        values = image.columns[name]
        return values if keep is None else values[keep]

    used = image.used_strings()
    remap = np.zeros(len(image.strings), _INDEX)
    remap[used] = np.frombuffer(table.column(strings_at(image.strings, used)), dtype=_INDEX)
    blocks = image.live_blocks()
    sources = table.column(map(image.sources.__getitem__, blocks.tolist()))
    counts = np.diff(image.starts)[blocks].astype("=I").tobytes()
    moved = None if keep is None else np.cumsum(keep) - 1
    candidates = sorted(
        (at if moved is None else int(moved[at]), table.column(names))
        for at, names in image.candidates.items() if keep is None or keep[at]
    )
    out: dict[str, Callable[[], Any]] = {"sources": lambda: sources, "counts": lambda: counts}
    for name in STRING_COLUMNS:
        out[name] = functools.partial(lambda n: remap[live(n)].tobytes(), name)
    for name, code in _NUMBER_CODES.items():
        out[name] = functools.partial(lambda n, c: live(n).astype(f"={c}").tobytes(), name, code)
    out["candidate_at"] = lambda: _ints("I", (at for at, _ in candidates))
    out["candidates"] = lambda: [names for _, names in candidates]
    return out


def decode(unpack: Callable[[], Any]) -> tuple[IngestState, StoreImage]:
    """What `encode` wrote, from `unpack` (the next top-level value each call)."""
    state, image, fill = decode_deferred(unpack)
    fill()
    return state, image


def decode_deferred(unpack: Callable[[], Any]) -> tuple[IngestState, StoreImage, Callable[[], None]]:
    """`decode`, but the state's `files` and `claims` are left empty until the third value
    is called (it fills those same dicts): a server is ready before it builds 100,000
    file states, which only its first sync reads. Their columns are checked now."""
    strings: list[str | None] = _unchunk(unpack)
    if not strings or strings[0] is not None:
        raise ValueError("a string table of the wrong shape")
    look = _Lookup(strings)

    ingest = unpack()
    rels = look.column(ingest["rels"])
    n = len(rels)
    sizes, mtimes = _array("q", ingest["sizes"], n), _array("q", ingest["mtimes"], n)
    hashes, nodes = look.column(ingest["hashes"], n), look.column(ingest["nodes"], n)
    claim_ids = look.column(ingest["claim_ids"])
    claim_rels = look.column(ingest["claim_rels"])
    ends = list(accumulate(_array("I", ingest["claim_counts"], len(claim_ids))))
    if (ends[-1] if ends else 0) != len(claim_rels):
        raise ValueError("claims of the wrong length")
    rest: IngestState = rows.codec(IngestState)[1](unpack())  # type: ignore[index]
    state = replace(rest, files={}, claims={})

    def fill() -> None:
        state.files.update(zip(rels, map(FileState, sizes, mtimes, hashes, nodes), strict=True))
        state.claims.update(zip(claim_ids, map(tuple, map(claim_rels.__getitem__, map(
            slice, [0, *ends], ends))), strict=True))

    memories = unpack()
    ids = look.column(memories["ids"])
    m = len(ids)
    columns: list[Any] = [None] * len(MEMORY_FIELDS)
    for name in _STRING_FIELDS:
        columns[MEMORY_FIELDS.index(name)] = look.column(memories[name], m)
    columns[MEMORY_FIELDS.index("size")] = _array("q", memories["size"], m)
    columns[MEMORY_FIELDS.index("modified_at")] = _array("d", memories["modified_at"], m)
    for name in _OWN_FIELDS:
        own = _unchunk(unpack)
        if len(own) != m or set(map(type, own)) - {str}:
            raise ValueError(f"memory {name}s of the wrong length or type")
        columns[MEMORY_FIELDS.index(name)] = own
    columns[MEMORY_FIELDS.index("body")] = repeat("", m)
    # Each memory's nested fields stay the blob they were written as, unpacked when the
    # memory is first read (brain/store/memory/packed.py): decoded here they were two thirds
    # of a warm start's objects. Checked by C loops: bytes, each a msgpack array of five (a
    # generator over 100,000 rows was a tenth of a warm start's decode).
    nested = _unchunk(unpack)
    if len(nested) != m or set(map(type, nested)) - {bytes} or (
            set(map(_LEAD, nested)) - {BLOB_LEAD}):
        raise ValueError("nested memory fields of the wrong shape")
    columns[BLOB] = nested
    for at in NESTED_AT[1:]:
        columns[at] = repeat(None, m)
    if not set(columns[KIND]) <= _KIND_VALUES:
        raise ValueError("a memory of unknown kind")
    held: list[MemoryNode | MemoryRow] = list(zip(*columns, strict=True)) if m else []
    bodies = _unchunk(unpack)
    if len(bodies) != m or set(map(type, bodies)) - {bytes, type(None)}:
        raise ValueError("bodies of the wrong length or type")

    names = unpack()
    if type(names) is not list or not all(type(n) is str for n in names):
        raise ValueError("link columns without their names")
    links = _decode_links({name: unpack() for name in names}, look, strings)
    agents, entities, plain = unpack()
    image = StoreImage(
        memory_ids=ids, memories=held, bodies=bodies, links=links,
        agents=rows.codec(list[AgentNode])[1](agents),  # type: ignore[index]
        entities=rows.codec(list[EntityNode])[1](entities),  # type: ignore[index]
        files=rows.codec(list[FileNode])[1](plain),  # type: ignore[index]
    )
    return state, image, fill


def _decode_links(columns: dict[str, Any], look: _Lookup, strings: list[str | None]) -> LinkImage:
    """The link columns as written, checked, kept as columns (rows are built when read)."""
    sources = look.column(columns["sources"])
    counts = _numbers("I", columns["counts"])
    candidate_at = _array("I", columns["candidate_at"])
    packed = columns["candidates"]
    if type(packed) is not list or len(candidate_at) != len(packed) or set(map(type, packed)) - {bytes}:
        raise ValueError("candidates of the wrong length")
    candidates = dict(zip(candidate_at, map(tuple, map(look.column, packed)), strict=True))
    found = {name: _numbers("I", columns[name]) for name in STRING_COLUMNS}
    for name, code in _NUMBER_CODES.items():
        found[name] = _numbers(code, columns[name]).astype(NUMBER_COLUMNS[name])
    return LinkImage.checked(strings, sources, counts, found, candidates)


def _numbers(code: str, data: Any) -> np.ndarray[Any, Any]:
    """A packed column as a numpy array over its bytes (no copy)."""
    dtype = np.dtype(f"={code}")
    if type(data) is not bytes or len(data) % dtype.itemsize:
        raise ValueError("a packed column that is not bytes of its numbers")
    return np.frombuffer(data, dtype=dtype)
