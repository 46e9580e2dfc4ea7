"""The embedded store's indexes over its links: incoming links by target, links by the name
key they ask for, and the Unresolved nodes the links name. Kept apart from the rows they
index (brain/store/memory/store.py) so they can be built in one pass after a snapshot's restore.

A link is indexed by where it sits, (source id, ordinal), held as one 64-bit number in a
packed array per target and per key: the source's number (given on its first link) times
2**32 plus the ordinal. At 100,000 notes (550,000 links, 130,000 targets and as many keys)
a set of (source, ordinal) tuples per target and per key was 130 MB, most of it the sets'
own tables; the arrays are a fifth of that. An array is unordered like the set was: every
read sorts by (source id, ordinal), and a link is removed by finding its number at C speed.
A name that more than SET_AFTER links ask for (a hub) gets a set of the numbers instead:
removing from an array is linear, and a rescan may relink every link to a hub.

A page of a hub's backlinks (`ordered`) reads a sorted list of its keys kept until the next
write to that hub: a note with 450,000 backlinks sorted them, and built every row, for every
page; now a page bisects to its cursor and steps over whole scopes out of the caller's reach.
"""

from __future__ import annotations

import contextlib
import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any, TypeAlias

import numpy as np

from brain.model import UnresolvedNode
from brain.store.memory.rows import KEY, ORDINAL, SOURCE, TARGET_ID, LinkRow

LinkKey = tuple[str, int]  # (source id, ordinal): where a link sits in its source's list
Refs: TypeAlias = "array[int] | set[int]"  # a set once a name has many links (removing one stays O(1))
SET_AFTER = 256
Array = np.ndarray[Any, Any]
_SHIFT = 32
_ORDINAL = (1 << _SHIFT) - 1


class LinkIndex:
    def __init__(self) -> None:
        self.incoming: dict[str, Refs] = {}
        self.by_key: dict[str, Refs] = {}
        self.unresolved: dict[str, UnresolvedNode] = {}
        self._numbers: dict[str, int] = {}  # source id -> its number (kept once given)
        self._sources: list[str] = []  # number -> source id
        # Hubs' incoming keys, sorted, until the next change to that hub (see `ordered`).
        self._ordered: dict[str, list[LinkKey]] = {}

    def _base(self, source: str) -> int:
        """The source's number, shifted: a link's number is this plus its ordinal."""
        number = self._numbers.get(source)
        if number is None:
            number = self._numbers[source] = len(self._sources)
            self._sources.append(source)
        return number << _SHIFT

    def add(self, row: LinkRow) -> None:
        self.add_all(row[SOURCE], (row,))

    def add_all(self, source: str, rows: Sequence[LinkRow]) -> None:
        """Index links of one source (a loop of a few dict lookups a link: a full ingest
        indexes 550,000 links at 100,000 notes, most of them twice)."""
        base = self._base(source)
        incoming, by_key, unresolved = self.incoming, self.by_key, self.unresolved
        ordered = self._ordered
        for row in rows:
            ref = base | row[ORDINAL]
            target_id = row[TARGET_ID]
            if ordered:
                ordered.pop(target_id, None)
            # _put twice, inlined: this loop is run for every link of a full ingest.
            refs = incoming.get(target_id)
            if type(refs) is array and len(refs) < SET_AFTER:
                refs.append(ref)
            else:
                _put(incoming, target_id, ref)
            refs = by_key.get(row[KEY])
            if type(refs) is array and len(refs) < SET_AFTER:
                refs.append(ref)
            else:
                _put(by_key, row[KEY], ref)
            if target_id.startswith("unresolved:") and target_id not in unresolved:
                unresolved[target_id] = UnresolvedNode(target_id.split(":", 1)[1])

    def remove(self, row: LinkRow, touched: set[str]) -> None:
        """Unindex a link; its target goes into `touched` (an Unresolved node may be orphaned)."""
        self.remove_all(row[SOURCE], (row,), touched)

    def remove_all(self, source: str, rows: Sequence[LinkRow], touched: set[str]) -> None:
        if not rows:
            return
        base = self._base(source)
        incoming, by_key = self.incoming, self.by_key
        ordered = self._ordered
        for row in rows:
            ref = base | row[ORDINAL]
            target_id = row[TARGET_ID]
            if ordered:
                ordered.pop(target_id, None)
            refs = incoming.get(target_id)
            if refs is not None:
                _discard(refs, ref)
            refs = by_key.get(row[KEY])
            if refs is not None:
                _discard(refs, ref)
            touched.add(target_id)

    def to(self, target_id: str) -> list[LinkKey]:
        """Where the links to a node sit, in (source id, ordinal) order."""
        return self._keys(self.incoming.get(target_id))

    def asking(self, key: str) -> list[LinkKey]:
        """Where the links that ask for a name key sit, in (source id, ordinal) order."""
        return self._keys(self.by_key.get(key))

    def has_incoming(self, target_id: str) -> bool:
        return bool(self.incoming.get(target_id))

    def forget(self, target_id: str) -> None:
        """Drop an Unresolved node that no link names any more."""
        self.unresolved.pop(target_id, None)
        self.incoming.pop(target_id, None)
        self._ordered.pop(target_id, None)

    def ordered(self, target_id: str) -> list[LinkKey]:
        """`to(target_id)`, kept for a hub until a write changes its links (the bulk fill of
        a restore starts a new index, so it never leaves a stale list here)."""
        refs = self.incoming.get(target_id)
        if refs is None or len(refs) <= SET_AFTER:
            return self._keys(refs)
        found = self._ordered.get(target_id)
        if found is None:
            found = self._ordered[target_id] = self._keys(refs)
        return found

    def _keys(self, refs: Refs | None) -> list[LinkKey]:
        if not refs:
            return []
        sources = self._sources
        return sorted((sources[ref >> _SHIFT], ref & _ORDINAL) for ref in refs)

    def numbered(self, sources: Sequence[str]) -> list[int]:
        """The base number of each source (given in this order to those without one), for
        a bulk fill of `incoming` and `by_key` (`grouped_into`, from memory/links/table.py)."""
        if not self._sources and len(set(sources)) == len(sources):  # an empty index: in bulk
            self._sources = list(sources)
            self._numbers = dict(zip(sources, range(len(sources)), strict=True))
            return [number << _SHIFT for number in range(len(sources))]
        return [self._base(source) for source in sources]

    def build(self, rows_by_source: Iterable[list[LinkRow]]) -> None:
        for rows in rows_by_source:
            if rows:
                self.add_all(rows[0][SOURCE], rows)


