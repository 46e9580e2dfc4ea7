"""The keyword index's postings as held (brain/index/held_postings.py): gaps and frequencies
in the narrowest width, widened when a later batch needs it, through images and loads."""

from __future__ import annotations

from array import array

import numpy as np
import pytest

from brain.index.bm25 import BM25Index
from brain.index.held_postings import Views, code_for, encoded, slots_of, widened
from tests.search.test_bm25 import fts5_ranking

Note = tuple[str, str, str, str, str]


@pytest.mark.parametrize(("largest", "code"), [
    (0, "B"), (255, "B"), (256, "H"), (65_535, "H"), (65_536, "I"), (2**31 - 1, "I"),
])
def test_the_narrowest_code(largest: int, code: str) -> None:
    assert code_for(largest) == code
    assert encoded(np.array([0, largest], dtype=np.int64)).typecode == code


def test_widening_keeps_the_values_and_leaves_the_old_array_alone() -> None:
    narrow = array("B", [0, 3, 255])
    wide = widened(narrow, "I")
    assert (wide.typecode, list(wide)) == ("I", [0, 3, 255])
    assert narrow.typecode == "B"
    assert list(narrow) == [0, 3, 255]
    assert slots_of(wide, 10).tolist() == [10, 13, 268]


def test_views_give_each_width_of_the_same_stretch() -> None:
    views = Views(np.array([1, 2, 300, 4], dtype=np.int32))
    assert bytes(views.stretch("B", 0, 2)) == bytes([1, 2])
    assert np.frombuffer(views.stretch("H", 1, 3), dtype=np.uint16).tolist() == [2, 300]


def held(index: BM25Index, word: str) -> tuple[str, str]:
    term = index._terms[word]
    return index._docs[term].typecode, index._freqs[term].typecode


def test_a_dense_term_takes_a_byte_a_posting_and_a_sparse_one_widens() -> None:
    """1,000 notes with `common` in each: gaps of 1 and small counts, one byte each. `rare`
    comes back after 300 and then 70,000 notes: its gaps widen to 2, then 4 bytes, and every
    slot and score stays what FTS5 says."""
    index = BM25Index()
    notes: dict[str, Note] = {}

    def add(batch: list[tuple[str, Note]]) -> None:
        notes.update(batch)
        index.add_many([(node_id, *note) for node_id, note in batch])

    add([(f"n{i}", ("s", "t", f"note {i}", "", "common words" + (" rare" if i == 0 else "")))
         for i in range(1000)])
    assert held(index, "common") == ("B", "B")
    assert len(index._docs[index._terms["common"]]) == 1000  # bytes: one a posting
    add([(f"m{i}", ("s", "t", "filler", "", "other")) for i in range(300)])
    add([("r1", ("s", "t", "r1", "", "rare " * 300))])  # a gap of 1,300 and a count of 300
    assert held(index, "rare") == ("H", "H")
    add([(f"f{i}", ("s", "t", "f", "", "")) for i in range(70_000)])
    add([("r2", ("s", "t", "r2", "", "rare"))])
    assert held(index, "rare") == ("I", "H")
    assert held(index, "common") == ("B", "B")  # other terms keep their width
    for terms in (["rare"], ["common"], ["rare", "common", "note"]):
        expected = fts5_ranking(notes, terms, None, None)[:50]
        got = index.search(terms, None, None, 50)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [score for _, score in got] == pytest.approx([score for _, score in expected], rel=1e-9)
    ranked = index.search(["rare"], None, None, 10)
    assert sorted(node_id for node_id, _ in ranked) == ["n0", "r1", "r2"]
    # An image keeps each width; a loaded index appends to a widened term from its last slot.
    loaded = BM25Index()
    loaded.load_image(index.image())
    assert held(loaded, "rare") == ("I", "H")
    assert held(loaded, "common") == ("B", "B")
    assert loaded.search(["rare"], None, None, 10) == ranked
    for target in (index, loaded):
        target.add("r3", "s", "t", "r3", "", "rare common")
    assert loaded.search(["rare"], None, None, 10) == index.search(["rare"], None, None, 10)
    assert loaded.search(["common"], None, None, 2000) == index.search(["common"], None, None, 2000)
    assert loaded.image() == index.image()
