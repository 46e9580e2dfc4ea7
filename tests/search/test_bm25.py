"""brain's keyword index ranks as SQLite FTS5's bm25() does, through adds, edits, deletes,
compactions and snapshot images (FTS5 over the live notes is the oracle), and its scope and
type filters drop notes before the top-k is chosen; with scopes, its statistics are those of
the notes in them."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import numpy as np
import pytest

from brain.index import bm25_search
from brain.index.bm25 import BM25Index
from brain.index.counting import count_block
from brain.index.held_postings import slots_of
from brain.index.postings import MAX_FREQ, note_counts
from brain.index.text import index_words, word_counts

WORDS = ["alpha", "beta", "gamma", "delta", "echo", "fox", "golf", "hotel", "india", "juliet"]
SCOPES = ["shared", "alice", "bob"]
TYPES = ["user", "project", ""]

Note = tuple[str, str, str, str, str]  # scope, type, name, description, body


def text(rng: random.Random, words: int) -> str:
    # Skewed: some words are common, some rare, some absent from a note; mixed case.
    return " ".join(rng.choice(WORDS[: rng.randint(1, len(WORDS))]).title() if rng.random() < 0.2
                    else rng.choice(WORDS[: rng.randint(1, len(WORDS))]) for _ in range(words))


def random_note(rng: random.Random) -> Note:
    return (rng.choice(SCOPES), rng.choice(TYPES), text(rng, rng.randint(1, 3)),
            text(rng, rng.randint(0, 8)), text(rng, rng.randint(0, 60)))


def fts5_ranking(notes: dict[str, Note], terms: list[str], scopes: frozenset[str] | None,
                 type: str | None) -> list[tuple[str, float]]:
    """The oracle: FTS5 over the live notes the caller may see (an agent's statistics are its
    reach's: brain/index/bm25_search.py), bm25 with brain's column weights."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE notes USING fts5(id UNINDEXED, scope UNINDEXED, type UNINDEXED, "
               "name, description, body, tokenize = 'unicode61 remove_diacritics 0')")
    db.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)",
                   [(i, *note) for i, note in notes.items() if scopes is None or note[0] in scopes])
    expression = " OR ".join(f'"{t}"' for t in terms)
    rows = db.execute("SELECT id, scope, type, bm25(notes, 0, 0, 0, 4, 2, 1) FROM notes "
                      "WHERE notes MATCH ?", (expression,)).fetchall()
    ranked = [(i, -score) for i, scope, kind, score in rows
              if (scopes is None or scope in scopes) and (type is None or kind == type)]
    return sorted(ranked, key=lambda row: (-row[1], row[0]))


def assert_same(index: BM25Index, notes: dict[str, Note], rng: random.Random) -> None:
    for _ in range(6):
        terms = rng.sample([*WORDS, "absent"], rng.randint(1, 3))
        scopes = rng.choice([None, frozenset({"shared", "alice"}), frozenset({"bob"})])
        kind = rng.choice([None, None, "user"])
        limit = rng.choice([1, 3, 10, 1000])
        expected = fts5_ranking(notes, terms, scopes, kind)
        got = index.search(terms, scopes, kind, limit)
        assert [i for i, _ in got] == [i for i, _ in expected][:limit], (terms, scopes, kind, limit)
        for (_, mine), (_, theirs) in zip(got, expected, strict=False):
            assert mine == pytest.approx(theirs, rel=1e-9, abs=1e-12)
        # `common` (related notes' query): the same as asking only for the words in at most
        # half the notes in reach, however many edits passed since a word was counted.
        seen = [note for note in notes.values() if scopes is None or note[0] in scopes]
        rare = [t for t in terms if 2 * sum(t in index_words(" ".join(n[2:])) for n in seen) <= len(seen)]
        expected = fts5_ranking(notes, rare, scopes, kind) if rare else []
        with pytest.MonkeyPatch.context() as patch:  # in effect past thousands of notes in reach
            patch.setattr(bm25_search, "COMMON_FROM", 0)
            got = index.search(terms, scopes, kind, limit, common=0.5)
        assert [i for i, _ in got] == [i for i, _ in expected][:limit], ("common", terms, scopes)


