"""Math holds no links; a link that names nothing is an `empty-link` warning. Tables of both."""

from __future__ import annotations

import pytest

from brain.model import Severity
from brain.parse.note import parse_note
from brain.parse.spans.math import math_ranges

# (body, the links brain finds)
MATH_TABLE = [
    ("inline $[[x]]$ math", []),
    ("inline $a + [[x]]$ math, then [[y]]", ["[[y]]"]),
    ("$$\n[[x]]\n$$\n\n[[y]]", ["[[y]]"]),
    ("$$ [[x]] $$ and [[y]]", ["[[y]]"]),
    ("display\n\n$$\n\\begin{x}\n\n[[x]]\n\\end{x}\n$$\n", []),  # display math spans blank lines
    # `$` that opens no math: followed by a space, a closer before a space or a digit
    ("costs $20 and [[y]] $30", ["[[y]]"]),
    ("a $ [[y]] $ b", ["[[y]]"]),
    ("a $x [[y]] $5 b", ["[[y]]"]),
    ("escaped \\$[[y]]$ text", ["[[y]]"]),
    ("paragraph $one\n\n[[y]] two$", ["[[y]]"]),  # inline math stays in its paragraph
    # code wins over math, read left to right
    ("`$` [[y]] `$`", ["[[y]]"]),
    ("```\n$x\n```\n[[y]] $z$", ["[[y]]"]),
    ("unclosed $$ [[y]]", ["[[y]]"]),
    ("[[y]] $x$", ["[[y]]"]),
]


@pytest.mark.parametrize(("body", "links"), MATH_TABLE)
def test_math_holds_no_links(body: str, links: list[str]) -> None:
    assert [w.raw for w in parse_note(body).links] == links


def test_math_ranges_are_exact() -> None:
    body = "a $x$ b $$y$$ `$z$` c"
    assert [body[s:e] for s, e in math_ranges(body)] == ["$x$", "$$y$$"]


def test_many_dollars_without_a_closer_scan_once() -> None:
    # every `$` opens and none closes: each later opener knows the search already failed
    body = "$a " * 20_000
    assert math_ranges(body) == []


# (body, (raw, line, column) of each empty-link warning)
EMPTY_TABLE = [
    ("see [[|label]] here", [("[[|label]]", 1, 5)]),
    ("see [[#]] here", [("[[#]]", 1, 5)]),
    ("see [[]] and [[ ]]", [("[[]]", 1, 5), ("[[ ]]", 1, 14)]),
    ("![[#|x]]", [("![[#|x]]", 1, 1)]),
    ("| a | [[\\|label]] |", [("[[\\|label]]", 1, 7)]),
    # not empty: a target or an anchor
    ("[[x|label]] [[#Top]] [[x#]]", []),
    # not links at all: code, math, escaped
    ("`[[|x]]` and\n\n```\n[[#]]\n```\n", []),
    ("$[[|x]]$", []),
    ("\\[[|x]]", []),
]


@pytest.mark.parametrize(("body", "expected"), EMPTY_TABLE)
def test_empty_links_are_reported(body: str, expected: list[tuple[str, int, int]]) -> None:
    note = parse_note("---\ntype: user\n---\n" + body, "memory/shared/n.md")
    found = [p for p in note.problems if p.code == "empty-link"]
    assert [(p.message.split("`")[1], p.line, p.column) for p in found] == [
        (raw, line + 3, column) for raw, line, column in expected
    ]
    for problem in found:
        assert problem.severity is Severity.WARNING
        assert problem.path == "memory/shared/n.md"
        assert problem.fix
        assert problem.length == len(problem.message.split("`")[1])
    assert not any(link.raw in {raw for raw, *_ in expected} for link in note.links)


@pytest.mark.parametrize(("body", "fix"), [
    ("[[|see this]]", "`[[Note|see this]]`"),
    ("[[#]]", "`[[#Heading]]`"),
    ("[[]]", "`[[Note]]`"),
])
def test_empty_link_fix_says_what_to_write(body: str, fix: str) -> None:
    (problem,) = parse_note(body).problems
    assert problem.fix is not None
    assert fix in problem.fix
