"""A note's keyword counts, and those of a chunk of notes counted by a parse helper.

Counting the words of every note is most of what the keyword index costs a full ingest (2 s
of CPU at 10,000 notes, 21 MB of text). The parse helpers (brain/ingest_worker.py) already
hold each note's text, so they count it there, on the other core, and hand each chunk's counts
back as one `PostingsBlock`: the chunk's distinct words once, then numbers. The ingesting
process maps a block's few thousand words to its term ids and appends the numbers with numpy
(brain/search/bm25.py `add_counted`), instead of counting 3.5 million words itself.

`note_counts` is the one counting rule: the index's own `add_many` and the helpers both use it,
so a note indexes the same however it was counted.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from brain.native import native
from brain.search.text import _WORD, index_words, word_counts

NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 4, 2, 1
MAX_FREQ = 65_535  # weighted frequencies are stored as uint16: BM25 saturates long before


def note_counts(name: str, description: str, body: str) -> tuple[dict[str, int], int]:
    """Each word's weighted count in a note (name x4, description x2, body x1), and the note's
    length in words (unweighted), as FTS5's bm25() counts them."""
    counts = word_counts(body)
    length = sum(counts.values())
    for weight, text in ((NAME_WEIGHT, name), (DESCRIPTION_WEIGHT, description)):
        field = index_words(text)
        length += len(field)
        for word in field:
            counts[word] = counts.get(word, 0) + weight
    return counts, length


@dataclass(frozen=True, slots=True)
class PostingsBlock:
    """The counts of a chunk of notes: note i's words are `terms[start:start + sizes[i]]`
    (indexes into `words`), with `freqs` beside them; `start` is the sum of the sizes before.
    Arrays are raw bytes (int32, counts as uint16): they pickle as one string each."""

    words: str  # the chunk's distinct words, "\0"-separated (a word is letters and digits)
    terms: bytes  # int32
    freqs: bytes  # uint16, capped at MAX_FREQ
    sizes: bytes  # int32: distinct words of each note
    lengths: bytes  # int32: words of each note

    def __len__(self) -> int:
        return len(self.sizes) // 4


# A note's place in its chunk's block: what a parse helper attaches to each note it parsed.
KeywordRow = tuple[PostingsBlock, int]


# Text counted by one pass of numpy: its temporaries are about 30 times the text, and a
# process keeps the most it ever took (a 200-note chunk of the benchmark, 430 KB, took 13 MB).
SLICE_BYTES = 64 * 1024


def count_block(notes: Iterable[tuple[str, str, str]]) -> PostingsBlock:
    """The `PostingsBlock` of notes given as (name words, description, body), counted as
    `note_counts` counts each (tested equal): by the native scanner where it is installed
    (brain/native.py), else a slice of about SLICE_BYTES of text at a time, the slices'
    blocks then merged into one."""
    rows = list(notes)
    if native is not None:
        try:
            return PostingsBlock(*native.count_block([t for row in rows for t in row], _split_slow))
        except (UnicodeEncodeError, ValueError):
            pass  # a lone surrogate (a YAML escape) is not UTF-8, or a bug: counted below
    slices: list[list[tuple[str, str, str]]] = [[]]
    size = 0
    for row in rows:
        weight = len(row[0]) + len(row[1]) + len(row[2])
        if size and size + weight > SLICE_BYTES:
            slices.append([])
            size = 0
        slices[-1].append(row)
        size += weight
    if len(slices) == 1:
        return _count_slice(rows)
    return _merged([_count_slice(part) for part in slices])


def _split_slow(pieces: list[str]) -> list[list[str]]:
    """The words of pieces of text that hold a non-ASCII character, as `index_words` finds
    them (the native scanner splits the rest itself)."""
    return [_WORD.findall(piece.casefold()) for piece in pieces]


