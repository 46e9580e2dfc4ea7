"""`NameIndex.of_names` (a seed's vocabulary, no targets built) answers as the NameIndex
whose targets are the names themselves, which seeds used before: the same words, numbers,
names, first words and length, on names that squash alike, fold differently, are too short
or too long, or repeat."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.parse.mention_seeds import ScopedVocabulary, Vocabulary
from brain.parse.mentions import MAX_NAME_WORDS, MentionTarget, NameIndex

NAMES = [
    "deploy-checklist", "Deploy Checklist", "deploy_checklist", "Straße", "strasse", "STRASSE",
    "go", "a-b", "ab", "abc", "x" * 300, " ".join(["w"] * (MAX_NAME_WORDS + 1)),
    " ".join(["w"] * MAX_NAME_WORDS), "İstanbul notes", "naïve plan", "plan", "plan v2", "-- --",
    "c++ tips", "2026 review", "deploy", "deploy checklist old", "deploy-checklist",
]


def shape(index: NameIndex) -> tuple[object, ...]:
    words = [index.words_of(k) for k in range(len(index._words))]
    return (
        len(index), words, [index.names_of(k) for k in range(len(words))],
        {w: index.lengths(w) for w in index.first_words}, index.first_words,
        [index.number(w) for w in words],
    )


def test_of_names_is_the_index_of_names_as_their_own_targets() -> None:
    for names in (NAMES, list(reversed(NAMES)), sorted(set(NAMES)), [], ["go", "ab"]):
        with_targets = NameIndex((n, MentionTarget(n, n, 0)) for n in names)
        alone = NameIndex.of_names(names)
        assert shape(alone) == shape(with_targets), names
        for words in with_targets._words:
            for squashed in with_targets.names_of(with_targets.number(words) or 0):
                assert alone.named(words, squashed)
                assert with_targets.named(words, squashed)


def test_a_vocabulary_uses_it() -> None:
    vocabulary = Vocabulary(NAMES)
    assert shape(vocabulary.index) == shape(NameIndex((n, MentionTarget(n, n, 0)) for n in vocabulary.names))


def names_by_words(index: NameIndex) -> tuple[object, ...]:
    """What an index answers, whatever its numbering: each word tuple's names, and the word
    counts of the names each first word starts."""
    words = [index.words_of(k) for k in range(len(index._words))]
    assert [index.number(w) for w in words] == list(range(len(words)))  # numbers and places agree
    return (len(index), {w: index.names_of(k) for k, w in enumerate(words)},
            {w: index.lengths(w) for w in index.first_words}, index.first_words)


#: Own names and shared names that squash alike with other words (`_` is a word character,
#: `ß` folds to `ss`), repeat across the two, or are left out.
SCOPES = [
    (["deploy-checklist", "plan"], ["deploy_checklist", "plan", "review"]),  # own wins: built whole
    (["deploy_checklist"], ["deploy-checklist", "review"]),  # shared wins: shared kept
    (["Deploy Checklist", "zz"], ["deploy checklist"]),  # alike, same words
    (["strasse", "Straße"], ["STRASSE", "straße plan"]),
    (["go", "x" * 300, "plan v2"], ["plan", "plan v2", "a-b"]),
    (["[[odd]] name", "plan"], ["plan"]),  # a bracket: links not blanked
    ([], ["plan"]),
    (["plan"], []),
    (NAMES[:12], NAMES[8:]),
    (NAMES[8:], NAMES[:12]),
]


def test_an_extended_vocabulary_is_the_vocabulary_of_both() -> None:
    for own, shared in SCOPES:
        base = Vocabulary(shared)
        extended = base.extended(own)
        whole = Vocabulary([*own, *shared])
        assert names_by_words(extended.index) == names_by_words(whole.index), (own, shared)
        assert extended.names == whole.names
        assert extended.blank_links == whole.blank_links
        # the base is not changed by what was added
        assert names_by_words(base.index) == names_by_words(Vocabulary(shared).index)


PIECES = ["deploy", "Deploy", "checklist", "_", "-", " ", "  ", "ß", "ss", "SS", "plan", "go", "[[", "x"]
name_lists = st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join), max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "shared"]), name_lists, max_size=3))
def test_every_scope_is_the_vocabulary_of_its_names_and_the_shared_ones(names: dict[str, list[str]]) -> None:
    scoped = ScopedVocabulary(names)
    sent = pickle.loads(pickle.dumps(scoped))
    for scope in ["a", "b", "shared", "c"]:
        own = names.get(scope, []) if scope != "shared" else []
        whole = Vocabulary([*own, *names.get("shared", [])])
        for built in (scoped.for_scope(scope), sent.for_scope(scope)):
            assert names_by_words(built.index) == names_by_words(whole.index), scope
            assert built.names == whole.names
            assert built.blank_links == whole.blank_links


def test_of_words_numbers_word_tuples_in_the_order_first_met() -> None:
    """`of_words` is the empty index extended: a word tuple's number is its place among the
    tuples in the order first met, its names every squashed name of those words, and a first
    word's lengths longest first; extending it numbers new tuples after these."""
    # Squashed names as `squash` gives them: `b, a` and `b.a` have the words of `b a`.
    index = NameIndex.of_words({"b a": ("b", "a"), "a c": ("a", "c"), "b, a": ("b", "a"), "c d": ("c_d",),
                                "b.a": ("b", "a"), "b a c": ("b", "a", "c")})
    assert [index.words_of(k) for k in range(4)] == [("b", "a"), ("a", "c"), ("c_d",), ("b", "a", "c")]
    assert [index.names_of(k) for k in range(4)] == [{"b a", "b, a", "b.a"}, {"a c"}, {"c d"}, {"b a c"}]
    assert {w: index.lengths(w) for w in index.first_words} == {"b": [3, 2], "a": [2], "c_d": [1]}
    assert len(index) == 6
    assert index.number(("a", "c")) == 1
    assert index.number(("c",)) is None
    more = index.extended({"c": ("c",), "b; a": ("b", "a")})
    assert [more.number(w) for w in [("b", "a"), ("c",)]] == [0, 4]
    assert more.names_of(0) == {"b a", "b, a", "b.a", "b; a"}
    assert index.names_of(0) == {"b a", "b, a", "b.a"}
    assert more.lengths("c") == [1]
    assert index.lengths("c") is None
    assert len(more) == 8
    assert NameIndex.of_words({}).first_words == frozenset()
    assert len(NameIndex.of_words({})) == 0