@pytest.mark.parametrize("seed", range(6))
def test_ranks_as_fts5_through_batches_edits_deletes_compactions_and_images(seed: int) -> None:
    rng = random.Random(seed)
    index = BM25Index(compact_after=40)  # compacts often here
    notes: dict[str, Note] = {}
    for step in range(160):
        action = rng.random()
        node_id = f"memory:n{rng.randint(0, 40)}"
        if action < 0.3:
            notes[node_id] = random_note(rng)
            index.add(node_id, *notes[node_id])
        elif action < 0.45:  # a batch, the same note maybe twice in it (the last one counts)
            batch = [(f"memory:n{rng.randint(0, 40)}", random_note(rng)) for _ in range(rng.randint(1, 5))]
            notes.update(batch)
            index.add_many([(i, *note) for i, note in batch])
        elif action < 0.6:  # counted by a parse helper: some of a block's rows, in any order
            counted(index, notes, rng)
        elif action < 0.85:
            notes.pop(node_id, None)
            index.remove(node_id)
        else:
            reloaded = BM25Index(compact_after=40)
            reloaded.load_image(index.image())
            index = reloaded
        assert len(index) == len(notes)
        if step % 8 == 0:
            assert_same(index, notes, rng)
    assert_same(index, notes, rng)


def counted(index: BM25Index, notes: dict[str, Note], rng: random.Random) -> None:
    """Notes of one or two blocks, some rows of each left out (a chunk split between two
    written parts), the rest in shuffled order, one id maybe twice (the last one counts)."""
    rows: list[tuple[str, str, str, object, int]] = []
    for _ in range(rng.randint(1, 2)):
        chunk = [(f"memory:n{rng.randint(0, 40)}", random_note(rng)) for _ in range(rng.randint(1, 6))]
        block = count_block((name, description, body) for _, (_, _, name, description, body) in chunk)
        assert len(block) == len(chunk)
        picked = [row for row in range(len(chunk)) if rng.random() < 0.8]
        rng.shuffle(picked)
        for row in picked:
            node_id, note = chunk[row]
            notes.pop(node_id, None)  # re-inserted: dict order is the order of the writes
            notes[node_id] = note
            rows.append((node_id, note[0], note[1], block, row))
    index.add_counted(rows)  # type: ignore[arg-type]


def test_a_counted_block_indexes_as_the_text_does() -> None:
    """The same notes through add_many and add_counted: every word ranks the same notes with
    the same scores (term numbers may differ: a block numbers its words in its own order)."""
    rng = random.Random(3)
    notes = [(f"m{i}", *random_note(rng)) for i in range(30)]
    notes.append(("big", "shared", "", "word", "", "word " * (MAX_FREQ + 10)))  # capped alike
    by_text, by_counts = BM25Index(), BM25Index()
    by_text.add_many(notes)
    block = count_block((name, description, body) for *_, name, description, body in notes)
    by_counts.add_counted((i, scope, kind, block, row) for row, (i, scope, kind, *_) in enumerate(notes))
    assert len(by_counts) == len(by_text) == len(notes)
    for word in [w.lower() for w in WORDS] + ["word", "absent"]:
        for scopes in (None, frozenset({"bob"})):
            assert by_counts.search([word], scopes, None, 100) == by_text.search([word], scopes, None, 100)
    # name x4, description x2, body x1; the length counts every word once
    assert note_counts("deploy-x", "Deploy", "deploy DEPLOY") == ({"deploy": 4 + 2 + 2, "x": 4}, 5)


def test_ties_at_the_cut_go_by_id() -> None:
    index = BM25Index()
    for i in (5, 3, 9, 1, 7):
        index.add(f"m{i}", "shared", "", "same", "", "word")
    index.add("other", "shared", "", "nothing", "", "here")
    assert [i for i, _ in index.search(["word"], None, None, 3)] == ["m1", "m3", "m5"]


def test_filters_apply_before_the_top_k() -> None:
    index = BM25Index()
    for i in range(50):  # alice's notes all rank above bob's
        index.add(f"a{i:02}", "alice", "user", "word word", "", "word")
    index.add("b", "bob", "project", "x", "", "word")
    assert [i for i, _ in index.search(["word"], frozenset({"bob"}), None, 1)] == ["b"]
    assert [i for i, _ in index.search(["word"], None, "project", 1)] == ["b"]
    assert index.search(["word"], frozenset({"carol"}), None, 5) == []
    assert index.search(["word"], None, "reference", 5) == []


