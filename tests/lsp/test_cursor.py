"""What completion means at a cursor, and which link is under it. `¦` marks the cursor."""

from __future__ import annotations

import pytest

from brain.lsp.features.cursor import (
    AnchorTyping,
    KeyTyping,
    LinkTyping,
    TypeValueTyping,
    Typing,
    frontmatter_keys,
    frontmatter_lines,
    in_fenced_code,
    link_at,
    split_typed,
    typing_at,
    word_at,
)
from brain.parse.note import parse_note

FM = "---\ndescription: d\ntype: user\n---\n"


def at(text: str) -> Typing | None:
    before, after = text.split("¦")
    lines = (before + after).split("\n")
    line = before.count("\n")
    column = len(before.split("\n")[-1])
    return typing_at(lines, line, column)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [[¦", LinkTyping(0, 6, 6, "", False)),
        ("see [[¦]]", LinkTyping(0, 6, 6, "", True)),
        ("see [[al¦]] more", LinkTyping(0, 6, 8, "al", True)),
        ("see [[al¦pha]]", LinkTyping(0, 6, 11, "al", True)),
        ("see [[al¦pha#Top]]", LinkTyping(0, 6, 11, "al", True)),
        ("see [[al¦ and more", LinkTyping(0, 6, 8, "al", False)),
        ("see [[my no¦te|x]]", LinkTyping(0, 6, 13, "my no", True)),
        ("![[shared/ga¦", LinkTyping(0, 3, 12, "shared/ga", False)),
        ("[[workflow:¦", LinkTyping(0, 2, 11, "workflow:", False)),
        ("😀 [[漢¦", LinkTyping(0, 4, 5, "漢", False)),
        ("[[a]] and [[b¦", LinkTyping(0, 12, 13, "b", False)),
        ("[[alpha#De¦", AnchorTyping(0, 8, 10, "alpha", "De", False)),
        ("[[alpha#¦]]", AnchorTyping(0, 8, 8, "alpha", "", True)),
        ("[[#¦", AnchorTyping(0, 3, 3, "", "", False)),
        ("[[alpha|lab¦", None),  # in a label
        ("[[a]] done¦", None),  # after a closed link
        ("plain text¦", None),
        ("`[[co¦`", None),  # inline code
        ("```\n[[co¦\n```", None),  # fenced code
        ("~~~\n[[co¦", None),
        (FM + "[[x¦", LinkTyping(4, 2, 3, "x", False)),
        (FM[:-4] + "ty¦\n---\n", KeyTyping(3, 0, 2, "ty")),
        ("---\n¦\n---\n", KeyTyping(1, 0, 0, "")),
        ("---\ntype: fe¦\n---\n", TypeValueTyping(1, 6, 8, "fe")),
        ("---\ntype:¦\n---\n", TypeValueTyping(1, 5, 5, "")),
        ("---\ntype: proj¦ect\n---\n", TypeValueTyping(1, 6, 13, "proj")),
        ("---\ndescription: [[x¦\n---\n", None),  # no links in frontmatter
        ("---\nty¦pe: user\n---\n", None),  # the key is complete
        ("---\ndescription: a\n¦", KeyTyping(2, 0, 0, "")),  # frontmatter still open
    ],
)
def test_typing_at(text: str, expected: Typing | None) -> None:
    assert at(text) == expected


def test_typing_at_outside_the_text() -> None:
    assert typing_at(["[["], 5, 0) is None


@pytest.mark.parametrize(
    ("typed", "parts"),
    [
        ("", ("", None, "")),
        ("gam", ("", None, "gam")),
        ("shared/ga", ("", "shared", "ga")),
        ("workflow:ni", ("workflow:", None, "ni")),
        ("Workflow: ni", ("Workflow:", None, "ni")),
        ("memory:bot/al", ("memory:", "bot", "al")),
        ("work-item:a/b", ("work-item:", None, "a/b")),
    ],
)
def test_split_typed(typed: str, parts: tuple[str, str | None, str]) -> None:
    assert split_typed(typed) == parts


def test_link_at_covers_the_link_text_including_its_ends() -> None:
    note = parse_note("---\ntype: user\n---\nab [[x]] cd [[y|z]]\n")
    assert link_at(note.links, 3, 2) is None
    assert link_at(note.links, 3, 3) is not None
    assert link_at(note.links, 3, 3).target == "x"
    assert link_at(note.links, 3, 8) is not None  # just after `]]`
    assert link_at(note.links, 3, 14).target == "y"  # type: ignore[union-attr]
    assert link_at(note.links, 2, 5) is None


@pytest.mark.parametrize(
    ("lines", "line", "inside"),
    [
        (["```", "code", "```", "text"], 1, True),
        (["```", "code", "```", "text"], 3, False),
        (["````", "```", "still code", "````"], 2, True),
        (["~~~", "```", "x"], 2, True),
        (["text"], 0, False),
    ],
)
def test_in_fenced_code(lines: list[str], line: int, inside: bool) -> None:
    assert in_fenced_code(lines, line) is inside


def test_frontmatter_lines_and_keys() -> None:
    lines = (FM + "body\n").split("\n")
    assert frontmatter_lines(lines) == (1, 2)
    assert frontmatter_keys(lines) == {"description", "type"}
    assert frontmatter_lines(["# title"]) is None


@pytest.mark.parametrize(
    ("text", "column", "span"),
    [("hello world", 2, (0, 5)), ("hello world", 5, (0, 5)), ("a-b_c d", 1, (0, 5)), ("  ", 1, (1, 1))],
)
def test_word_at(text: str, column: int, span: tuple[int, int]) -> None:
    assert word_at(text, column) == span
