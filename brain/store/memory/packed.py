"""A memory held as a packed row: its plain fields in place, its nested ones as one blob.

At 1,000,000 notes a store held each memory as a `MemoryNode` (a first sync) or as a row
whose headings, properties, problems, blocks and triggers were Python lists (a snapshot's
restore). The nested fields are a dozen small objects a note: after a warm restart they
were 1.3 KB of its 3.3 KB (132 MB at 100,000 notes, 2.2 million objects decoded at every
start), and most memories are never read before the process ends. So both paths now hold a
memory as a `MemoryRow` whose `headings` slot holds those five fields packed with msgpack
(about 150 bytes a note) and whose four other nested slots are None; `memory_of` unpacks it
when the memory is first read, and `rows.anchors_of` reads the headings and blocks of one
without building the memory. A snapshot writes the blob as it is and reads it back as one
`bytes` a note (brain/snapshot/columns.py).

An integer past 64 bits in a note's frontmatter goes as an ext value of its digits, so
every memory packs (and a snapshot can hold it: one such note used to stop every snapshot of
its workspace from being written, each start then a full ingest).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Final

import msgpack  # type: ignore[import-untyped]

from brain.model import MemoryNode

_FIELDS = tuple(f.name for f in fields(MemoryNode) if f.init)  # rows.MEMORY_FIELDS
NESTED: Final = ("headings", "properties", "problems", "blocks", "triggers")
NESTED_AT: Final = tuple(_FIELDS.index(name) for name in NESTED)
BLOB: Final = NESTED_AT[0]  # the slot that holds the packed nested fields
# Every blob is a msgpack array of the five nested fields: a fixarray of 5 starts with this
# byte, which a snapshot's load checks of each blob in one C loop.
BLOB_LEAD: Final = 0x95
_EMPTY: Final[bytes] = msgpack.packb([[], {}, [], [], []], use_bin_type=True)


BIG_INT: Final = 1  # msgpack ext code: an integer past 64 bits, as its decimal digits


def pack_nested(values: list[Any]) -> bytes:
    """The five nested fields (as `memory_row` gives them) as one blob. Frontmatter may hold
    an integer msgpack has no room for (`count: 123456789012345678901234567890`): it goes as
    an ext value of its digits; a lone surrogate (a file's undecodable byte) as itself."""
    if not any(values):
        return _EMPTY  # one shared blob for the memories with none of them
    try:
        packed: bytes = msgpack.packb(values, use_bin_type=True, unicode_errors="surrogatepass")
    except OverflowError:
        packed = msgpack.packb(_big_ints(values), use_bin_type=True, unicode_errors="surrogatepass")
    return packed


def unpack_nested(blob: bytes) -> list[Any]:
    """The five nested fields of a blob; ValueError if it is not what `pack_nested` wrote."""
    values: Any = msgpack.unpackb(blob, raw=False, use_list=True, strict_map_key=True,
                                  unicode_errors="surrogatepass", ext_hook=_ext)
    if type(values) is not list or len(values) != len(NESTED):
        raise ValueError("a memory's nested fields of the wrong shape")
    return values


def _big_ints(value: Any) -> Any:
    if type(value) is int and not -(1 << 63) <= value < 1 << 64:
        return msgpack.ExtType(BIG_INT, str(value).encode())
    if isinstance(value, (list, tuple)):
        return [_big_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _big_ints(v) for k, v in value.items()}
    return value


def _ext(code: int, data: bytes) -> int:
    if code != BIG_INT or not data.lstrip(b"-").isdigit():
        raise ValueError(f"a memory's nested fields hold an unknown value (ext {code})")
    return int(data)
