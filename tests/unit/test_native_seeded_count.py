"""The one word scan of a body shared by the keyword count and the mention seed
(native/src/seeded_count.rs, brain/index/seeded_counting.py) gives exactly what the two scans
apart give: the chunk's `PostingsBlock` of `count_block`, and for each body the candidates of
`mention_seed_candidates` (hence the same `seed_of`): on a table of bodies (code spans,
fences, wikilinks and markdown links, URLs, `_` inside words, words past 16 bytes, Latin-1,
CJK, dashes, emoji, a character the twin does not lower-case itself, frontmatter-like text),
on random bodies built from their pieces, and on the benchmark's notes of both profiles. The
table also says which bodies the one scan takes, so a scan that gave every body back to the
two scans (correct, and no cheaper) fails too."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.workload import generate
from brain.index import seeded_counting
from brain.index.counting import count_block
from brain.index.postings import split_slow
from brain.index.seeded_counting import count_and_seed
from brain.parse import mention_seeds, mentions
from brain.parse.mention_seeds import Vocabulary, seed_of

pytestmark = pytest.mark.skipif(seeded_counting._twin is None,
                                reason="the native scanner is not built with count_block_seeded (cargo)")

NAMES = ["deploy guide", "beta", "release plan", "x_y", "snake_case_name", "été plan", "naïve", "東京 region",
         "notes", "averyveryverylongword plan", "[[odd]] name",
         # One first word starting names of 1, 2 and 4 words, a name that is a longer one's
         # start and one that is not: the one scan reads on from a first word only while the
         # words are a longer name's start, and gives a word's names longest first.
         "release", "release plan review board", "plan review", "café",
         # First words the sparse scan finds outside a plain piece: beginning with `_`, with an
         # accented capital, a CJK word, and a name whose words an emoji separates.
         "_draft notes", "Über plan", "東京", "rocket 🚀 launch",
         # A first word of one-word names only is a candidate without a look at the next word:
         # one that is a longer name's second word, and one past 16 bytes.
         "guide", "supercalifragilisticexpialidocious",
         # Names the trie walk (native/src/name_trie.rs) must follow exactly: a word of `_`
         # alone inside one (no piece of the count), a word past 16 bytes after the first.
         "release __ plan review", "deploy supercalifragilisticexpialidocious guide"]
VOCABULARY = Vocabulary(NAMES)
PLAIN = Vocabulary([n for n in NAMES if "[" not in n])  # blanks its wikilinks' words

# (case, body, whether the one scan takes it: False where the twin would lower-case it in Python)
CASES: list[tuple[str, str, bool]] = [
    ("plain", "see the deploy guide and beta", True),
    ("code span", "run `beta` then beta", True),
    ("fenced", "beta\n\n```\nbeta deploy guide\n```\n\nbeta", True),
    ("wikilink", "[[beta]] and [[x|beta]] beta [[deploy guide#x]] deploy guide", True),
    ("markdown link", "[beta](https://x.org/beta) and [deploy guide][ref] beta", True),
    ("url", "https://beta.org/deploy_guide and www.beta.com beta", True),
    ("underscores", "x_y and x y and snake_case_name, snake case name, __beta__ _beta", True),
    ("long words", "averyveryverylongword plan; AVERYVERYVERYLONGWORD PLAN; averyveryverylongwords", True),
    ("latin-1", "Été plan, été  plan, naïve NAÏVE naïveté José Zoë", True),
    ("cjk", "東京 region and 東京region", True),
    ("dash and emoji", "beta—deploy guide 🚀 beta… “release plan”", True),
    ("math", "$beta$ and $$release plan$$ beta", True),
    ("frontmatter-like", "---\nname: beta\ndescription: deploy guide\n---\nbeta", True),
    ("nested names",
     "release plan review board; release plan review; release plan reviews; release release plan", True),
    ("names at the end", "see the release plan review", True),
    ("name across a link", "release [[x]] plan and release [[plan]] review board, release [[x]]", True),
    ("first word in a link", "[[release plan]] and [[release]] plan review board [[release", True),
    ("underscores and dashes", "release_plan release-plan __release plan_ release__plan release_ plan", True),
    ("wide regions", "naïve—release plan, Été_plan, café_release plan, 東京region release, café—beta", True),
    ("name across lines", "release plan\nreview board and release\nplan", True),
    ("dotted i", "İstanbul beta and K beta", False),
    ("arabic digit", "beta ١ release plan", False),
    # Where the sparse scan (native/src/seeded_count.rs) must find what a scan of every word
    # finds: words joined by `_`, first words in a region, CJK, emoji, links, the body's ends.
    ("names at the start", "release plan review board and beta", True),
    ("underscore-joined", "beta_release plan, release_plan_review board, x_y_z x_y, _x_y, x_y_", True),
    ("underscore first", "_draft notes, __draft notes, _draft_notes, x_draft notes, _Draft  Notes", True),
    ("accented first", "Über plan, über plan, ÜBER PLAN, xüber plan, Über—plan, été plan été plan", True),
    ("cjk", "東京region 東京 region 大東京 region region東京 東京", True),
    ("emoji between", "rocket 🚀 launch, rocket launch, 🚀rocket 🚀 launch🚀 rocket🚀launch", True),
    ("repeated and overlapping", "beta beta release plan release plan review board review board plan", True),
    ("links around names", "plan [[x]] review, release [[release plan]] plan [[beta]]", True),
    ("words glued to links", "release[[x]]plan review[[y]]board [[a]]beta[[b]]", True),
    ("links only", "[[beta]] [[release plan]] [[_draft notes]]", True),
    ("body ends in a name", "see release plan review board", True),
    ("one-word names only",
     "beta plan review board, beta beta. Beta guide; deploy guide guide, BETA_beta beta_ guide—beta "
     "[[beta]] beta [[x|guide]]guide, Supercalifragilisticexpialidocious plan "
     "supercalifragilisticexpialidocious",
     True),
    ("one-word names in every state",
     "# beta\n\n- beta\n> guide `beta` [beta](x) beta\nbeta lazily\n\n    beta\n\n```\nbeta\n```\n\n"
     "| beta | guide |\n\n<div>\nbeta\n</div>\nguide\n===\nbeta $beta$ https://beta.org guide\n\n"
     "1. beta\n   guide\n\n~~~\nguide\n~~~\nbeta [beta]: x",
     True),
    # Where the walks along the names' trie must stop, or give a first word back to be read on.
    ("underscore words inside a name",
     "release __ plan review, release _ plan, release __ plan, release plan __ review board, release __",
     True),
    ("a dash inside a walk", "release — plan review board, release—plan review, plan — review", True),
    ("a long word inside a name",
     "deploy supercalifragilisticexpialidocious guide; DEPLOY Supercalifragilisticexpialidocious Guide; "
     "deploy supercalifragilisticexpialidocious; deploy supercalifragilisticexpialidociousness guide", True),
    ("walks that overlap",
     "release plan review board review plan review release release plan review release plan plan review",
     True),
    ("a walk across lines and links",
     "release\n[[x]] plan review board, release [[plan]] review [[y]] board", True),
    # Prose states read URLs on the names' lines only and math up to the last name (an ASCII
    # body): URLs and math on other lines, before and after.
    ("urls on other lines",
     "https://beta.org\nbeta and deploy guide\nsee www.beta.com/deploy guide beta\nbeta\n"
     "http://x.org beta", True),
    ("math around the names",
     "$$\nbeta\nrelease plan\n$$\nbeta \\$ beta $a\\$b$ beta $x$ and $$\nrelease plan\n$$ beta $y$ $z", True),
    ("math after the last name", "beta and release plan, then $x$ and $$y$$ and `$` and ~~~", True),
    ("a url after a non-ascii letter", "été https://beta.org beta\nxéhttps://beta.org beta\nbeta", True),
    ("empty", "", True),
    ("no words", "--- ... ***", True),
]


def python_seed(body: str, vocabulary: Vocabulary) -> object:
    """`seed_of` by the Python reference alone (`_listed_py`, every prose by `_prose_only`)."""
    saved, mention_seeds._native_seed = mention_seeds._native_seed, None
    try:
        return seed_of(body, 3, vocabulary)
    finally:
        mention_seeds._native_seed = saved


def apart(rows: list[tuple[str, str, str]], vocabulary: Vocabulary) -> list[object]:
    """Each body's candidates as the twin finds them on its own scan."""
    return [mention_seeds._listed_native(body, vocabulary) for _n, _d, body in rows]