def _merged(blocks: list[PostingsBlock]) -> PostingsBlock:
    """One block of the notes of `blocks`, in order, over one list of words."""
    words: dict[str, int] = {}
    terms = []
    for block in blocks:
        mapping = np.array(numbered(block.words.split("\0") if block.words else [], words), dtype=np.int32)
        terms.append(mapping[np.frombuffer(block.terms, dtype=np.int32)])
    return PostingsBlock(
        "\0".join(words), np.concatenate(terms).astype(np.int32).tobytes(),
        b"".join(b.freqs for b in blocks), b"".join(b.sizes for b in blocks),
        b"".join(b.lengths for b in blocks),
    )


def _count_slice(rows: list[tuple[str, str, str]]) -> PostingsBlock:
    """`count_block` of one slice, without a Python step per word.

    The chunk's texts are case-folded, joined and split into words by byte arithmetic
    (numpy). An ASCII word of up to 16 bytes is two 64-bit numbers read straight from the
    bytes; a sort of them gives the chunk's distinct words, and a sort of (note, word) pairs
    each note's count of each. The rest (a word with a non-ASCII letter or separator, or a
    longer one: 1% of the words of the benchmark's notes) is split by the regex of
    `index_words`. At 10,000 notes this is about half the CPU of counting note by note.
    """
    # A YAML escape can put a lone surrogate in a description: it passes as bytes (a separator).
    texts = [t.encode("utf-8", "surrogatepass") for row in rows for t in row]
    raw = b" ".join(texts).translate(_SEPARATORS)  # ASCII lower-cased here, the rest below
    data = np.frombuffer(raw, dtype=np.uint8)
    offsets = np.zeros(len(texts), dtype=np.int64)  # where each text starts in `data`
    np.cumsum([len(t) + 1 for t in texts[:-1]], out=offsets[1:])
    starts, sizes, slow = _words(data)
    fast = ~slow
    fast_starts, fast_sizes = starts[fast], sizes[fast]
    # Each fast word as two little-endian 64-bit numbers of its bytes, zero-padded.
    padded = np.concatenate([data, np.zeros(WIDTH, dtype=np.uint8)])
    eights = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    low = eights[fast_starts] & _LOW[fast_sizes]
    high = eights[fast_starts + 8] & _HIGH[fast_sizes]
    key = low * _MIX ^ high  # a bijection for words of up to 8 bytes; checked below beyond
    order = np.argsort(key)
    ordered = key[order]
    new_word = np.empty(len(order), dtype=bool)
    new_word[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new_word[1:])
    word_of = np.cumsum(new_word) - 1
    firsts = order[new_word]
    if not (np.array_equal(low[firsts][word_of], low[order])
            and np.array_equal(high[firsts][word_of], high[order])):
        return _count_each(rows)  # two different words made one number: count the slow way
    vocabulary = [raw[a : a + n].decode("ascii") for a, n in
                  zip(fast_starts[firsts].tolist(), fast_sizes[firsts].tolist(), strict=True)]
    words = dict(zip(vocabulary, range(len(vocabulary)), strict=True))
    fast_ids = np.empty(len(order), dtype=np.int64)
    fast_ids[order] = word_of  # each fast word's number, in text order
    text = np.searchsorted(offsets, fast_starts, side="right") - 1
    ids = [fast_ids]
    notes = [text // 3]
    freqs = [_WEIGHTS[text % 3]]
    # The slow words, case-folded and split by the regex of `index_words` (one may equal a fast
    # word: their counts are added below).
    slow_starts = starts[slow]
    slow_ids: list[int] = []
    slow_of: list[int] = []
    for at, (start, size) in enumerate(zip(slow_starts.tolist(), sizes[slow].tolist(), strict=True)):
        for word in _WORD.findall(raw[start : start + size].decode("utf-8", "surrogatepass").casefold()):
            slow_ids.append(words.setdefault(word, len(words)))
            slow_of.append(at)
    if slow_ids:
        slow_text = (np.searchsorted(offsets, slow_starts, side="right") - 1)[slow_of]
        ids.append(np.asarray(slow_ids, dtype=np.int64))
        notes.append(slow_text // 3)
        freqs.append(_WEIGHTS[slow_text % 3])
    # Each note's postings together (any word order): a word's weights in a note summed.
    pair = np.concatenate(notes) * max(len(words), 1) + np.concatenate(ids)
    by_pair = np.argsort(pair)
    pair = pair[by_pair]
    first = np.empty(len(pair), dtype=bool)
    first[:1] = True
    np.not_equal(pair[1:], pair[:-1], out=first[1:])
    bounds = np.flatnonzero(first)
    summed = np.add.reduceat(np.concatenate(freqs)[by_pair], bounds) if len(bounds) else _NONE
    pair = pair[bounds]
    pair_notes = pair // max(len(words), 1)
    lengths = np.bincount(np.concatenate(notes), minlength=len(rows))
    return PostingsBlock(
        "\0".join(words),
        (pair % max(len(words), 1)).astype(np.int32).tobytes(),
        np.minimum(summed, MAX_FREQ).astype(np.uint16).tobytes(),
        np.bincount(pair_notes, minlength=len(rows)).astype(np.int32).tobytes(),
        lengths.astype(np.int32).tobytes(),
    )


def _words(data: Any) -> tuple[Any, Any, Any]:
    """Where the words of translated text start, their sizes in bytes, and which are slow (a
    byte of a non-ASCII character, or longer than WIDTH)."""
    is_word = (data != 0x20).view(np.int8)
    edges = np.diff(is_word, prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    sizes = np.flatnonzero(edges == -1) - starts
    slow = sizes > WIDTH
    non_ascii = np.flatnonzero(data >= 0x80)
    if len(non_ascii):
        slow[np.searchsorted(starts, non_ascii, side="right") - 1] = True
    return starts, sizes, slow


def numbered(words: Collection[str], numbers: dict[str, int]) -> list[int]:
    """The number of each word in `numbers`, a new word numbered next (and added); `words` is
    gone through twice when one is new."""
    found = list(map(numbers.get, words))
    if None in found:
        found = [numbers.setdefault(word, len(numbers)) for word in words]
    return found  # type: ignore[return-value]  # no None left


def _count_each(rows: list[tuple[str, str, str]]) -> PostingsBlock:
    """`count_block`'s answer, note by note (its fallback, and its reference in tests)."""
    local: dict[str, int] = {}
    terms: list[int] = []
    freqs: list[int] = []
    sizes, lengths = array("i"), array("i")
    for name, description, body in rows:
        counts, length = note_counts(name, description, body)
        terms += numbered(counts, local)
        freqs += counts.values()
        sizes.append(len(counts))
        lengths.append(length)
    if freqs and max(freqs) > MAX_FREQ:
        freqs = [f if f < MAX_FREQ else MAX_FREQ for f in freqs]
    return PostingsBlock(
        "\0".join(local), array("i", terms).tobytes(), array("H", freqs).tobytes(),
        sizes.tobytes(), lengths.tobytes(),
    )


WIDTH = 16  # bytes of an ASCII word counted as numbers; longer ones are split by the regex
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
# Masks of a word's first and second 8 bytes, by its size (0..16): the bytes after it are zeroed.
_LOW = np.array([(1 << 8 * n) - 1 if n < 8 else int(_ALL) for n in range(WIDTH + 1)], dtype=np.uint64)
_HIGH = np.array([(1 << 8 * (n - 8)) - 1 if 8 < n < 16 else (int(_ALL) if n >= 16 else 0)
                  for n in range(WIDTH + 1)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it loses nothing
_WEIGHTS = np.array([NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT], dtype=np.float64)
_NONE = np.zeros(0, dtype=np.float64)
# ASCII letters lower-cased, every other ASCII byte but digits a separator; bytes of other
# characters kept (their words are case-folded one by one).
_SEPARATORS = bytes(
    ord(chr(b).lower()) if chr(b).isalnum() and b < 0x80 else b if b >= 0x80 else 0x20
    for b in range(256))
