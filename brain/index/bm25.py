"""brain's own keyword index: an inverted index with numpy postings, ranked by BM25 as SQLite's
FTS5 ranks (same formula, same column weights), 3-10x faster per query than FTS5 was here.

Why not FTS5: at 10,000 notes its `MATCH ... ORDER BY rank` alone took 12-25 ms a query (it
scores every matching row in C, one row at a time, through a virtual table), over the 20 ms
goal for a whole search. Here a query is a handful of vectorized numpy operations: for each
term, gather its postings (note slots and weighted term frequencies), add its BM25 share into
one score array, then keep the visible notes (the scope rule is an array of scope codes, so
another agent's notes are dropped before ranking and counting) and pick the best with
`argpartition`.
An agent's statistics are its reach's (brain/index/bm25_search.py).

The formula is FTS5's `bm25()`: for each query term, idf * f * (k1 + 1) / (f + k1 * (1 - b +
b * |D| / avgdl)) with f the term's count in each column times the column's weight (4 name, 2
description, 1 body), |D| the note's word count over all columns, idf = ln((N - n + 0.5) /
(n + 0.5)) floored at 1e-6, k1 = 1.2, b = 0.75. tests/search checks the scores against FTS5's.

Updates: a changed note gets a new slot and its old slot is marked dead (no posting list is
rewritten); dead postings are masked out at query time, which also makes each term's document
count exact, and compacted away once they are a third of all postings. The whole index
serializes to bytes (`image`) for the startup snapshot and loads back as one buffer per
column, a term's postings cut from it on first use. A term's postings are held as gaps
between slots in the narrowest width that fits (brain/index/held_postings.py).
"""

from __future__ import annotations

import json
import struct
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from brain.index.bm25_search import BM25Search
from brain.index.held_postings import (
    CODES,
    DTYPES,
    LoadedPostings,
    Views,
    code_for,
    encoded,
    prefixes,
    slots_of,
    term_order,
    values_of,
    widened,
)
from brain.index.postings import (
    BODY_WEIGHT,
    DESCRIPTION_WEIGHT,
    MAX_FREQ,
    NAME_WEIGHT,
    PostingsBlock,
    note_counts,
    numbered,
)

__all__ = ["BODY_WEIGHT", "DESCRIPTION_WEIGHT", "NAME_WEIGHT", "BM25Index", "KeywordImage"]

MAGIC = b"brain-bm25 3\n"  # 3: postings as gaps in the narrowest width (held_postings.py)
_IMAGE_PARTS = 13  # the sections `image_parts` writes