def check(bodies: list[str], vocabulary: Vocabulary) -> list[bool]:
    """The one scan against the two on one chunk; which bodies the one scan took."""
    rows = [(f"note {i}", "a description of beta", body) for i, body in enumerate(bodies)]
    block, listed = count_and_seed(rows, [vocabulary] * len(rows))
    assert block == count_block(rows)
    for body, found, alone in zip(bodies, listed, apart(rows, vocabulary), strict=True):
        if found is not None:
            assert found == alone, body
            assert seed_of(body, 3, vocabulary, found) == python_seed(body, vocabulary), body
        assert seed_of(body, 3, vocabulary, found) == seed_of(body, 3, vocabulary), body
    return [found is not None for found in listed]


@pytest.mark.parametrize(("case", "body", "shared"), CASES, ids=[c[0] for c in CASES])
def test_one_scan_equals_two_on_the_table(case: str, body: str, shared: bool) -> None:
    for vocabulary in (PLAIN, VOCABULARY):
        assert check([body], vocabulary) == [shared], case


def test_one_scan_on_a_chunk_of_the_table() -> None:
    """The chunk's word ids are numbered across its notes: the whole table as one chunk, with
    notes not seeded between them (a vocabulary of None: counted only)."""
    rows = [(case, "desc", body) for case, body, _ in CASES]
    vocabularies = [PLAIN if i % 3 else None for i in range(len(rows))]
    block, listed = count_and_seed(rows, vocabularies)
    assert block == count_block(rows)
    assert [i for i, found in enumerate(listed) if found is not None] == [
        i for i, (_c, _b, shared) in enumerate(CASES) if shared and i % 3]


