"""The seeded path of unlinked mentions (brain.parse.mention_seeds: a parse helper's seed, then
the names a source reaches) answers exactly what the reference `find_mentions` answers on the
body: on the mentions table, on random bodies with random reaches drawn from a larger
vocabulary (names a source does not reach must not change its answer, however they overlap
the ones it does), and on the benchmark's notes."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.workload import generate
from brain.parse.mention_seeds import (
    SEED_MAX,
    ScopedVocabulary,
    Vocabulary,
    _listed_native,
    mentions_from_seed,
    seed_of,
)
from brain.parse.mentions import ASK, Mention, MentionTarget, NameIndex, find_mentions
from tests.unit.test_mentions import CASES, SOURCE, index

NAMES = ["Project Alpha", "alpha proj", "alpha", "beta", "gamma", "deploy guide", "deploy-howto",
         "deploy", "guide book", "beta gamma", "release plan", "plan review", "release plan review",
         "x_y", "x y", "v2 notes", "été plan", "naïve", "notes"]
PIECES = ["project", "Project", "alpha", "proj", "beta", "gamma", "deploy", "guide", "book", "howto",
          "release", "plan", "review", "x", "_", "y", "v2", "notes", "été", "naïve", " ", " ", "  ",
          "-", "\n", "\n\n", ",", ".", "[[", "]]", "|", "`", "```\n", "    ", "$", "*", "[", "](",
          ")", "https://x.org/", "www.", "<b>", "</b>", "# ", "> ", "- ", "\\"]


def reference(body: str, names: NameIndex, linked: frozenset[str] = frozenset()) -> list[Mention]:
    return find_mentions(body, 3, names, source_id=SOURCE, linked=linked)


def seeded(body: str, names: NameIndex, vocabulary: Vocabulary,
           linked: frozenset[str] = frozenset()) -> list[Mention]:
    seed = seed_of(body, 3, vocabulary)
    assert seed is not None
    return mentions_from_seed(seed, vocabulary, names, source_id=SOURCE, linked=lambda: linked)


def reach(picked: list[int]) -> NameIndex:
    """A source's names: some of NAMES, on its own level or shared."""
    return NameIndex([(NAMES[k], MentionTarget(f"memory:s/{NAMES[k]}", NAMES[k], k % 2)) for k in picked])


@pytest.mark.parametrize("body", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_seeded_equals_reference_on_the_table(body: str) -> None:
    names = index()
    vocabulary = Vocabulary([*NAMES, "Project Alpha", "alpha proj", "beta", "gamma", "deploy guide",
                             "deploy-howto", "notes", "apikey", "it", "bob-secret"])
    assert seeded(body, names, vocabulary) == reference(body, names)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60),
       st.lists(st.integers(0, len(NAMES) - 1), max_size=len(NAMES), unique=True),
       st.lists(st.integers(0, len(NAMES) - 1), max_size=4, unique=True))
@example(["https://x.org/", "release", " ", "plan", " ", "review"], [10, 11], [])
@example(["release", " ", "plan", " ", "review"], [10, 11, 12], [])
@example(["alpha", " ", "proj"], [1, 2], [1])
def test_seeded_equals_reference(pieces: list[str], picked: list[int], linked_at: list[int]) -> None:
    body = "".join(pieces)
    names = reach(picked)
    linked = frozenset(f"memory:s/{NAMES[k]}" for k in linked_at)
    vocabulary = Vocabulary(NAMES)
    assert seeded(body, names, vocabulary, linked) == reference(body, names, linked)


def index_fields(index: NameIndex) -> tuple[object, ...]:
    """Everything a NameIndex answers from, as values."""
    return (len(index), index.first_words, index._lengths, index._words, index._numbers,
            index._names, index._targets)


def test_vocabulary_crosses_a_pipe_built() -> None:
    """A parse helper receives the vocabulary's index built, not its names to index again:
    every field equal to the sender's, and the Rust table built again over there."""
    sent = Vocabulary(NAMES)
    sent.index.native_table()  # built on this side: never pickled
    vocabulary = pickle.loads(pickle.dumps(sent))
    assert vocabulary.names == sorted(NAMES)
    assert vocabulary.blank_links == sent.blank_links
    assert index_fields(vocabulary.index) == index_fields(sent.index)
    assert vocabulary.covers(("release", "plan"), "release plan")
    assert not vocabulary.covers(("release", "plan"), "release plans")
    for body in [c[1] for c in CASES]:
        assert seed_of(body, 3, vocabulary) == seed_of(body, 3, sent)