def grouped_into(out: dict[str, Refs], strings: Sequence[str | None], names: Array, refs: Array) -> None:
    """Fill an empty `out` with the refs of each name, as `add_all` of every link in order
    leaves it: names in the order they first appear, each one's refs in link order (an
    array; a set past SET_AFTER, as `_put` makes it).

    `names[i]` (an index into `strings`, where a string may be twice: a first sync's batches
    each add theirs) is link i's name, `refs[i]` its ref. A first build after a 100,000-note
    sync took 3.5 s of CPU (20 s wall on a busy machine) as a dict of the million strings
    listed, an object array of them and an array built by four calls a name; here only the
    names used are read, grouped by identity before their text, one stable sort groups the
    links, and every name's array is cut from one buffer in C loops (1.4 s of CPU)."""
    n = len(names)
    if not n:
        return
    used = np.zeros(len(strings), bool)
    used[names] = True
    codes = np.flatnonzero(used)
    # The strings repeated are mostly one object listed again (ids and keys are shared):
    # grouped by identity first (numbers, sorted in C), only one string an object is hashed.
    objects = np.fromiter(map(id, map(strings.__getitem__, codes.tolist())), np.int64, len(codes))
    _, first, object_of = np.unique(objects, return_index=True, return_inverse=True)
    del objects
    texts = list(map(strings.__getitem__, codes[first].tolist()))
    number = dict.fromkeys(texts, 0)  # one number a distinct name (equal strings merged)
    unique: list[Any] = list(number)  # strs: no link's target id or key is None (index 0)
    number.update(zip(unique, range(len(unique)), strict=True))
    name_of = np.fromiter(map(number.__getitem__, texts), np.uint32, len(texts))
    lookup = np.zeros(len(strings), np.uint32)  # string index -> its name's number
    lookup[codes] = name_of[object_of]
    del texts, number, used, first, object_of, name_of
    group = lookup[names]
    order = np.argsort(group, kind="stable")  # stable: each group's links in link order
    sizes = np.bincount(group, minlength=len(unique))
    ends = np.cumsum(sizes)
    starts = ends - sizes
    appear = np.argsort(order[starts])  # each group's first link: where its name first appears
    raw = refs[order].tobytes()
    width = refs.itemsize
    cuts = map(slice, (starts[appear] * width).tolist(), (ends[appear] * width).tolist())
    ordered = list(map(unique.__getitem__, appear.tolist()))
    out.update(zip(ordered, map(array, repeat("q"), map(raw.__getitem__, cuts)), strict=True))
    for at in np.flatnonzero(sizes > SET_AFTER).tolist():  # hubs: a set, as add_all makes it
        out[unique[at]] = set(out[unique[at]])


def _put(index: dict[str, Refs], name: str, ref: int) -> None:
    refs = index.get(name)
    if refs is None:
        index[name] = array("q", (ref,))
    elif isinstance(refs, set):
        refs.add(ref)
    else:
        refs.append(ref)
        if len(refs) > SET_AFTER:
            index[name] = set(refs)


def _discard(refs: Refs, ref: int) -> None:
    """Remove one `ref` from `refs`, if there. In an array found as bytes (memchr-fast):
    `array.remove` compares element by element as Python ints."""
    if isinstance(refs, set):
        refs.discard(ref)
        return
    if len(refs) < 16:
        with contextlib.suppress(ValueError):
            refs.remove(ref)
        return
    raw = refs.tobytes()
    needle = ref.to_bytes(8, sys.byteorder, signed=True)
    at = raw.find(needle)
    while at > 0 and at % 8:  # a match across two numbers: look on
        at = raw.find(needle, at + 1)
    if at >= 0:
        del refs[at // 8]
