"""The embedded store's indexes over its links: incoming links by target, links by the name
key they ask for, and the Unresolved nodes the links name. Kept apart from the rows they
index (brain/store/memory.py) so they can be built in one pass after a snapshot's restore.

A link is indexed by where it sits, (source id, ordinal), held as one 64-bit number in a
packed array per target and per key: the source's number (given on its first link) times
2**32 plus the ordinal. At 100,000 notes (550,000 links, 130,000 targets and as many keys)
a set of (source, ordinal) tuples per target and per key was 130 MB, most of it the sets'
own tables; the arrays are a fifth of that. An array is unordered like the set was: every
read sorts by (source id, ordinal), and a link is removed by finding its number at C speed.
"""

from __future__ import annotations

import contextlib
import sys
from array import array
from collections.abc import Iterable

from brain.model import UnresolvedNode
from brain.store.memory_rows import KEY, ORDINAL, SOURCE, TARGET_ID, LinkRow

LinkKey = tuple[str, int]  # (source id, ordinal): where a link sits in its source's list
_SHIFT = 32
_ORDINAL = (1 << _SHIFT) - 1


class LinkIndex:
    def __init__(self) -> None:
        self.incoming: dict[str, array[int]] = {}
        self.by_key: dict[str, array[int]] = {}
        self.unresolved: dict[str, UnresolvedNode] = {}
        self._numbers: dict[str, int] = {}  # source id -> its number (kept once given)
        self._sources: list[str] = []  # number -> source id

    def _ref(self, source: str, ordinal: int) -> int:
        number = self._numbers.get(source)
        if number is None:
            number = self._numbers[source] = len(self._sources)
            self._sources.append(source)
        return number << _SHIFT | ordinal

    def add(self, row: LinkRow) -> None:
        ref = self._ref(row[SOURCE], row[ORDINAL])
        target_id = row[TARGET_ID]
        _held(self.incoming, target_id).append(ref)
        _held(self.by_key, row[KEY]).append(ref)
        if target_id.startswith("unresolved:") and target_id not in self.unresolved:
            self.unresolved[target_id] = UnresolvedNode(target_id.split(":", 1)[1])

    def remove(self, row: LinkRow, touched: set[str]) -> None:
        """Unindex a link; its target goes into `touched` (an Unresolved node may be orphaned)."""
        ref = self._ref(row[SOURCE], row[ORDINAL])
        incoming = self.incoming.get(row[TARGET_ID])
        if incoming is not None:
            _discard(incoming, ref)
        asking = self.by_key.get(row[KEY])
        if asking is not None:
            _discard(asking, ref)
        touched.add(row[TARGET_ID])

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

    def _keys(self, refs: array[int] | None) -> list[LinkKey]:
        if not refs:
            return []
        sources = self._sources
        return sorted((sources[ref >> _SHIFT], ref & _ORDINAL) for ref in refs)

    def build(self, rows_by_source: Iterable[list[LinkRow]]) -> None:
        incoming, by_key, ref_of = self.incoming, self.by_key, self._ref
        for rows in rows_by_source:
            for row in rows:
                ref = ref_of(row[SOURCE], row[ORDINAL])
                _held(incoming, row[TARGET_ID]).append(ref)
                _held(by_key, row[KEY]).append(ref)
        self.unresolved = {
            t: UnresolvedNode(t.split(":", 1)[1]) for t in incoming if t.startswith("unresolved:")
        }


def _held(index: dict[str, array[int]], name: str) -> array[int]:
    refs = index.get(name)
    if refs is None:
        refs = index[name] = array("q")
    return refs


def _discard(refs: array[int], ref: int) -> None:
    """Remove one `ref` from `refs`, if there. Found as bytes (memchr-fast): `array.remove`
    compares element by element as Python ints, slow on a target that thousands link to."""
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
