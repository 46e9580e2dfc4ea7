"""A snapshot's links held as its columns, each source's rows built when first read.

At 100,000 notes a snapshot holds 550,000 links: building every row tuple before a warm
start is ready cost half a second, and most starts read few of them before the next write.
So a restored store's links table (`LazyLinkRows`) is a dict whose values stay column
positions until read: one source's rows are built from the columns on their own, and a
walk over all of them (or the 2,048th single read) builds the rest in one bulk pass. A
store with no write since its restore counts its links from the columns (`stats`).

Everything the columns hold is checked when they are taken (lengths, every string index
inside the table, every status known): a bad snapshot is refused at load, never a query's
failure later.
"""

from __future__ import annotations

from array import array
from collections.abc import ItemsView, Iterable, Sequence, ValuesView
from itertools import accumulate, chain, repeat
from typing import Any

import numpy as np

from brain.model import LinkStatus, UnresolvedNode
from brain.store.memory_links import LinkIndex, refs_of
from brain.store.memory_rows import STATUS, LinkRow

STATUSES = list(LinkStatus)
STRING_COLUMNS = ("target_id", "raw", "target", "key", "label", "anchor")
BULK_AFTER = 2048  # single reads before the rest is built at once (a walk over every source)
UNRESOLVED = "unresolved:"
INDEX = np.dtype(f"=u{array('I').itemsize}")  # a packed string index (snapshot_columns.StringTable)
INDEX_SIZE = INDEX.itemsize


def _numbers(column: array[int]) -> np.ndarray[Any, Any]:
    return np.frombuffer(column, dtype=f"={column.typecode}") if len(column) else np.zeros(0, np.uint8)


class LinkColumns:
    """The links of `sources` (`counts[i]` each, in order), field by field: string fields
    as indexes into `table` (an object array, and `table_list` its list; 0 is None),
    `status` and `embed` as bytes, the rest as packed arrays, and the few candidate lists
    by link position (packed indexes too, unpacked when their row is built)."""

    def __init__(
        self, table: np.ndarray[Any, Any], table_list: list[Any], sources: list[str],
        counts: array[int], ordinal: array[int], strings: dict[str, array[int]], status: bytes,
        embed: bytes, line: array[int], column: array[int], candidates: dict[int, bytes],
    ) -> None:
        total = sum(counts)
        if len(counts) != len(sources):
            raise ValueError("link counts of the wrong length")
        if set(strings) != set(STRING_COLUMNS):
            raise ValueError("link columns missing")
        for values in (ordinal, status, embed, line, column, *strings.values()):
            if len(values) != total:
                raise ValueError("link columns of the wrong length")
        for values in strings.values():
            if total and int(_numbers(values).max()) >= len(table):
                raise IndexError("a link's string index out of the table")
        if total and max(status) >= len(STATUSES):
            raise ValueError("a link of unknown status")
        if any(type(at) is not int or not 0 <= at < total for at in candidates):
            raise ValueError("candidates of a link that is not there")
        packed = b"".join(candidates.values())
        if any(len(names) % INDEX_SIZE for names in candidates.values()):
            raise ValueError("candidates that are not packed indexes")
        if packed and int(np.frombuffer(packed, dtype=INDEX).max()) >= len(table):
            raise IndexError("a candidate's string index out of the table")
        self.table = table
        self.strings = table_list  # the same strings, for one-by-one reads
        self.sources = sources
        self.starts = [0, *accumulate(counts)]
        self.total = total
        self.ordinal, self.status, self.embed = ordinal, status, embed
        self.line, self.column = line, column
        self.target_id, self.raw, self.target, self.key, self.label, self.anchor = (
            strings[name] for name in STRING_COLUMNS
        )
        self.candidates = candidates

    def table_of_rows(self) -> LazyLinkRows:
        return LazyLinkRows(self)

    def rows(self, at: int) -> list[LinkRow]:
        """The rows of the `at`-th source, built from the columns."""
        s, source, candidates = self.strings, self.sources[at], self.candidates
        return [
            (source, self.ordinal[j], s[self.target_id[j]], STATUSES[self.status[j]], s[self.raw[j]],
             s[self.target[j]], s[self.key[j]], s[self.label[j]], s[self.anchor[j]],
             bool(self.embed[j]), self.line[j], self.column[j],
             self._names(candidates[j]) if j in candidates else ())
            for j in range(self.starts[at], self.starts[at + 1])
        ]

    def _names(self, packed: bytes) -> tuple[str, ...]:
        at = array("I")
        at.frombytes(packed)
        return tuple(map(self.strings.__getitem__, at))

    def all_rows(self) -> list[list[LinkRow]]:
        """Every source's rows, in order, in bulk (C loops: numpy and zip)."""
        total, table = self.total, self.table

        def strings(column: array[int]) -> list[Any]:
            found: list[Any] = table[_numbers(column)].tolist()
            return found

        candidates: list[tuple[str, ...]] = [()] * total
        for at, names in self.candidates.items():
            candidates[at] = self._names(names)
        counts = [b - a for a, b in zip(self.starts, self.starts[1:], strict=False)]
        flat = list(zip(
            chain.from_iterable(map(repeat, self.sources, counts)),
            self.ordinal.tolist(),
            strings(self.target_id),
            map(STATUSES.__getitem__, self.status),
            strings(self.raw), strings(self.target), strings(self.key), strings(self.label),
            strings(self.anchor),
            map(bool, self.embed),
            self.line.tolist(),
            self.column.tolist(),
            candidates,
            strict=True,
        ))
        return list(map(flat.__getitem__, map(slice, self.starts, self.starts[1:])))

    def index_into(self, index: LinkIndex) -> None:
        """Fill an empty `index` as `LinkIndex.build` would from these rows, without building
        them: sources numbered in order, references grouped by target and by key with a sort
        (numpy), each group in the order the build would add it, targets in the order they
        first appear (as a build adds them)."""
        counts = np.asarray(self.starts[1:], dtype=np.int64) - np.asarray(self.starts[:-1], dtype=np.int64)
        linked = [source for source, n in zip(self.sources, counts.tolist(), strict=True) if n]
        bases = np.array(index.numbered(linked), dtype=np.int64)
        refs = np.repeat(bases, counts[counts > 0]) | _numbers(self.ordinal).astype(np.int64)
        for column, out in ((self.target_id, index.incoming), (self.key, index.by_key)):
            if not self.total:
                continue
            values = _numbers(column)
            order = np.argsort(values, kind="stable")
            ranked = values[order]
            cuts = (np.flatnonzero(np.diff(ranked)) + 1).tolist()
            starts, ends = [0, *cuts], [*cuts, len(ranked)]
            grouped = refs[order]
            keys = self.table[ranked[starts]].tolist()
            first = order[starts]  # a stable sort: each group's first is where it first appears
            for at in np.argsort(first, kind="stable").tolist():
                out[keys[at]] = refs_of(array("q", grouped[starts[at]:ends[at]].tobytes()))
        index.unresolved = {
            t: UnresolvedNode(t.split(":", 1)[1]) for t in index.incoming if t.startswith(UNRESOLVED)
        }

    def counts(self) -> tuple[dict[LinkStatus, int], int]:
        """Links by status, and the Unresolved nodes they name (distinct targets)."""
        by_status = np.bincount(np.frombuffer(self.status, dtype=np.uint8), minlength=len(STATUSES))
        targets: list[str] = []
        if self.total:  # the targets named at least once (a count, not a sort)
            named = np.bincount(_numbers(self.target_id), minlength=len(self.table))
            targets = self.table[np.flatnonzero(named)].tolist()
        unresolved = sum(1 for t in targets if t.startswith(UNRESOLVED))
        return {s: int(n) for s, n in zip(STATUSES, by_status.tolist(), strict=True)}, unresolved