def test_empty_and_unknown() -> None:
    index = BM25Index()
    assert index.search(["word"], None, None, 5) == []
    index.load_image(BM25Index().image())
    assert len(index) == 0
    with pytest.raises(ValueError, match="not a brain keyword index"):
        index.load_image(b"SQLite format 3\0")


@pytest.mark.parametrize(("text", "words"), [
    ("Deploy the deploy-checklist_v2", ["deploy", "the", "deploy", "checklist", "v2"]),
    ("STRASSE Straße", ["strasse", "strasse"]),  # case folding, as queries are folded
    ("naïve café 東京", ["naïve", "café", "東京"]),
    ("a—b 🚀x ½ naïve_x², ÜBER!", ["a", "b", "x", "½", "naïve", "x²", "über"]),
    ("a\ud800B", ["a", "b"]),  # a lone surrogate (a YAML escape) separates, as in the regex
    ("", []),
])
def test_index_words(text: str, words: list[str]) -> None:
    assert index_words(text) == words
    assert word_counts(text) == Counter(words)


def test_a_loaded_image_cuts_each_term_on_first_use_as_an_eager_load_would() -> None:
    """After `load_image` a term's postings are cut from the image's buffer when first asked
    for: the same arrays, the same image back, and appends land on the cut copy only."""
    rng = random.Random(11)
    index = BM25Index()
    index.add_many([(f"m{i}", *random_note(rng)) for i in range(40)])
    image = index.image()
    loaded = BM25Index()
    loaded.load_image(image)
    assert loaded.image() == image  # every term cut, in term order
    held = zip(loaded._docs[:], loaded._bases, strict=True)
    postings = np.concatenate([slots_of(gaps, base) for gaps, base in held])
    assert loaded._distinct[: len(loaded)].tolist() == np.bincount(postings).tolist()
    fresh = BM25Index()
    fresh.load_image(image)
    terms = sorted(fresh._terms.items(), key=lambda item: item[1])
    assert len(fresh._docs) == len(fresh._freqs) == len(terms)
    last = terms[-1][1]
    assert fresh._docs[-1] == fresh._docs[last] == loaded._docs[last]
    assert fresh._docs[1:3] == [loaded._docs[1], loaded._docs[2]]
    for word, term in terms:
        assert fresh._docs[term] == loaded._docs[term]
        assert fresh._freqs[term] == loaded._freqs[term]
        assert fresh.search([word], None, None, 100) == index.search([word], None, None, 100)
    word, term = terms[0]
    fresh.add("new", "shared", "", word, "", word)
    assert fresh._docs[term] != loaded._docs[term]  # the other index's copy is its own
    assert "new" in [i for i, _ in fresh.search([word], None, None, 100)]
    with pytest.raises(ValueError, match="wrong shape"):  # the last word cut off: one term short
        BM25Index().load_image(image[: -len(terms[-1][0]) - 1])


def test_an_image_with_dead_slots_is_the_image_of_the_live_notes() -> None:
    """A fresh index's image takes the postings as held; one with dead slots (an edit, a
    delete) renumbers them: the two ways give the same bytes for the same live notes."""
    texts = {f"memory:n{i}": ("s", "t", f"name {i}", "a description", f"body words {i} w{i % 3}")
             for i in range(6)}
    edited = BM25Index()
    edited.add_many([(i, *t) for i, t in texts.items()])
    edited.add("memory:n2", *texts["memory:n2"])  # an edit: the old slot dies
    edited.remove("memory:n4")
    image = edited.image()
    loaded = BM25Index()
    loaded.load_image(image)  # slots 0..n-1, all live
    assert loaded.image() == image
    fresh = BM25Index()  # the live notes in slot order, indexed anew
    live = ("memory:n0", "memory:n1", "memory:n3", "memory:n5", "memory:n2")
    fresh.add_many([(i, *texts[i]) for i in live])
    for word in ("w2", "name", "2", "4", "words"):
        assert loaded.search([word], None, None, 9) == fresh.search([word], None, None, 9)
    assert loaded.search(["w2"], None, None, 9) != []