PIECES = [
    "_draft", "notes", "Über", "über", "rocket", "🚀", "launch", "大",
    "beta", "Beta", "deploy", "guide", "release", "plan", "x", "_", "y", "snake", "case", "name", "été",
    "ÉTÉ", "naïve", "東京", "region", "notes", "averyveryverylongword", " ", "  ", "-", "\n", "\n\n", ",",
    "[[", "]]", "|", "`", "```\n", "$", "[", "](", ")", "][", "https://x.org/", "www.", "é", "—",
    "🚀", "İ", "١", "José", "×", "ß", "---", "review", "board", "Review", "café",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=40), min_size=1, max_size=4), st.booleans())
def test_one_scan_equals_two_on_random_bodies(bodies: list[list[str]], plain: bool) -> None:
    check(["".join(pieces) for pieces in bodies], PLAIN if plain else VOCABULARY)


@pytest.mark.parametrize("profile", ["default", "real"])
def test_one_scan_equals_two_on_benchmark_notes(tmp_path: Path, profile: str) -> None:
    generate(tmp_path / "ws", 300, profile=profile)
    paths = sorted((tmp_path / "ws" / "memory").rglob("*.md"))
    notes = [(p.stem, p.read_text(encoding="utf-8")) for p in paths]
    vocabulary = Vocabulary(name for name, _ in notes)
    taken = check([body for _, body in notes], vocabulary)
    assert sum(taken) > 0.9 * len(taken)  # the one scan is the common case, not the exception


def test_a_word_starts_what_each_table_says() -> None:
    """What a word starts is kept by word id for the table last asked: notes of one chunk with
    tables that disagree on a word (one-word names only in one, a longer name in the other)."""
    alone, longer = Vocabulary(["beta", "plan"]), Vocabulary(["beta plan", "beta", "plan review"])
    bodies = ["beta plan review", "a beta plan", "beta", "plan review beta plan"] * 2
    vocabularies = [alone, longer, longer, alone, alone, alone, longer, longer]
    rows = [(f"n{i}", "d", body) for i, body in enumerate(bodies)]
    block, listed = count_and_seed(rows, vocabularies)
    assert block == count_block(rows)
    for body, vocabulary, found in zip(bodies, vocabularies, listed, strict=True):
        assert found == mention_seeds._listed_native(body, vocabulary), body
        assert seed_of(body, 3, vocabulary, found) == python_seed(body, vocabulary), body


def test_names_of_the_same_words_are_the_first_of_them() -> None:
    """A table's names of the same words (the twin is given such lists as they come) are the
    first of them, in the one scan's trie as in the scan of every word (`mention_candidates`)."""
    assert mentions._native_table is not None
    assert seeded_counting._twin is not None
    table = mentions._native_table(
        [("beta", "plan"), ("beta",), ("beta", "plan"), ("beta",), ("plan",), ("plan",)])
    body = "a beta plan and beta, plan beta plan plan"
    _block, (found,) = seeded_counting._twin(["n", "d", body], split_slow, [(table, False)])
    assert found is not None
    expected = [(first, end, k) for _i, _n, first, end, k in mentions._native_candidates(body, "", table)]
    assert [(first, end, k) for _s, _l, first, end, k, _state in found] == expected
    assert {k for _f, _e, k in expected} == {0, 1, 4}


def test_without_the_twin_the_two_scans_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """An install without the twin (an older build, BRAIN_NATIVE=0): counted as before, every
    seed found on its own."""
    monkeypatch.setattr(seeded_counting, "_twin", None)
    rows = [("n", "d", body) for _c, body, _s in CASES]
    block, listed = count_and_seed(rows, [VOCABULARY] * len(rows))
    assert block == count_block(rows)
    assert listed == [None] * len(rows)


def test_a_first_word_of_underscores_alone_leaves_bodies_with_one_to_the_two_scans() -> None:
    """A name whose first word is `_` alone is in no piece the count cuts out: the one scan
    gives a body with a `_` back (None) and takes the rest, with the same answers."""
    vocabulary = Vocabulary(["_ hidden", "__ init plan", "beta"])
    bodies = ["a _ hidden beta", "x __ init plan", "beta_x", "beta and hidden", "[[_ hidden]] beta"]
    assert check(bodies, vocabulary) == [False, False, False, True, False]
    assert check(bodies, PLAIN) == [True] * len(bodies)