class BM25Index(BM25Search):
    """Notes by id, each with a scope and a type code the search filters on."""

    def __init__(self, compact_after: int = 50_000) -> None:
        self.compact_after = compact_after  # dead postings that may wait for a compaction
        self._terms: dict[str, int] = {}
        self._docs: list[array[int]] = []  # term id -> gaps between its slots ('B', 'H' or 'I')
        self._freqs: list[array[int]] = []  # term id -> weighted frequencies ('B' or 'H')
        self._bases = array("i")  # term id -> its first slot (-1: no posting yet)
        self._lasts = array("i")  # term id -> its last slot (-1: no posting yet)
        self._ids: list[str | None] = []  # slot -> note id (None: dead)
        self._slot: dict[str, int] = {}
        self._codes: dict[str, int] = {}  # scope or type name -> code
        self._lengths: Any = np.zeros(1024, dtype=np.int32)  # slot -> words in the note
        self._scopes: Any = np.zeros(1024, dtype=np.int32)
        self._types: Any = np.zeros(1024, dtype=np.int32)
        self._alive: Any = np.zeros(1024, dtype=bool)
        self._tokens = 0  # words in all live notes
        # The statistics of one reach (a set of scopes), kept until the next change: see _reach.
        self._generation = 0
        self._reaches: dict[frozenset[str], tuple[int, Any, int, int]] = {}
        # Notes added or dropped so far, and the document counts `common` searches saw (bm25_search.py).
        self._changed = 0
        self._hits_seen: dict[tuple[frozenset[str] | None, int], tuple[int, int]] = {}
        self._postings = 0
        self._dead_postings = 0
        self._distinct: Any = np.zeros(1024, dtype=np.int32)  # slot -> its postings (dead count)

    def __len__(self) -> int:
        return len(self._slot)

    def _code(self, value: str) -> int:
        return self._codes.setdefault(value, len(self._codes))

    # ------------------------------------------------------------------ writes

    def remove(self, node_id: str) -> None:
        self._drop(node_id)
        self._maybe_compact()

    def _drop(self, node_id: str) -> None:
        slot = self._slot.pop(node_id, None)
        if slot is None:
            return
        self._ids[slot] = None
        self._alive[slot] = False
        self._generation += 1
        self._changed += 1
        self._tokens -= int(self._lengths[slot])
        self._dead_postings += int(self._distinct[slot])

    def _maybe_compact(self) -> None:
        if self._dead_postings > max(self.compact_after, self._postings // 3):
            self._compact()

    def add(self, node_id: str, scope: str, type: str, name: str, description: str, body: str) -> None:
        """Index a note (replacing its previous text, if any)."""
        self.add_many([(node_id, scope, type, name, description, body)])

    def add_many(self, notes: Iterable[tuple[str, str, str, str, str, str]]) -> None:
        """Index notes: (id, scope, type, name, description, body) each.

        The postings of the whole batch are grouped by term with one numpy sort and appended
        one term at a time: a posting at a time made the index most of a full ingest's cost.
        """
        terms = self._terms
        term_ids: list[int] = []
        freqs: list[int] = []
        slotted: list[tuple[str, str, str, int]] = []  # id, scope, type, length
        sizes: list[int] = []
        for node_id, scope, type, name, description, body in notes:
            counts, length = note_counts(name, description, body)
            slotted.append((node_id, scope, type, length))
            term_ids += numbered(counts, terms)
            freqs += counts.values()
            sizes.append(len(counts))
        slots = self._new_slots(slotted, sizes)
        self._ensure_terms(len(terms))
        if term_ids:
            self._append_postings(term_ids, slots, sizes, freqs)
        self._maybe_compact()

    def add_counted(self, notes: Iterable[tuple[str, str, str, PostingsBlock, int]]) -> None:
        """Index notes counted elsewhere: (id, scope, type, block, row) each, row being the
        note's place in the block (brain/index/postings.py). Indexes as `add_many` would.

        A block's words are mapped to term ids once, and its numbers taken as numpy arrays:
        nothing here is done per word of a note.
        """
        groups: dict[int, tuple[PostingsBlock, list[tuple[str, str, str, int]]]] = {}
        for node_id, scope, type, block, row in notes:
            groups.setdefault(id(block), (block, []))[1].append((node_id, scope, type, row))
        terms = self._terms
        term_parts: list[Any] = []
        freq_parts: list[Any] = []
        sizes: list[int] = []
        slotted: list[tuple[str, str, str, int]] = []  # id, scope, type, length
        for block, members in groups.values():
            words = block.words.split("\0") if block.words else []
            mapping = np.fromiter(  # int32: the postings' term ids, half the bytes of int64
                (terms.setdefault(w, len(terms)) for w in words), dtype=np.int32, count=len(words))
            block_sizes = np.frombuffer(block.sizes, dtype=np.int32)
            block_lengths = np.frombuffer(block.lengths, dtype=np.int32).tolist()
            starts = np.zeros(len(block_sizes) + 1, dtype=np.int64)
            np.cumsum(block_sizes, out=starts[1:])
            rows = [row for *_, row in members]
            picked_sizes = block_sizes[rows]
            # The positions of the picked rows' postings: each row's start, counted up.
            ends = np.cumsum(picked_sizes)
            at = np.arange(int(ends[-1]) if len(ends) else 0) + np.repeat(
                starts[rows] - (ends - picked_sizes), picked_sizes)
            term_parts.append(mapping[np.frombuffer(block.terms, dtype=np.int32)[at]])
            freq_parts.append(np.frombuffer(block.freqs, dtype=np.uint16)[at])
            slotted += [(node_id, scope, type, block_lengths[row]) for node_id, scope, type, row in members]
            sizes += picked_sizes.tolist()
        slots = self._new_slots(slotted, sizes)
        self._ensure_terms(len(terms))
        if slots:
            self._append_postings(np.concatenate(term_parts), slots, sizes, np.concatenate(freq_parts))
        self._maybe_compact()

    def _ensure_terms(self, count: int) -> None:
        """Room for `count` terms (a new term has no posting yet)."""
        while len(self._docs) < count:
            self._docs.append(array("B"))
            self._freqs.append(array("B"))
            self._bases.append(-1)
            self._lasts.append(-1)

    def _new_slots(self, notes: list[tuple[str, str, str, int]], distinct: list[int]) -> list[int]:
        self._generation += 1
        self._changed += len(notes)
        """A live slot for each note (id, scope, type, length; its previous one, if any, dead),
        its number of distinct words beside it: the columns set a slice at a time, not five
        numpy items a note."""
        ids = [node_id for node_id, *_ in notes]
        if len(set(ids)) != len(ids):  # a note twice: its later slot replaces the earlier
            return [self._new_slots([note], [size])[0] for note, size in zip(notes, distinct, strict=True)]
        for node_id in ids:
            self._drop(node_id)
        first = len(self._ids)
        end = first + len(notes)
        while end > len(self._alive):
            self._grow()
        slots = list(range(first, end))
        lengths = [length for *_, length in notes]
        self._ids.extend(ids)
        self._slot.update(zip(ids, slots, strict=True))
        self._lengths[first:end] = lengths
        self._scopes[first:end] = [self._code(scope) for _, scope, _, _ in notes]
        self._types[first:end] = [self._code(type) for _, _, type, _ in notes]
        self._alive[first:end] = True
        self._distinct[first:end] = distinct
        self._tokens += sum(lengths)
        return slots

    def _append_postings(self, term_ids: Any, slots: list[int], sizes: list[int], freqs: Any) -> None:
        """Postings of notes in `slots` order, `sizes[i]` of them for note i; `term_ids` and
        `freqs` are lists or numpy arrays."""
        # Sorted by term, each term's postings in their order. The arrays are int32 where
        # they can be, and the postings appended from views: the transient arrays of a part's
        # 700,000 postings were the peak of a 100,000-note ingest.
        ids = np.asarray(term_ids, dtype=np.int32)
        order = term_order(ids)
        by_term = ids[order]
        del ids
        docs = np.repeat(np.array(slots, dtype=np.int32), sizes)[order]
        held = np.asarray(freqs)
        if held.dtype != np.uint16:  # counted here (a list): capped as a helper caps them
            held = np.minimum(held.astype(np.int64, copy=False), MAX_FREQ).astype(np.uint16)
        ranked = held[order]
        del order, held
        count = len(by_term)
        if not count:
            return
        heads = np.concatenate(([0], np.flatnonzero(np.diff(by_term)) + 1))  # each term's first
        firsts = by_term[heads]
        del by_term
        # Each posting's gap from the one before it; a term's first of this batch from the
        # term's last slot held, or, for a term without postings, 0 (the slot is its base).
        lasts = np.frombuffer(self._lasts, dtype=np.int32)[firsts]  # a copy: no view outlives this line
        gaps = np.empty_like(docs)
        gaps[1:] = docs[1:] - docs[:-1]
        gaps[heads] = np.where(lasts < 0, 0, docs[heads] - lasts)
        ends = np.append(heads[1:], count)
        terms = firsts.tolist()
        gap_codes = [code_for(g) for g in np.maximum.reduceat(gaps, heads).tolist()]
        freq_codes = [code_for(f) for f in np.maximum.reduceat(ranked, heads).tolist()]
        gap_views, freq_views = Views(gaps), Views(ranked)
        for term, start, end, first, last, gap_code, freq_code in zip(
            terms, heads.tolist(), ends.tolist(), docs[heads].tolist(), docs[ends - 1].tolist(),
            gap_codes, freq_codes, strict=True,
        ):
            if self._lasts[term] < 0:
                self._bases[term] = first
            self._lasts[term] = last
            self._docs[term] = _appended(self._docs[term], gap_views, gap_code, start, end)
            self._freqs[term] = _appended(self._freqs[term], freq_views, freq_code, start, end)
        self._postings += count

    def _grow(self) -> None:
        size = 2 * len(self._alive)
        for name in ("_lengths", "_scopes", "_types", "_alive", "_distinct"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def _compact(self) -> None:
        """Renumber the live notes 0..n-1 and drop dead postings and unused terms."""
        image = self.image()
        self.load_image(image)

    # ------------------------------------------------------------------ image

    def image(self) -> bytes:
        """The live index as bytes: MAGIC, u32 header length, JSON header, then the arrays."""
        return self.image_parts().join()

    def image_parts(self) -> KeywordImage:
        """`image()` as pieces a writer takes one after another (a snapshot streams them).

        A first ingest's index (no slot dead, nothing loaded) hands out its postings as they
        are held: each term's arrays are copied only as the writer reaches them, a megabyte
        at a time. At 100,000 notes they are tens of MB, and the one joined copy made the
        snapshot write of a cold start peak that much higher. The arrays only ever grow (a
        changed note gets a new slot, a compaction new arrays, a widened term a new array),
        so the prefix each had when this was called is the index as it was then, whatever
        is written meanwhile. Dead slots (edits) need renumbering: the live postings of each
        term are then copied here, once."""
        size = len(self._ids)
        alive = self._alive[:size]
        live = np.flatnonzero(alive)
        whole = len(live) == size
        streamed = whole and type(self._docs) is list  # not a loaded index's (cut as read)
        held = self._held_postings() if whole else self._live_postings(alive, live)
        words, doc_parts, freq_parts, counts, bases, lasts = held
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        doc_widths = np.fromiter((p.itemsize for p in doc_parts), dtype=np.uint8, count=len(doc_parts))
        freq_widths = np.fromiter((p.itemsize for p in freq_parts), dtype=np.uint8, count=len(freq_parts))
        ids = [self._ids[s] or "" for s in live.tolist()]
        codes = sorted(self._codes, key=self._codes.__getitem__)
        before = [offsets.tobytes(), bases.tobytes(), lasts.tobytes(),
                  doc_widths.tobytes(), freq_widths.tobytes()]
        after = [
            self._lengths[live].astype(np.int32).tobytes(),
            self._scopes[live].astype(np.int32).tobytes(),
            self._types[live].astype(np.int32).tobytes(),
            "\0".join(ids).encode(),
            "\0".join(words).encode(),
            self._distinct[live].astype(np.int32).tobytes(),  # a live note's postings are all live
        ]
        doc_bytes, freq_bytes = int(counts @ doc_widths), int(counts @ freq_widths)
        sizes = [*map(len, before), doc_bytes, freq_bytes, *map(len, after)]
        head = json.dumps({"codes": codes, "tokens": self._tokens, "sizes": sizes}).encode()
        start = b"".join([MAGIC, struct.pack("<I", len(head)), head, *before])
        if streamed:
            sections: list[bytes | Callable[[], Iterator[bytes]]] = [
                start, prefixes(doc_parts, counts), prefixes(freq_parts, counts), *after]
        else:
            sections = [b"".join([start, *doc_parts, *freq_parts, *after])]
        return KeywordImage(sections, len(start) + doc_bytes + freq_bytes + sum(map(len, after)))

    def _held_postings(self) -> tuple[list[str], list[Any], list[Any], Any, Any, Any]:
        """Every term's word, its arrays as held, their lengths, first and last slots now
        (terms without a posting left out)."""
        words = list(self._terms)  # in term id order: ids are given in the order words come
        terms = len(words)
        docs, freqs = list(self._docs[:terms]), list(self._freqs[:terms])
        counts = np.fromiter(map(len, docs), dtype=np.int64, count=terms)
        bases = np.array(self._bases[:terms], dtype=np.int32)
        lasts = np.array(self._lasts[:terms], dtype=np.int32)
        if not counts.all():
            kept = np.flatnonzero(counts)
            picked = kept.tolist()
            words = [words[t] for t in picked]
            docs, freqs = [docs[t] for t in picked], [freqs[t] for t in picked]
            counts, bases, lasts = counts[kept], bases[kept], lasts[kept]
        return words, docs, freqs, counts, bases, lasts

    def _live_postings(self, alive: Any, live: Any) -> tuple[list[str], list[Any], list[Any], Any, Any, Any]:
        """Each term's live postings, renumbered 0..n-1 (copies)."""
        renumber = np.full(len(alive), -1, dtype=np.int32)
        renumber[live] = np.arange(len(live), dtype=np.int32)
        words: list[str] = []
        doc_parts: list[Any] = []
        freq_parts: list[Any] = []
        counts: list[int] = []
        bases: list[int] = []
        lasts: list[int] = []
        for word, term in self._terms.items():
            held = self._docs[term]
            if not len(held):
                continue
            found = slots_of(held, self._bases[term])
            keep = alive[found]
            slots = renumber[found[keep]]
            if not len(slots):
                continue
            words.append(word)
            doc_parts.append(encoded(np.diff(slots, prepend=slots[0])))
            freq_parts.append(encoded(values_of(self._freqs[term])[keep]))
            counts.append(len(slots))
            bases.append(int(slots[0]))
            lasts.append(int(slots[-1]))
        return (words, doc_parts, freq_parts, np.asarray(counts, dtype=np.int64),
                np.asarray(bases, dtype=np.int32), np.asarray(lasts, dtype=np.int32))

    def load_image(self, image: bytes) -> None:
        self._generation += 1
        self._hits_seen.clear()
        """Become the index `image()` gave. Its postings stay one buffer each, a term's cut
        from it on first use (LoadedPostings): a term at a time, that copy was most of a
        warm start's index load at 100,000 notes, for terms few queries ever name."""
        if not image.startswith(MAGIC):
            raise ValueError("not a brain keyword index image")
        at = len(MAGIC)
        (head_size,) = struct.unpack_from("<I", image, at)
        at += 4
        header = json.loads(image[at : at + head_size])
        at += head_size
        view = memoryview(image)
        parts: list[memoryview] = []
        for part_size in header["sizes"]:
            parts.append(view[at : at + part_size])
            at += part_size
        if len(parts) != _IMAGE_PARTS:
            raise ValueError("a keyword index image of the wrong shape")
        (raw_offsets, raw_bases, raw_lasts, raw_doc_widths, raw_freq_widths, raw_docs, raw_freqs,
         raw_lengths, raw_scopes, raw_types, raw_ids, raw_words, raw_distinct) = parts
        offsets = np.frombuffer(raw_offsets, dtype=np.int64)
        ids = bytes(raw_ids).decode().split("\0") if raw_ids else []
        words = bytes(raw_words).decode().split("\0") if raw_words else []
        terms = len(words)
        doc_widths = np.frombuffer(raw_doc_widths, dtype=np.uint8)
        freq_widths = np.frombuffer(raw_freq_widths, dtype=np.uint8)
        counts = np.diff(offsets)
        if (len(offsets) != terms + 1 or len(raw_bases) != 4 * terms or len(raw_lasts) != 4 * terms
                or len(doc_widths) != terms or len(freq_widths) != terms or (counts < 0).any()
                or not np.isin(doc_widths, (1, 2, 4)).all() or not np.isin(freq_widths, (1, 2)).all()
                or int(counts @ doc_widths) != len(raw_docs) or int(counts @ freq_widths) != len(raw_freqs)
                or len(raw_distinct) != 4 * len(ids)):
            raise ValueError("a keyword index image of the wrong shape")
        self.__init__(self.compact_after)  # type: ignore[misc]
        self._codes = {name: code for code, name in enumerate(header["codes"])}
        capacity = max(1024, 1 << max(0, len(ids) - 1).bit_length())
        for name, raw in (("_lengths", raw_lengths), ("_scopes", raw_scopes), ("_types", raw_types)):
            values = np.zeros(capacity, dtype=np.int32)
            values[: len(ids)] = np.frombuffer(raw, dtype=np.int32)
            setattr(self, name, values)
        self._alive = np.zeros(capacity, dtype=bool)
        self._alive[: len(ids)] = True
        self._ids = list(ids)
        self._slot = dict(zip(ids, range(len(ids)), strict=True))
        self._tokens = int(header["tokens"])
        self._terms = dict(zip(words, range(terms), strict=True))
        self._docs = _loaded(raw_docs, counts, doc_widths)
        self._freqs = _loaded(raw_freqs, counts, freq_widths)
        self._bases.frombytes(raw_bases)
        self._lasts.frombytes(raw_lasts)
        self._postings = int(offsets[-1]) if terms else 0
        self._distinct = np.zeros(capacity, dtype=np.int32)
        self._distinct[: len(ids)] = np.frombuffer(raw_distinct, dtype=np.int32)


def _appended(held: array[int], views: Views, code: str, start: int, end: int) -> array[int]:
    """A term's array with one batch's stretch appended, widened first if the stretch needs it."""
    if DTYPES[code].itemsize > held.itemsize:
        held = widened(held, code)
    held.frombytes(views.stretch(held.typecode, start, end))
    return held


def _loaded(raw: memoryview, counts: Any, widths: Any) -> LoadedPostings:
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts * widths, out=offsets[1:])
    return LoadedPostings([CODES[w] for w in widths.tolist()], raw, offsets.tolist())


class KeywordImage:
    """An index's image in pieces (`BM25Index.image_parts`): `chunks()` gives the bytes of
    `image()` in order, as often as asked, and `size` is their length."""

    def __init__(self, sections: Sequence[bytes | Callable[[], Iterator[bytes]]], size: int) -> None:
        self.sections = sections
        self.size = size

    def chunks(self) -> Iterator[bytes]:
        for section in self.sections:
            if isinstance(section, bytes):
                yield section
            else:
                yield from section()

    def join(self) -> bytes:
        return b"".join(self.chunks())