def test_a_scoped_vocabulary_crosses_with_every_scope_built() -> None:
    names = {"a": ["alpha", "beta gamma"], "b": ["beta", "deploy guide"], "shared": ["release plan", "alpha"]}
    scoped = pickle.loads(pickle.dumps(ScopedVocabulary(names)))
    assert sorted(scoped._scopes) == ["a", "b", "shared"]
    fresh = ScopedVocabulary(names)
    for scope in [*names, "c"]:  # "c": a scope without a name of its own, built on demand
        assert scoped.for_scope(scope).names == fresh.for_scope(scope).names
        assert index_fields(scoped.for_scope(scope).index) == index_fields(fresh.for_scope(scope).index)


def test_a_hostile_note_is_not_seeded() -> None:
    assert seed_of("beta " * (SEED_MAX + 1), 1, Vocabulary(NAMES)) is None


def test_links_are_asked_only_for_a_note_with_a_match() -> None:
    asked: list[int] = []

    def linked() -> frozenset[str]:
        asked.append(1)
        return frozenset()

    vocabulary = Vocabulary(NAMES)
    for body in ("nothing here", "see [[beta]]", "`beta`"):
        seed = seed_of(body, 1, vocabulary)
        assert seed is not None
        assert mentions_from_seed(seed, vocabulary, reach([3]), source_id=SOURCE, linked=linked) == []
    assert asked == []


def test_seeded_equals_reference_on_benchmark_notes(tmp_path: Path) -> None:
    generate(tmp_path / "ws", 300)
    notes = sorted((tmp_path / "ws" / "memory").rglob("*.md"))
    vocabulary = Vocabulary(p.stem for p in notes)
    for scope in sorted({p.parent.name for p in notes})[:3]:
        names = NameIndex([(p.stem, MentionTarget(str(p), p.stem, 0 if p.parent.name == scope else 1))
                           for p in notes if p.parent.name in (scope, "shared")])
        for path in notes:
            if path.parent.name != scope:
                continue
            body = path.read_text(encoding="utf-8")
            seed = seed_of(body, 1, vocabulary)
            assert seed is not None
            got = mentions_from_seed(seed, vocabulary, names, source_id=str(path), linked=frozenset)
            assert got == find_mentions(body, 1, names, source_id=str(path)), path


#: Bodies whose candidates the twin leaves undecided (ASK: links, HTML, references, code) among
#: prose ones, over several lines: a seed counts lines and columns as it meets its candidates,
#: then turns back those `_prose_only` does not read as prose.
ASKED_BODIES = [
    "alpha then [beta](u) and [gamma beta](v) alpha\n",
    "alpha\n\n[x]: beta\nbeta gamma [beta]\n\n[beta]: /u\n",
    "alpha *[beta* gamma](u)* beta\n",
    "alpha\nbeta <span>gamma</span> deploy\nguide [[alpha]] `beta` alpha\n",
    "x\nalpha\n\nbeta [gamma](u \"beta\") beta\n\nthe deploy guide, gamma.\n",
]


@pytest.mark.parametrize("body", ASKED_BODIES)
def test_undecided_candidates_among_prose_ones(body: str) -> None:
    words = ["alpha", "beta", "gamma", "deploy guide"]
    vocabulary = Vocabulary(words)
    names = NameIndex([(n, MentionTarget(f"memory:s/{n}", n, 0)) for n in words])
    listed = _listed_native(body, vocabulary)
    assert listed is None or any(state == ASK for *_rest, state in listed[1:])  # the path asked
    assert seeded(body, names, vocabulary) == reference(body, names)


def test_a_seed_counts_lines_and_turns_back_what_is_not_prose() -> None:
    seed = seed_of("x\nalpha\n\nbeta [gamma](u) gamma\n", 3, Vocabulary(["alpha", "beta", "gamma"]))
    assert seed == ((2, 5, 0, "alpha", True, 4, 1, "alpha"), (9, 4, 1, "beta", True, 6, 1, "beta"),
                    (15, 5, 2, "gamma", False, 0, 0, ""), (25, 5, 2, "gamma", True, 6, 17, "gamma"))
