"""Query terms, escaping and snippets: pure functions, tables."""

from __future__ import annotations

import pytest

from brain.index.text import lucene_expression, query_terms, snippet


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("Refund policy", ["refund", "policy"]),
        ("how do we refund a customer?", ["how", "do", "we", "refund", "customer"]),
        ("the and of", ["the", "and", "of"]),  # only stop words: keep them
        ("deploy-checklist", ["deploy", "checklist"]),
        ("snake_case", ["snake", "case"]),
        ("Zoë's café", ["zoë", "s", "café"]),
        ("a a A", ["a"]),
        ('"AND" body:*', ["body"]),
        ("", []),
    ],
)
def test_query_terms(query: str, terms: list[str]) -> None:
    assert query_terms(query) == terms


def test_expressions_quote_every_term() -> None:
    assert lucene_expression(["a:b", "c*"]) == "a\\:b OR c\\*"


@pytest.mark.parametrize(
    ("text", "terms", "expected"),
    [
        ("Refunds go to Priya.", ["priya"], "Refunds go to **Priya**."),
        ("no match here", ["zzz"], "no match here"),
        ("Page a person, never a channel. page", ["page"], "**Page** a person, never a channel. **page**"),
    ],
)
def test_snippet_marks_matched_words(text: str, terms: list[str], expected: str) -> None:
    assert snippet(text, terms) == expected


def test_snippet_is_a_window_around_the_first_match() -> None:
    text = "word " * 200 + "needle " + "tail " * 200
    got = snippet(text, ["needle"], width=80)
    assert "**needle**" in got
    assert got.startswith("…")
    assert got.endswith("…")
    assert len(got) < 100


@pytest.mark.parametrize(
    ("text", "terms", "expected"),
    [
        ("Deploy the deployment; DEPLOY again", ["deploy"], ["deploy"]),
        ("deployment only", ["deploy"], []),  # whole words, never a prefix
        ("snake_case and x2y", ["snake", "case", "x2y", "x"], ["snake", "case", "x2y"]),
        ("Die Straße ist lang", ["strasse"], ["strasse"]),  # case folding, not just lower case
        ("café crème", ["café", "creme"], ["café"]),
        ("a.b-c", ["a", "b", "c", "d"], ["a", "b", "c"]),
        ("", ["a"], []),
        ("text", [], []),
    ],
)
def test_matched_terms_are_whole_words_in_any_case(text: str, terms: list[str], expected: list[str]) -> None:
    from brain.index.text import matched_terms

    assert matched_terms(text, terms) == expected
