"""`NameIndex.of_names` (a seed's vocabulary, no targets built) answers as the NameIndex
whose targets are the names themselves, which seeds used before: the same words, numbers,
names, first words and length, on names that squash alike, fold differently, are too short
or too long, or repeat."""

from __future__ import annotations

from brain.parse.mention_seeds import Vocabulary
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