class LazyLinkRows(dict[str, list[LinkRow]]):
    """A store's links by source, as a plain dict would hold them (same keys, same order,
    same answers), with values built from `LinkColumns` on first read. Only the methods the
    store uses are overridden; each builds what it returns."""

    def __init__(self, columns: LinkColumns) -> None:
        super().__init__(zip(columns.sources, range(len(columns.sources)), strict=True))  # type: ignore[arg-type]
        self._columns: LinkColumns | None = columns
        self._complete = not columns.sources
        self._pristine = True  # no value replaced or removed since the restore
        self._counts: tuple[dict[LinkStatus, int], int] | None = None
        self._singles = 0

    def _built(self, key: str, held: Any) -> list[LinkRow]:
        if type(held) is not int:
            return held  # type: ignore[no-any-return]
        assert self._columns is not None
        self._singles += 1
        if self._singles > BULK_AFTER:  # a walk over many sources: build them all at once
            self.build_all()
            return super().__getitem__(key)
        rows = self._columns.rows(held)
        dict.__setitem__(self, key, rows)
        return rows

    def build_all(self) -> None:
        """Every value built; the columns are let go (their counts kept while still true)."""
        columns = self._columns
        if self._complete or columns is None:
            return
        built = columns.all_rows()
        for key, held in dict.items(self):
            if isinstance(held, int):
                dict.__setitem__(self, key, built[held])
        self._complete = True
        if self._pristine:
            self._counts = columns.counts()
        self._columns = None

    def __getitem__(self, key: str) -> list[LinkRow]:
        return self._built(key, super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        held = super().get(key, default)
        return held if held is default else self._built(key, held)

    def __setitem__(self, key: str, value: list[LinkRow]) -> None:
        self._pristine = False
        super().__setitem__(key, value)

    def pop(self, key: str, *default: Any) -> Any:
        if key not in self:
            return super().pop(key, *default)
        self._pristine = False
        value = self[key]
        super().pop(key)
        return value

    def values(self) -> ValuesView[list[LinkRow]]:  # type: ignore[override]
        self.build_all()
        return super().values()

    def items(self) -> ItemsView[str, list[LinkRow]]:  # type: ignore[override]
        self.build_all()
        return super().items()

    def __eq__(self, other: object) -> bool:
        self.build_all()
        return dict(super().items()) == other

    __hash__ = None

    def restored_columns(self) -> LinkColumns | None:
        """The columns while they are still all the links (no value replaced or removed, and
        not all built yet); None once not."""
        return self._columns if self._pristine else None

    def counts(self) -> tuple[dict[LinkStatus, int], int] | None:
        """`LinkColumns.counts` while the links are still the restore's; None once not."""
        if not self._pristine:
            return None
        if self._counts is None and self._columns is not None:
            self._counts = self._columns.counts()
        return self._counts


def count_links(rows_by_source: Iterable[Sequence[LinkRow]]) -> dict[LinkStatus, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for rows in rows_by_source:
        for row in rows:
            counts[row[STATUS]] += 1
    return counts


def build_link_index(rows_by_source: dict[str, list[LinkRow]], index: LinkIndex) -> None:
    """`index.build` over every row; from the columns while they are still all the links
    (no write since the restore), so no row is built for it."""
    restored = rows_by_source.restored_columns() if isinstance(rows_by_source, LazyLinkRows) else None
    if restored is None:
        index.build(rows_by_source.values())
    else:
        restored.index_into(index)
