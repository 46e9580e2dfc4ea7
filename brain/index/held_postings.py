"""A term's postings as the keyword index holds them: small, and cut from an image lazily.

At 100,000 notes the index holds 18 million postings. As plain int32 slots and uint16
frequencies they were 108 MB, the biggest single holder of a first ingest. A term's slots
only ever grow (a note gets the next free slot; a compaction renumbers in order), so they are
held as gaps: the term's first slot is kept apart (`bases`) and each posting holds its distance
from the one before, in the narrowest unsigned width that fits every gap of the term (most
terms fit a byte). Frequencies take one byte while they fit. A term whose next gap or
frequency does not fit is widened once (`widened`); a query decodes a term with one numpy
cumulative sum (`slots_of`).
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any, SupportsIndex, overload

import numpy as np

DTYPES: dict[str, Any] = {"B": np.dtype(np.uint8), "H": np.dtype(np.uint16), "I": np.dtype(np.uint32)}
CODES = {1: "B", 2: "H", 4: "I"}  # by width in bytes
assert all(array(code).itemsize == DTYPES[code].itemsize for code in DTYPES)


def code_for(largest: int) -> str:
    """The narrowest array typecode holding every value up to `largest`."""
    return "B" if largest < 1 << 8 else "H" if largest < 1 << 16 else "I"


def widened(values: array[int], code: str) -> array[int]:
    """`values` as a new array of the wider `code` (the old array is left as it was: an
    image being written may still be reading its prefix)."""
    wide = array(code)
    wide.frombytes(np.frombuffer(values, dtype=DTYPES[values.typecode]).astype(DTYPES[code]).tobytes())
    return wide


def values_of(held: array[int]) -> Any:
    """A held array as numpy (a view, no copy)."""
    return np.frombuffer(held, dtype=DTYPES[held.typecode])


def slots_of(gaps: array[int], base: int) -> Any:
    """A term's slots (int32) from its gaps and first slot."""
    slots = np.cumsum(values_of(gaps), dtype=np.int32)
    slots += base
    return slots


def encoded(values: Any) -> array[int]:
    """Non-negative numpy values as an array of the narrowest code."""
    code = code_for(int(values.max()) if len(values) else 0)
    held = array(code)
    held.frombytes(values.astype(DTYPES[code]).tobytes())
    return held


class Views:
    """One batch's gaps (or frequencies) in every width, each made when first asked for: a
    term appends its stretch from the view of its own width, without a copy per term."""

    def __init__(self, values: Any) -> None:
        self._values = values
        self._views: dict[str, memoryview] = {}

    def stretch(self, code: str, start: int, end: int) -> memoryview:
        view = self._views.get(code)
        if view is None:
            view = self._views[code] = memoryview(self._values.astype(DTYPES[code])).cast("B")
        width = DTYPES[code].itemsize
        return view[width * start : width * end]


class LoadedPostings(list["array[int]"]):
    """Term id -> its held postings after `BM25Index.load_image`: each term's array is cut
    from the image's one buffer the first time it is asked for (by a query, an append or the
    next image); terms added later are appended as usual."""

    def __init__(self, codes: list[str], raw: memoryview, offsets: list[int]) -> None:
        super().__init__(repeat(_UNCUT, len(codes)))
        self._codes = codes
        self._raw = raw
        self._offsets = offsets  # bytes: term i is raw[offsets[i]:offsets[i + 1]]

    @overload
    def __getitem__(self, index: SupportsIndex) -> array[int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[array[int]]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> array[int] | list[array[int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        term = operator.index(index)
        if term < 0:
            term += len(self)
        held = super().__getitem__(term)
        if held is _UNCUT:
            held = array(self._codes[term])
            held.frombytes(self._raw[self._offsets[term] : self._offsets[term + 1]])
            super().__setitem__(term, held)
        return held


_UNCUT: array[int] = array("B")  # a loaded term not cut yet (only ever compared, never changed)

_PIECE = 1 << 20  # bytes of postings copied at once while an image is written


def prefixes(held: list[Any], counts: Any) -> Callable[[], Iterator[bytes]]:
    """The first `counts[i]` values of each array of `held`, in order, a megabyte at a time
    (a slice of an array is its own copy, taken under the GIL: an append meanwhile is safe,
    and a term widened meanwhile is a new array, the one held here unchanged)."""

    def pieces() -> Iterator[bytes]:
        group: list[Any] = []
        grouped = 0
        for values, count in zip(held, counts.tolist(), strict=True):
            group.append(values[:count])
            grouped += count * values.itemsize
            if grouped >= _PIECE:
                yield b"".join(group)
                group, grouped = [], 0
        if group:
            yield b"".join(group)

    return pieces


def term_order(term_ids: Any) -> Any:
    """The stable order of postings by term id: numpy's stable sort of 16-bit keys is a radix
    sort, 5 times faster than sorting the ids as int64 values; past 65,536 terms, by the
    low 16 bits, then stably by the high ones."""
    if not len(term_ids) or int(term_ids.max()) < 1 << 16:
        return np.argsort(term_ids.astype(np.uint16), kind="stable")
    low = np.argsort((term_ids & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((term_ids[low] >> 16).astype(np.uint16), kind="stable")]
