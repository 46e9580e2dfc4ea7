"""A note's nesting budget (brain/parse/note_budget.py `depth_of`) finds what the plain
reading of its rule finds: the first line whose quote and list markers, and every two columns
of indentation, nest it past the budget. `depth_of` searches for a line break and a prefix (a
search that starts at a literal), the reference below tries every line start."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from brain.budgets import NoteBudget
from brain.parse.note_budget import _MARKER_RE, _PREFIX_CHARS, depth_of


def reference(body: str, budget: NoteBudget) -> tuple[int, int] | None:
    wide = re.compile(rf"^{_PREFIX_CHARS}{{{budget.max_depth},}}", re.MULTILINE)
    for found in wide.finditer(body):
        prefix = found.group()
        indent = len(prefix) - len(prefix.lstrip(" \t"))
        depth = len(_MARKER_RE.findall(prefix)) + indent // 2
        if depth > budget.max_depth:
            return body.count("\n", 0, found.start()), depth
    return None


@settings(max_examples=600, deadline=None)
@given(body=st.text(alphabet=" \t>*+-1.)\n\rab", max_size=120), max_depth=st.integers(1, 6))
@example(body="> > > > x", max_depth=3)  # the first line
@example(body="a\n\n- - - - -  x\n", max_depth=3)  # past an empty line
@example(body="ok\n        deep", max_depth=3)  # indentation alone, on the last line
@example(body="1. 2. 3. 4. x\r\n> > > > y", max_depth=3)
def test_depth_of_finds_the_line_a_reading_of_every_line_finds(body: str, max_depth: int) -> None:
    budget = NoteBudget(1 << 20, 5000, max_depth)
    assert depth_of(body, budget) == reference(body, budget)


def test_a_deep_line_is_found_at_its_line() -> None:
    budget = NoteBudget(1 << 20, 5000, 2)
    assert depth_of("top\n- fine\n> > > too deep\n", budget) == (2, 3)
    assert depth_of("> > > first\n", budget) == (0, 3)
    assert depth_of("- a\n  - b\n", budget) is None
