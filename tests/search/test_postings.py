"""A chunk counted at once by a parse helper (`count_block`) gives each note exactly the counts
`note_counts` gives it (the regex, note by note): random texts of tricky characters, and a
table of the cases each path of `count_block` takes. Each test of `count_block` runs twice: on
the native scanner (brain/parse/native.py) and on the numpy code, its reference and fallback
(the random test counts each text it draws on both, so the draw is done once)."""

from __future__ import annotations

from array import array
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.index import counting, postings_numpy
from brain.index.counting import count_block
from brain.index.postings import MAX_FREQ, WIDTH, PostingsBlock, _count_each, note_counts
from brain.parse import native as native_module

Row = tuple[str, str, str]

# The `python` leg calls no native scanner (counting.native is None): the BRAIN_NATIVE=0 pass
# would run it again as it is (tests/plan.py).
SCANNERS = [pytest.param("python", marks=pytest.mark.no_native_rerun)] + (
    ["native"] if native_module.native is not None else [])


@pytest.fixture(params=SCANNERS)
def scanner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A test of `count_block` on the numpy code, and on the native scanner where it is built.
    (Asked for by those tests only: the tests of the numpy code's own parts ran twice as the
    same test when it was autouse.)"""
    if request.param == "python":
        monkeypatch.setattr(counting, "native", None)
    return str(request.param)


def per_note(block: PostingsBlock) -> list[tuple[dict[str, int], int]]:
    words = block.words.split("\0") if block.words else []
    terms, freqs = array("i", block.terms), array("H", block.freqs)
    out: list[tuple[dict[str, int], int]] = []
    at = 0
    for size, length in zip(array("i", block.sizes), array("i", block.lengths), strict=True):
        counts = {words[terms[i]]: freqs[i] for i in range(at, at + size)}
        assert len(counts) == size  # a word once a note
        out.append((counts, length))
        at += size
    assert at == len(terms) == len(freqs)
    return out


def expected(rows: list[Row]) -> list[tuple[dict[str, int], int]]:
    out = []
    for row in rows:
        counts, length = note_counts(*row)
        out.append(({w: min(f, MAX_FREQ) for w, f in counts.items()}, length))
    return out


PIECES = ["a", "B", "Zz", "é", "É", "ß", "ẞ", "Σ", "ς", "İ", "ﬁ", "東京", "🚀", "—", "’", "½", "x²",
          "_", "-", " ", "\n", "\t", "\0", "0", "42", ".", "naïve", "STRASSE", "k", "K", "\u00a0",
          "\u0301", "\ud800", "a" * WIDTH, "b" * (WIDTH + 1), "abcdefgh", "abcdefghi", "Ǆ", "ǅ",
          "×", "÷", "ÿ", "Þ", "þ", "À", "Ö", "ö", "µ", "ª", "José", "ZOË"]  # Latin-1: native
text = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def counted_by(scanner: str, rows: list[Row]) -> PostingsBlock:
    """`count_block` on one scanner: `python` is the numpy code (counting.native set to None,
    as the `scanner` fixture sets it)."""
    if scanner == "native":
        return count_block(rows)
    with mock.patch.object(counting, "native", None):
        return count_block(rows)


# Both scanners on each drawn chunk, in one test: drawing the chunks was most of the time of the
# test, and run once a scanner the two (derandomized in CI) drew the same 1,500 chunks. Without
# the native scanner, the numpy code alone, which the BRAIN_NATIVE=0 pass would run as it is.
BOTH = ([pytest.param(("native", "python"), id="native+python")] if native_module.native is not None
        else [pytest.param(("python",), id="python", marks=pytest.mark.no_native_rerun)])


@pytest.mark.parametrize("scanners", BOTH)
@settings(max_examples=1500, deadline=None)
@given(rows=st.lists(st.tuples(text, text, text), max_size=6))
def test_a_block_counts_as_note_counts(scanners: tuple[str, ...], rows: list[Row]) -> None:
    want = expected(rows)
    for scanner in scanners:
        assert per_note(counted_by(scanner, rows)) == want, scanner


@pytest.mark.usefixtures("scanner")
@pytest.mark.parametrize("rows", [
    [],  # an empty chunk
    [("", "", "")],  # a note without words
    [("deploy checklist", "How to Deploy", "deploy DEPLOY deploy-checklist")],  # all fast
    [("x", "", "café—x naïve Straße 東京")],  # slow words, one of them equal to a fast one
    [("José", "ZOË and zoë", "À×Þ ß÷ÿ ĀÁ Øµ")],  # Latin-1 letters lowered natively, the rest not
    [("x", "a\ud800b", "")],  # a lone surrogate (a YAML escape in a description) separates
    [("", "", "a" * WIDTH + " " + "a" * (WIDTH + 1) + " " + "a" * (WIDTH + 1))],  # 16 fast, 17 slow
    [("", "", "abcdefgh abcdefghi abcdefgh\0i")],  # 8 and 9 bytes: the second number matters
    [("n", "", "word " * (MAX_FREQ + 5))],  # a weighted count past uint16 is capped
    [("a", "b", "c"), ("", "", ""), ("c", "a", "b"), ("b b", "", "a")],  # notes share words
])
def test_each_path_of_a_block(rows: list[Row]) -> None:
    block = count_block(rows)
    assert len(block) == len(rows)
    assert per_note(block) == expected(rows)
    assert per_note(_count_each(rows)) == expected(rows)  # the fallback, on the same table


@pytest.mark.no_native_rerun  # the numpy code alone (tests/plan.py)
def test_words_that_share_a_number_are_counted_the_slow_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check that no two words got one number is real: with a mix that maps every short
    word to 0, the block is still right (counted note by note)."""
    import numpy as np

    monkeypatch.setattr(postings_numpy, "_MIX", np.uint64(0))
    rows = [("alpha", "beta", "gamma alpha"), ("", "delta", "alpha")]
    assert per_note(postings_numpy.count_rows(rows)) == expected(rows)


@pytest.mark.no_native_rerun  # the numpy code alone (tests/plan.py)
@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(text, text, text), max_size=12), st.integers(1, 40))
def test_a_block_counted_in_slices_counts_as_note_counts(rows: list[Row], slice_bytes: int) -> None:
    """A chunk past SLICE_BYTES is counted a slice at a time and merged: the same counts,
    over one list of words with each word once."""
    with mock.patch.object(postings_numpy, "SLICE_BYTES", slice_bytes):
        block = postings_numpy.count_rows(rows)  # the numpy code's slicing, native or not
    words = block.words.split("\0") if block.words else []
    assert len(words) == len(set(words))
    assert per_note(block) == expected(rows)


def test_a_text_the_native_scanner_cannot_take_is_counted_by_numpy(scanner: str) -> None:
    """A lone surrogate (a YAML escape) is not UTF-8, which the native scanner takes: the
    block is then counted by the numpy code, and still right."""
    rows = [("x", "a\ud800b", "c")]
    assert per_note(count_block(rows)) == expected(rows)
