"""`count_block` by numpy: the reference of the native keyword counter and its fallback.

Apart from brain/index/postings.py so that a process that counts natively (a parse helper)
never imports numpy: 50 ms of its start.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brain.index.postings import (
    BODY_WEIGHT,
    DESCRIPTION_WEIGHT,
    MAX_FREQ,
    NAME_WEIGHT,
    WIDTH,
    PostingsBlock,
    _count_each,
    numbered,
)
from brain.index.text import _WORD

# Text counted by one pass of numpy: its temporaries are about 30 times the text, and a
# process keeps the most it ever took (a 200-note chunk of the benchmark, 430 KB, took 13 MB).
SLICE_BYTES = 64 * 1024


def count_rows(rows: list[tuple[str, str, str]]) -> PostingsBlock:
    """`count_block` of rows, a slice of about SLICE_BYTES of text at a time, the slices'
    blocks then merged into one."""
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
