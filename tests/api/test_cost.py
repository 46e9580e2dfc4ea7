"""Measuring documents with fragments expanded: exact figures, in time linear in the text."""

from __future__ import annotations

import pytest
from graphql import parse

from brain.api.graphql.limits.cost import (
    DocumentLimits,
    Measure,
    document_errors,
    measure_operations,
    uses_introspection,
)


def fan_out(levels: int) -> str:
    fragments = [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    return "\n".join(["query { ...F0 }", *fragments, f"fragment F{levels} on Query {{ __typename }}"])


@pytest.mark.parametrize(("document", "expected"), [
    ("{ __typename }", [("", Measure(1, 0, 1))]),
    ("query Q { a: stats { agents memories } }", [("Q", Measure(3, 1, 2))]),
    ("{ ...A ...A } fragment A on Query { x: stats { agents } }", [("", Measure(4, 2, 2))]),
    ("{ ... on Query { stats { agents } } }", [("", Measure(2, 0, 2))]),
    (fan_out(10), [("", Measure(1024, 0, 1))]),
    ("{ ...A } fragment A on Query { ...B stats } fragment B on Query { ...A }", [("", Measure(1, 0, 1))]),
    ("{ ...Missing __typename }", [("", Measure(1, 0, 1))]),
    ("{ __type(name: \"X\") { ofType { ofType { ofType { name } } } } }", [("", Measure(5, 0, 2))]),
    ("query Q { a } query Q { b { c } }", [("Q", Measure(1, 0, 1)), ("Q", Measure(2, 0, 2))]),
])
def test_measures(document: str, expected: list[tuple[str, Measure]]) -> None:
    assert measure_operations(parse(document)) == expected


def test_a_fan_out_of_two_to_the_thousand_is_measured_exactly_and_at_once() -> None:
    ((_, measure),) = measure_operations(parse(fan_out(1000)))
    assert measure.fields == 2**1000
    (error,) = document_errors(parse(fan_out(1000)), DocumentLimits(300, 30, 10, 20, 2000, 100))
    assert "selects about 10^301 fields once its fragments are expanded; the limit is 300" in error.message


@pytest.mark.parametrize(("document", "introspects"), [
    ("{ __typename }", False),
    ("{ __schema { types { name } } }", True),
    ("{ ...A } fragment A on Query { __type(name: \"Query\") { name } }", True),
])
def test_introspection_is_found_in_fragments_too(document: str, introspects: bool) -> None:
    assert uses_introspection(parse(document)) is introspects