def test_a_fresh_index_streams_its_image_as_it_was_when_asked_whatever_is_added_since() -> None:
    """A first ingest's index hands its postings to a snapshot writer as pieces copied when
    the writer reaches them: the pieces are `image()`'s bytes, cut at the moment the pieces
    were asked for, even when notes are added (to the same terms, and new ones) meanwhile."""
    rng = random.Random(5)
    index = BM25Index()
    index.add_many([(f"m{i}", *random_note(rng)) for i in range(300)])
    index._terms.setdefault("unused", len(index._terms))  # a term without postings is left out
    index._ensure_terms(len(index._terms))
    before = index.image()
    parts = index.image_parts()
    assert len(parts.sections) > 2  # streamed, not one joined buffer
    pieces = parts.chunks()
    first = next(pieces)
    index.add_many([(f"late{i}", *random_note(rng)) for i in range(50)])
    streamed = first + b"".join(pieces)
    assert streamed == before == parts.join()
    assert parts.size == len(before)
    loaded = BM25Index()
    loaded.load_image(streamed)
    assert len(loaded) == 300
    assert "unused" not in loaded._terms
    assert index.image_parts().join() == index.image() != before


@pytest.mark.parametrize("top", [1, 300, 1 << 16, (1 << 16) + 1, 1 << 20, (1 << 31) - 1])
def test_postings_are_ordered_by_term_stably_below_and_past_16_bits(top: int) -> None:
    """The postings' order (a radix sort of 16-bit keys, in two passes past 65,536 terms) is
    a stable sort's: by term id, and for one term in the order the postings came."""
    from brain.index.held_postings import term_order

    rng = np.random.default_rng(top)
    ids = rng.integers(0, top, 5000).astype(np.int32)
    ids[::7] = top - 1  # many postings of one term: their order must hold
    assert np.array_equal(term_order(ids), np.argsort(ids, kind="stable"))
    assert len(term_order(np.array([], dtype=np.int32))) == 0


def test_words_numbered_past_65536_find_their_notes() -> None:
    """A part whose term numbers pass 16 bits is indexed as any other."""
    many = " ".join(f"w{i}" for i in range(70_000))
    index = BM25Index()
    index.add_many([
        ("memory:a", "shared", "", "a", "", many), ("memory:b", "shared", "", "b", "", "w69999 w3"),
    ])
    index.add_many([("memory:c", "shared", "", "c", "", "w69999 w69998 w69999")])
    found = [i for i, _ in index.search(["w69999"], None, None, 10)]
    assert found == ["memory:c", "memory:b", "memory:a"]
    assert {i for i, _ in index.search(["w3"], None, None, 10)} == {"memory:a", "memory:b"}
    assert [i for i, _ in index.search(["w69998"], None, None, 10)] == ["memory:c", "memory:a"]


def test_a_word_counted_common_is_counted_again_once_edits_could_make_it_rare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`common` skips a word by its document count from an earlier search only while the
    notes changed since could not bring it to half the notes (bm25_search._surely_common)."""
    monkeypatch.setattr(bm25_search, "COMMON_FROM", 0)
    index = BM25Index()
    for n in range(10):
        index.add(f"memory:n{n}", "shared", "", f"n{n}", "", "alpha" if n < 6 else "other")
    assert index.search(["alpha"], None, None, 10, common=0.5) == []  # in 6 of 10 notes
    index.remove("memory:n0")
    index.remove("memory:n1")  # now in 4 of 8: not more than half
    found = index.search(["alpha"], None, None, 10, common=0.5)
    assert sorted(i for i, _ in found) == [f"memory:n{n}" for n in range(2, 6)]


def test_common_words_count_in_a_small_reach() -> None:
    """Below COMMON_FROM notes in reach `common` changes nothing: every query is cheap there."""
    index = BM25Index()
    for n in range(10):
        index.add(f"memory:n{n}", "shared", "", f"n{n}", "", "alpha" if n < 6 else "other")
    assert index.search(["alpha"], None, None, 10, common=0.5) == index.search(["alpha"], None, None, 10)
