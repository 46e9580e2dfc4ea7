"""A note's keyword counts, and those of a chunk of notes counted by a parse helper.

Counting the words of every note is most of what the keyword index costs a full ingest (2 s
of CPU at 10,000 notes, 21 MB of text). The parse helpers (brain/ingest/worker.py) already
hold each note's text, so they count it there, on the other core, and hand each chunk's counts
back as one `PostingsBlock`: the chunk's distinct words once, then numbers. The ingesting
process maps a block's few thousand words to its term ids and appends the numbers with numpy
(brain/index/bm25.py `add_counted`), instead of counting 3.5 million words itself.

`note_counts` is the one counting rule: the index's own `add_many` and the helpers both use it,
so a note indexes the same however it was counted.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection
from dataclasses import dataclass

from brain.index.text import _WORD, index_words, word_counts

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


def split_slow(pieces: list[str]) -> list[list[str]]:
    """The words of pieces of text that hold a non-ASCII character, as `index_words` finds
    them (the native scanner splits the rest itself)."""
    return [_WORD.findall(piece.casefold()) for piece in pieces]


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
