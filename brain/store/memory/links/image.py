"""The embedded store's link columns as they are at one moment: a `LinkImage`, what a
snapshot encodes and a restore loads (brain/store/memory/links/table.py keeps them growing).

Six string fields are indexes into one string list, the rest packed numbers: at 100,000
notes 550,000 links are about 25 MB this way against 110 MB as tuples. An image is views of
columns that never change once appended, so it is read outside the store's lock; a read
builds the `LinkRow`s it returns and keeps none.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, compress, repeat
from typing import Any

import numpy as np

from brain.model import LinkStatus
from brain.store.memory.rows import LinkRow

STATUSES = list(LinkStatus)
STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
RESOLVED = STATUS_CODE[LinkStatus.RESOLVED]
STRING_COLUMNS = ("target_id", "raw", "target", "key", "label", "anchor")
STRING_AT = (2, 4, 5, 6, 7, 8)  # each string column's field in a LinkRow
# A line or column past 2**32 would take a note of gigabytes: 4 bytes each, not 8 (9 MB of
# a 100,000-note store's columns).
NUMBER_COLUMNS = {"ordinal": np.uint32, "status": np.uint8, "embed": np.uint8, "line": np.uint32,
                  "column": np.uint32}
COLUMNS = (*STRING_COLUMNS, *NUMBER_COLUMNS)
DTYPES: dict[str, Any] = {**dict.fromkeys(STRING_COLUMNS, np.uint32), **NUMBER_COLUMNS}
UINT = np.dtype(f"=u{array('I').itemsize}")  # what array("I") packs

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class LinkImage:
    """The links as columns at one moment: what a snapshot encodes and a restore adopts.

    `starts[b]:starts[b + 1]` are block b's links, the links of `sources[b]`; a block whose
    `live` is False was replaced since (None: every block is live). String columns index
    `strings` (0 is None; a string may be there twice). Candidate lists, few, are kept by
    link position."""

    strings: Sequence[str | None]
    sources: Sequence[str]
    starts: Array
    columns: Mapping[str, Array]
    candidates: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    live: Array | None = None

    @staticmethod
    def empty() -> LinkImage:
        return LinkImage([None], [], np.zeros(1, np.int64),
                         {name: np.zeros(0, dtype) for name, dtype in DTYPES.items()})

    @staticmethod
    def checked(strings: Sequence[str | None], sources: Sequence[str], counts: Array,
                columns: Mapping[str, Array], candidates: Mapping[int, tuple[str, ...]]) -> LinkImage:
        """An image of decoded columns, everything in it checked now: a bad snapshot is
        refused when it is read, never a query's failure later."""
        if len(counts) != len(sources):
            raise ValueError("link counts of the wrong length")
        if set(columns) != set(COLUMNS):
            raise ValueError("link columns missing")
        starts = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        total = int(starts[-1])
        for values in columns.values():
            if len(values) != total:
                raise ValueError("link columns of the wrong length")
        for name in STRING_COLUMNS:
            if total and int(columns[name].max()) >= len(strings):
                raise IndexError("a link's string index out of the table")
        if total and int(columns["status"].max()) >= len(STATUSES):
            raise ValueError("a link of unknown status")
        if any(type(at) is not int or not 0 <= at < total for at in candidates):
            raise ValueError("candidates of a link that is not there")
        return LinkImage(strings, sources, starts, columns, candidates)

    def live_blocks(self) -> Array:
        """The live blocks' numbers, in order."""
        blocks = np.arange(len(self.sources))
        return blocks if self.live is None else blocks[self.live]

    def live_links(self) -> Array | None:
        """A mask of the live blocks' links (None: every link is live)."""
        if self.live is None:
            return None
        return np.repeat(self.live, np.diff(self.starts))

    def items(self) -> Iterator[tuple[str, list[LinkRow]]]:
        """Each live source and its rows, in block order, built in bulk (C loops)."""
        rows = all_rows(self)
        cuts, sources = self.starts.tolist(), self.sources
        for block in self.live_blocks().tolist():
            yield sources[block], rows[cuts[block] : cuts[block + 1]]

    def live_only(self, columns: Mapping[str, Array] | None = None) -> LinkImage:
        """The live blocks alone (the same strings); `columns`: theirs already, if given."""
        keep = self.live_links()
        if keep is None:
            return self if columns is None else replace(self, columns=columns)
        if columns is None:
            columns = {n: v[keep] for n, v in self.columns.items()}
        blocks = self.live_blocks()
        counts = np.diff(self.starts)[blocks]
        sources = [self.sources[b] for b in blocks.tolist()]
        moved = np.cumsum(keep) - 1
        candidates = {int(moved[at]): names for at, names in self.candidates.items() if keep[at]}
        starts = np.zeros(len(blocks) + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        return LinkImage(self.strings, sources, starts, columns, candidates)

    def packed(self) -> LinkImage:
        """The live blocks alone, with a string list without repeats or strings no link uses.

        Built a column at a time, the strings first: at 100,000 notes (780,000 links, 1.5
        million strings listed) a pack built every step whole took 79 MB above the table."""
        strings, remap = deduplicated(self.strings, self.used_mask())
        keep = self.live_links()
        columns: dict[str, Array] = {}
        for name, values in self.columns.items():
            kept = values if keep is None else values[keep]
            columns[name] = remap[kept] if name in STRING_COLUMNS else kept
            del kept
        return replace(self.live_only(columns), strings=strings)

    def used_mask(self) -> Array:
        """Whether some live link uses each string (0, None, always)."""
        used = np.zeros(len(self.strings), bool)
        used[0] = True
        keep = self.live_links()
        for name in STRING_COLUMNS:
            used[self.columns[name] if keep is None else self.columns[name][keep]] = True
        return used

    def used_strings(self) -> Array:
        """The indexes of the strings some live link uses, in order (0, None, always)."""
        return np.flatnonzero(self.used_mask())

    def string_array(self) -> Array:
        table = np.empty(len(self.strings), dtype=object)
        table[:] = self.strings  # element by element: never a 2-D array of characters
        return table


def block_rows(image: LinkImage, source: str, start: int, end: int) -> list[LinkRow]:
    """One block's rows, built from its slices of the columns."""
    n = end - start
    if not n:
        return []
    strings = image.strings.__getitem__
    c = image.columns

    def text(name: str) -> Iterator[Any]:
        return map(strings, c[name][start:end].tolist())

    found = image.candidates
    candidates = [found.get(at, ()) for at in range(start, end)] if found else repeat((), n)
    return list(zip(
        repeat(source, n), c["ordinal"][start:end].tolist(), text("target_id"),
        map(STATUSES.__getitem__, c["status"][start:end].tolist()), text("raw"), text("target"),
        text("key"), text("label"), text("anchor"), map(bool, c["embed"][start:end].tolist()),
        c["line"][start:end].tolist(), c["column"][start:end].tolist(), candidates, strict=True,
    ))


def all_rows(image: LinkImage) -> list[LinkRow]:
    """Every row of the image (dead blocks' too), each with its block's source, in bulk."""
    counts = np.diff(image.starts).tolist()
    sources = chain.from_iterable(map(repeat, image.sources, counts))
    table = image.string_array()
    c = image.columns

    def text(name: str) -> list[Any]:
        found: list[Any] = table[c[name]].tolist()
        return found

    candidates: list[tuple[str, ...]] = [()] * int(image.starts[-1])
    for at, names in image.candidates.items():
        candidates[at] = names
    return list(zip(
        sources, c["ordinal"].tolist(), text("target_id"), map(STATUSES.__getitem__, c["status"].tolist()),
        text("raw"), text("target"), text("key"), text("label"), text("anchor"),
        map(bool, c["embed"].tolist()), c["line"].tolist(), c["column"].tolist(), candidates,
        strict=True,
    ))


def strings_at(strings: Sequence[str | None], indexes: Array) -> Iterator[str | None]:
    """`strings[i]` for each of `indexes`, in order. The indexes become Python ints a slice
    at a time: all at once, the 1.3 million of a 100,000-note store's string list were 47 MB
    of a snapshot write's peak."""
    for start in range(0, len(indexes), SLICE):
        yield from map(strings.__getitem__, indexes[start : start + SLICE].tolist())


SLICE = 1 << 16


def deduplicated(strings: Sequence[str | None], used: Array) -> tuple[list[str | None], Array]:
    """The strings `used` marks, each once (None first), and old index -> new index. C loops
    and one dict throughout: a pack at 100,000 notes picks a million strings."""
    picked = list(compress(strings, used.tobytes()))  # bytes: iterated as ints, in C
    at: dict[str | None, int] = dict.fromkeys(picked, 0)
    unique = list(at)
    for number, string in enumerate(unique):  # 184,000 at 100,000 notes: a second dict was 10 MB
        at[string] = number
    codes = np.frombuffer(array("I", map(at.__getitem__, picked)), UINT)
    del picked, at
    remap = np.zeros(len(strings), np.uint32)
    remap[used] = codes
    return unique, remap
