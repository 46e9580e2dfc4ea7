"""The embedded store's links by source, held as columns in every state of the store.

At 100,000 notes the store holds 550,000 links. As one 13-field tuple each (a `LinkRow`)
they were 110 MB; as columns (six string fields as indexes into one string list, the rest
packed numbers) they are about 25 MB. A restore from a snapshot used to keep its columns
only until the first write or the 2,048th read, and a first sync held tuples throughout,
so a long-running server ended up with the tuples. Here every state holds the columns:

* a write appends each source's links as a block at the columns' end (a batch in one
  go: its strings found once, each column filled by one C loop) and the source's earlier
  block, if any, becomes dead; when dead links outnumber a quarter of the live ones, the columns
  are packed (live blocks only, the string list without repeats);
* a read builds the rows it returns (one source's, one link, or every live one in bulk)
  and keeps none;
* counts by status are kept as blocks come and go, so `stats` builds nothing.

What was appended never changes: growing a column copies it, and packing makes new ones.
So `image()`, taken under the store's lock, is views of the columns as they are then, and
a snapshot encodes them later, outside the lock, while writes go on.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from itertools import chain, compress, count
from typing import Any

import numpy as np

from brain.model import Link, LinkStatus, UnresolvedNode
from brain.store.memory.links.image import (
    COLUMNS,
    DTYPES,
    RESOLVED,
    STATUS_CODE,
    STATUSES,
    STRING_AT,
    STRING_COLUMNS,
    UINT,
    Array,
    LinkImage,
    block_rows,
)
from brain.store.memory.links.index import LinkIndex, grouped_into
from brain.store.memory.rows import RAW, LinkRow, kept_raws

PACK_AFTER = 4096  # dead links tolerated before a pack, whatever the live count
# And a quarter of the live count: a first sync's relinks leave 0.4 dead links a live one,
# so at half it never packed (17 MB of dead links and repeated strings at 100,000 notes).
DEAD_SHARE = 4
UNRESOLVED = "unresolved:"


class _Column:
    """A numpy array that grows at its end. A grown column is a new array, so a view of
    what was written stays true while more is appended."""

    def __init__(self, dtype: Any, data: Array | None = None) -> None:
        self.data: Array = np.zeros(0, dtype) if data is None else data
        self.size = len(self.data)

    def extend(self, values: Array) -> None:
        need = self.size + len(values)
        if need > len(self.data):
            grown = np.empty(max(need, len(self.data) * 3 // 2 + 64), self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size : need] = values
        self.size = need

    def view(self) -> Array:
        return self.data[: self.size]


class LinkTable:
    """Links by source (a plain dict's answers: `get`, `items`, `pop`), held as columns."""

    def __init__(self, image: LinkImage | None = None) -> None:
        self._load(LinkImage.empty() if image is None else image)

    def _load(self, image: LinkImage) -> None:
        if image.live is not None:
            image = image.packed()
        self._strings: list[str | None] = list(image.strings)
        self._sources: list[str] = list(image.sources)
        self._starts = _Column(np.int64, image.starts)
        self._columns = {n: _Column(DTYPES[n], np.asarray(image.columns[n], DTYPES[n])) for n in COLUMNS}
        self._candidates: dict[int, tuple[str, ...]] = dict(image.candidates)
        self._block_of: dict[str, int] = dict(zip(self._sources, count()))
        if len(self._block_of) != len(self._sources):
            raise ValueError("a source's links given twice")
        status = self._columns["status"].view()
        self._by_status = np.bincount(status, minlength=len(STATUSES)).astype(np.int64)
        self._dead = 0

    # ------------------------------------------------------------------ reads

    def __len__(self) -> int:
        return len(self._block_of)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LinkTable):
            other = dict(other.items())
        return dict(self.items()) == other

    __hash__ = None  # type: ignore[assignment]

    def _span(self, block: int) -> tuple[int, int]:
        start, end = self._starts.data[block : block + 2].tolist()
        return start, end

    def _columns_now(self) -> LinkImage:
        """The columns as held, for reads of known blocks (no live mask, nothing copied)."""
        return LinkImage(self._strings, self._sources, self._starts.data,
                         {n: c.data for n, c in self._columns.items()}, self._candidates)

    def _live_now(self) -> LinkImage:
        """`image()` without its copies, for a read done before the lock is let go."""
        live = np.zeros(len(self._sources), bool)
        live[np.fromiter(self._block_of.values(), np.int64, len(self._block_of))] = True
        return LinkImage(
            self._strings, self._sources, self._starts.view(),
            {n: c.view() for n, c in self._columns.items()}, self._candidates,
            None if live.all() else live,
        )

    def get(self, source: str) -> list[LinkRow]:
        """The source's links in order ([] if it has none)."""
        block = self._block_of.get(source)
        if block is None:
            return []
        return block_rows(self._columns_now(), source, *self._span(block))

    def targets(self, sources: Collection[str]) -> dict[str, set[str]]:
        """For each source, the ids its links point at: read from the target column alone,
        no row built (a sweep of unlinked mentions asks this of every note)."""
        out: dict[str, set[str]] = {s: set() for s in sources}
        held = [(s, b) for s in out if (b := self._block_of.get(s)) is not None]
        if not held:
            return out
        image = self._columns_now()
        blocks = np.fromiter((b for _, b in held), np.int64, len(held))
        starts = image.starts[blocks]
        lengths = image.starts[blocks + 1] - starts
        # Each block's positions, all at once: its start repeated, plus 0..n-1 within it.
        first = np.cumsum(lengths) - lengths
        at = np.repeat(starts - first, lengths) + np.arange(int(lengths.sum()))
        # Each target's id looked up in C, then a set a source of its slice (no Python loop a
        # link: a sweep asks this of 70,000 links); a link without a target leaves a None.
        found = list(map(image.strings.__getitem__, image.columns["target_id"][at].tolist()))
        k = 0
        for (source, _), n in zip(held, lengths.tolist(), strict=True):
            targets: set[str | None] = set(found[k : k + n])
            targets.discard(None)
            out[source] = targets  # type: ignore[assignment]  # None discarded
            k += n
        return out

    def row(self, source: str, ordinal: int) -> LinkRow:
        """One link (its ordinal is its place among its source's links)."""
        start, end = self._span(self._block_of[source])
        if not 0 <= ordinal < end - start:
            raise KeyError((source, ordinal))
        return block_rows(self._columns_now(), source, start + ordinal, start + ordinal + 1)[0]

    def items(self) -> Iterator[tuple[str, list[LinkRow]]]:
        return self.image().items()  # a generator: it must not see later writes

    def counts(self) -> dict[LinkStatus, int]:
        return {s: int(n) for s, n in zip(STATUSES, self._by_status.tolist(), strict=True)}

    def with_problems(self) -> set[str]:
        """The sources with a link that is not resolved."""
        image = self._live_now()
        status = image.columns["status"]
        live = image.live_links()
        bad = status != RESOLVED if live is None else (status != RESOLVED) & live
        blocks = np.unique(np.searchsorted(image.starts, np.flatnonzero(bad), side="right") - 1)
        return {image.sources[b] for b in blocks.tolist()}

    def problem_rows(self, source: str) -> list[LinkRow]:
        """The source's links that are not resolved (only those rows are built)."""
        block = self._block_of.get(source)
        if block is None:
            return []
        start, end = self._span(block)
        image = self._columns_now()
        bad = np.flatnonzero(image.columns["status"][start:end] != RESOLVED).tolist()
        return [block_rows(image, source, start + at, start + at + 1)[0] for at in bad]

    def unresolved_count(self) -> int:
        """The Unresolved nodes the links name (distinct targets), without the link index."""
        image = self._live_now()
        targets = image.columns["target_id"]
        live = image.live_links()
        counts = np.bincount(targets if live is None else targets[live], minlength=len(image.strings))
        named = image.string_array()[np.flatnonzero(counts)].tolist()  # a count, not a sort
        return len({s for s in named if s.startswith(UNRESOLVED)})

    def image(self) -> LinkImage:
        """The columns as they are now: views, which later writes leave as they are. The
        sources and candidates, which writes add to, are copied (the strings are only
        appended to, past what the columns name), so an image can be read without the lock."""
        now = self._live_now()
        return LinkImage(now.strings, now.sources[:], now.starts, now.columns, dict(now.candidates), now.live)

    # ------------------------------------------------------------------ writes

    def pop(self, source: str) -> list[LinkRow]:
        """Drop the source's links; the rows they were."""
        rows = self.get(source)
        block = self._block_of.pop(source, None)
        if block is not None:
            self._forget(block)
            self._pack_if_due()
        return rows

    def put_many(
        self, written: Iterable[tuple[str, Sequence[LinkRow] | Sequence[Link]]], links: bool = False,
    ) -> None:
        """Each source's links become the rows given (in ordinal order): one block each,
        appended in one go. `links`: they are `Link`s, not rows (their text as written,
        kept only where it is not the plain way: `kept_raws`), turned into columns without
        a row built for each (a first sync's write: `MemoryStore.write`)."""
        written = list(written)
        for source, _ in written:
            block = self._block_of.pop(source, None)
            if block is not None:
                self._forget(block)
        flat: list[LinkRow | Link] = [row for _, rows in written for row in rows]
        start = self._starts.data[self._starts.size - 1].item()
        if flat:
            self._append(flat, start, links)
        ends = np.cumsum([len(rows) for _, rows in written], dtype=np.int64) + start
        self._starts.extend(ends)
        first = len(self._sources)
        self._sources.extend(source for source, _ in written)
        self._block_of.update(zip((source for source, _ in written), count(first)))
        self._pack_if_due()

    def status_only(self, row: LinkRow) -> bool:
        """Whether the link held at `row`'s place differs from it in its status alone (or
        not at all)."""
        block = self._block_of.get(row[0])
        if block is None:
            return False
        start, end = self._span(block)
        at = start + row[1]
        if not start <= at < end:
            return False
        strings, c = self._strings, self._columns
        # Read where it is (a row built for it took longer than the rest of the relink).
        return (
            all(strings[c[n].data[at]] == row[i] for n, i in zip(STRING_COLUMNS, STRING_AT, strict=True))
            and bool(c["embed"].data[at]) is row[9] and c["line"].data[at] == row[10]
            and c["column"].data[at] == row[11] and self._candidates.get(at, ()) == row[12]
        )

    def set_statuses(self, changed: Sequence[tuple[str, int, LinkStatus]]) -> None:
        """Links whose status alone changed ((source, ordinal, status) each), set where they
        are: a first sync's anchored links to notes of later parts (2,000 at 10,000 notes)
        each appended its source's block again, and the dead blocks forced packs. The column
        is copied first (a byte a link): an image holds views of what was appended."""
        if not changed:
            return
        column = self._columns["status"]
        data = column.data.copy()
        # Each block's start gathered at once (one numpy read a link was most of this).
        block_of = self._block_of
        blocks = np.fromiter((block_of[source] for source, _, _ in changed), np.int64, len(changed))
        ordinals = np.fromiter((ordinal for _, ordinal, _ in changed), np.int64, len(changed))
        at = self._starts.data[blocks] + ordinals
        codes = np.fromiter((STATUS_CODE[status] for *_, status in changed), np.uint8, len(changed))
        self._by_status -= np.bincount(data[at], minlength=len(STATUSES))
        data[at] = codes
        self._by_status += np.bincount(codes, minlength=len(STATUSES))
        column.data = data

    def _append(self, flat: Sequence[LinkRow | Link], start: int, links: bool = False) -> None:
        fields = list(zip(*flat, strict=True))
        if links:  # a Link's field at RAW is its text: kept where it is not the plain way
            fields[RAW] = kept_raws(fields[RAW], fields[5], fields[8], fields[7], fields[9])
        strings = self._strings
        found = dict.fromkeys(chain.from_iterable(fields[at] for at in STRING_AT))
        found.pop(None, None)
        index: dict[str | None, int] = dict(zip(found, count(len(strings))))
        index[None] = 0
        strings.extend(found)
        n = len(flat)
        # array() of a map: half the time of np.fromiter over the same map.
        for name, at in zip(STRING_COLUMNS, STRING_AT, strict=True):
            self._columns[name].extend(np.frombuffer(array("I", map(index.__getitem__, fields[at])), UINT))
        status = np.frombuffer(array("B", map(STATUS_CODE.__getitem__, fields[3])), np.uint8)
        self._columns["status"].extend(status)
        self._by_status += np.bincount(status, minlength=len(STATUSES))
        self._columns["ordinal"].extend(np.fromiter(fields[1], np.uint32, n))
        self._columns["embed"].extend(np.fromiter(fields[9], np.uint8, n))
        self._columns["line"].extend(np.fromiter(fields[10], np.uint32, n))
        self._columns["column"].extend(np.fromiter(fields[11], np.uint32, n))
        names = fields[12]
        self._candidates.update(zip(compress(count(start), names), filter(None, names), strict=True))

    def _forget(self, block: int) -> None:
        start, end = self._span(block)
        status = self._columns["status"].data[start:end]
        self._by_status -= np.bincount(status, minlength=len(STATUSES))
        self._dead += end - start

    def _pack_if_due(self) -> None:
        live = int(self._by_status.sum())
        blocks = len(self._sources)
        if self._dead > max(live // DEAD_SHARE, PACK_AFTER) or blocks > 2 * len(self._block_of) + PACK_AFTER:
            self._load(self._live_now().packed())

    # ------------------------------------------------------------------ the link index

    def index_into(self, index: LinkIndex) -> None:
        """Fill an empty `index` as `LinkIndex.build` would from the live rows, without
        building them: sources numbered in order, references grouped by target and by key
        (`grouped_into`), each group in the order the build would add it, targets in the
        order they first appear (as a build adds them)."""
        image = self._live_now()
        keep = image.live_links()
        blocks = image.live_blocks()
        counts = np.diff(image.starts)[blocks]
        linked = list(map(image.sources.__getitem__, blocks[counts > 0].tolist()))
        bases = np.array(index.numbered(linked), dtype=np.int64)
        ordinal = image.columns["ordinal"]
        ordinal = ordinal if keep is None else ordinal[keep]
        refs = np.repeat(bases, counts[counts > 0]) | ordinal.astype(np.int64)
        for name, out in (("target_id", index.incoming), ("key", index.by_key)):
            names = image.columns[name]
            grouped_into(out, image.strings, names if keep is None else names[keep], refs)
        index.unresolved = {
            t: UnresolvedNode(t.split(":", 1)[1]) for t in index.incoming if t.startswith(UNRESOLVED)
        }
