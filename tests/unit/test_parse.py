"""The parser, rule by rule (design.md sections 2 and 3), as tables of source -> result."""

from __future__ import annotations

import pytest

from brain.parse.body import split_link
from brain.parse.note import decode, parse_note

LinkRow = tuple[str, str, str | None, str | None, bool, int, int]


def links(text: str) -> list[LinkRow]:
    """(raw, target, anchor, label, embed, line, column) of every link parse_note finds."""
    return [
        (w.raw, w.target, w.anchor, w.label, w.embed, w.line, w.column)
        for w in parse_note(text, "memory/shared/n.md").links
    ]


def raws(text: str) -> list[str]:
    return [w.raw for w in parse_note(text).links]


# ------------------------------------------------------------------------------ syntax

SYNTAX = [
    ("[[target]]", [("[[target]]", "target", None, None, False, 1, 1)]),
    ("see [[target|the label]]", [("[[target|the label]]", "target", None, "the label", False, 1, 5)]),
    ("[[target#Heading]]", [("[[target#Heading]]", "target", "Heading", None, False, 1, 1)]),
    ("[[target#Heading|label]]", [("[[target#Heading|label]]", "target", "Heading", "label", False, 1, 1)]),
    ("![[target]]", [("![[target]]", "target", None, None, True, 1, 1)]),
    ("x ![[pic.png|200]]", [("![[pic.png|200]]", "pic.png", None, "200", True, 1, 3)]),
    ("![[t#H|l]]", [("![[t#H|l]]", "t", "H", "l", True, 1, 1)]),
    ("[[#Own heading]]", [("[[#Own heading]]", "", "Own heading", None, False, 1, 1)]),
    ("[[ two  words | a b ]]", [("[[ two  words | a b ]]", "two  words", None, "a b", False, 1, 1)]),
    ("[[t|a|b]]", [("[[t|a|b]]", "t", None, "a|b", False, 1, 1)]),
    ("[[t#]]", [("[[t#]]", "t", None, None, False, 1, 1)]),
    ("[[t|]]", [("[[t|]]", "t", None, None, False, 1, 1)]),
    ("[[a]][[b]]", [("[[a]]", "a", None, None, False, 1, 1), ("[[b]]", "b", None, None, False, 1, 6)]),
    ("[[[x]]]", [("[[x]]", "x", None, None, False, 1, 2)]),
    ("[[workflow:deploy]]", [("[[workflow:deploy]]", "workflow:deploy", None, None, False, 1, 1)]),
    ("[[shared/style.md]]", [("[[shared/style.md]]", "shared/style.md", None, None, False, 1, 1)]),
    ("**[[x]]** _[[y]]_", [
        ("[[x]]", "x", None, None, False, 1, 3), ("[[y]]", "y", None, None, False, 1, 12),
    ]),
    ("* [[x]]\n* [[y]]", [("[[x]]", "x", None, None, False, 1, 3), ("[[y]]", "y", None, None, False, 2, 3)]),
    ("> quoted [[x]]", [("[[x]]", "x", None, None, False, 1, 10)]),
    # a table cell escapes the pipe; the label is still a label
    ("| a | [[x\\|l]] |\n|---|---|\n| [[y]] | b |", [
        ("[[x\\|l]]", "x", None, "l", False, 1, 7), ("[[y]]", "y", None, None, False, 3, 3),
    ]),
]


@pytest.mark.parametrize(("text", "expected"), SYNTAX, ids=[row[0] for row in SYNTAX])
def test_wikilink_syntax(text: str, expected: list[LinkRow]) -> None:
    assert links(text) == expected


NOT_LINKS = [
    "[[ ]]",
    "[[]]",
    "[[#]]",
    "[[|label]]",
    "[[x\n]]",
    "[x]]",
    "[[x]",
    "[ [x]]",
    "\\[[escaped]]",
]


@pytest.mark.parametrize("text", NOT_LINKS)
def test_not_wikilinks(text: str) -> None:
    assert raws(text) == []


def test_an_escaped_backslash_does_not_escape_the_link() -> None:
    assert links("\\\\[[x]]") == [("[[x]]", "x", None, None, False, 1, 3)]


def test_split_link() -> None:
    assert split_link("t#h|l") == ("t", "h", "l")
    assert split_link(" t ") == ("t", None, None)
    assert split_link("t\\|l") == ("t", None, "l")


# ------------------------------------------------------------------------------ code is never a link

CODE = [
    ("inline code", "`[[x]]` [[y]]"),
    ("double backticks", "``a [[x]] ` b`` [[y]]"),
    ("backtick fence", "```\n[[x]]\n```\n[[y]]"),
    ("backtick fence with info", "```markdown\n[[x]]\n```\n[[y]]"),
    ("tilde fence", "~~~\n[[x]]\n~~~\n[[y]]"),
    ("longer fence holds a shorter one", "````\n```\n[[x]]\n```\n````\n[[y]]"),
    ("tilde fence is not closed by backticks", "~~~\n[[x]]\n```\n[[x]]\n~~~\n[[y]]"),
    ("indented fence", "  ```\n  [[x]]\n  ```\n[[y]]"),
    ("indented code", "para\n\n    [[x]]\n\n[[y]]"),
    ("tab-indented code", "\t[[x]]\n\n[[y]]"),
    ("fence in a list item", "- item\n  ```\n  [[x]]\n  ```\n- [[y]]"),
    ("fence in an ordered list item", "1) ```\n   [[x]]\n   ```\n\n[[y]]"),
    ("fence in a nested list", "- a\n  - b\n    ~~~\n    [[x]]\n    ~~~\n- [[y]]"),
    ("indented code in a list item", "- a\n\n      [[x]]\n\n- b [[y]]"),
    ("fence in a blockquote", "> ```\n> [[x]]\n> ```\n> [[y]]"),
    ("indented code in a blockquote", "> quote\n>\n>     [[x]]\n\n[[y]]"),
    ("fence in a list in a blockquote", "> - ```\n>   [[x]]\n>   ```\n\n[[y]]"),
    ("html block", "<div>\n[[x]]\n</div>\n\n[[y]]"),
    ("html comment over blank lines", "<!--\n[[x]]\n\n[[x]]\n-->\n[[y]]"),
    ("pre block over blank lines", "<pre>\n[[x]]\n\n[[x]]\n</pre>\n[[y]]"),
    ("inline html attribute", '<a href="[[x]]">t</a> [[y]]'),
    ("link destination", "[t](https://example.org/[[x]]) [[y]]"),
    ("reference definition", "[ref]: https://example.org/[[x]]\n\n[[y]]"),
    ("autolink", "<https://example.org/[[x]]> [[y]]"),
    ("an unclosed fence runs to the end", "[[y]]\n```\n[[x]]\n\ntext [[x]]"),
]


@pytest.mark.parametrize(("case", "text"), CODE, ids=[row[0] for row in CODE])
def test_code_and_html_never_hold_links(case: str, text: str) -> None:
    assert [t for (_, t, *_rest) in links(text)] == ["y"], case


def test_a_link_after_code_on_the_same_line_keeps_its_column() -> None:
    assert links("`a` [[x]] `b`") == [("[[x]]", "x", None, None, False, 1, 5)]


def test_indentation_that_is_not_code() -> None:
    # a lazy continuation line, and a tab inside a list item, are paragraph text
    assert raws("para\n    [[y]]") == ["[[y]]"]
    assert links("- item\n\n\t[[x]]") == [("[[x]]", "x", None, None, False, 3, 2)]


def test_markdown_inside_an_html_block_after_a_blank_line_is_markdown() -> None:
    # CommonMark: `<details>` ends at the blank line; the paragraph inside is markdown
    assert raws("<details>\n\n[[x]]\n\n</details>") == ["[[x]]"]


# ------------------------------------------------------------------------------ positions

POSITIONS = [
    ("emoji before", "😀 [[x]]", 1, 3),
    ("two emoji (astral, one code point each)", "😀😀[[x]]", 1, 3),
    ("CJK before", "中文 [[x]]", 1, 4),
    ("combining mark before", "e\u0301 [[x]]", 1, 4),
    ("ZWJ family before", "👨\u200d👩\u200d👧 [[x]]", 1, 7),
    ("after a tab", "a\t[[x]]", 1, 3),
    ("third line", "a\n\nb [[x]]", 3, 3),
    ("embed points at !", "中 ![[x]]", 1, 3),
    ("after frontmatter", "---\ndescription: d\n---\n\n[[x]]", 5, 1),
    ("after frontmatter with CRLF", "---\r\ndescription: d\r\n---\r\nab [[x]]\r\n", 4, 4),
    ("after a BOM", "\ufeff[[x]]", 1, 1),
    ("CRLF lines", "a\r\nb\r\n  [[x]]", 3, 3),
    ("bare CR lines", "a\rb\r[[x]]", 3, 1),
]


@pytest.mark.parametrize(("case", "text", "line", "column"), POSITIONS, ids=[r[0] for r in POSITIONS])
def test_positions_are_1_based_lines_and_code_point_columns(
    case: str, text: str, line: int, column: int
) -> None:
    (link,) = parse_note(text).links
    assert (link.line, link.column) == (line, column), case


def test_many_links_on_many_lines_after_code() -> None:
    text = "# T\n\n```\n[[no]]\n```\n\n- a [[one]] b [[two]]\n- 𝔘 [[three|3]]\n"
    assert [(w.target, w.line, w.column) for w in parse_note(text).links] == [
        ("one", 7, 5), ("two", 7, 15), ("three", 8, 5),
    ]


# ------------------------------------------------------------------------------ headings

HEADINGS = [
    ("# One", [("One", 1, 1)]),
    ("## Two ##", [("Two", 2, 1)]),
    ("###### Six", [("Six", 6, 1)]),
    ("####### seven", []),
    ("#hashtag", []),
    ("#\tTab", [("Tab", 1, 1)]),
    ("   # Indented three", [("Indented three", 1, 1)]),
    ("    # four is code", []),
    ("Setext one\n===", [("Setext one", 1, 1)]),
    ("Setext two\n---", [("Setext two", 2, 1)]),
    ("```\n# not a heading\n```\n# Real", [("Real", 1, 4)]),
    ("# **Bold** and `code`", [("Bold and code", 1, 1)]),
    ("# See [[x]]", [("See [[x]]", 1, 1)]),
    ("- # In a list", [("In a list", 1, 1)]),
    ("> ## In a quote", [("In a quote", 2, 1)]),
]


@pytest.mark.parametrize(("text", "expected"), HEADINGS, ids=[r[0] for r in HEADINGS])
def test_headings(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert [(h.text, h.level, h.line) for h in parse_note(text).headings] == expected


def test_heading_lines_count_the_frontmatter() -> None:
    note = parse_note("---\ntype: user\n---\n# A\ntext\n## B\n")
    assert [(h.text, h.line) for h in note.headings] == [("A", 4), ("B", 6)]


# ------------------------------------------------------------------------------ frontmatter


def test_frontmatter_description_type_and_properties() -> None:
    note = parse_note(
        "---\ndescription: House style\ntype: feedback\ncreated: 2024-01-02\n"
        "when: 2024-01-02T03:04:05\ntags: [a, b]\nn: 3\nnested: {a: 1}\n---\nbody [[x]]\n"
    )
    assert (note.description, note.type, note.problems) == ("House style", "feedback", ())
    assert dict(note.properties) == {
        "created": "2024-01-02", "when": "2024-01-02T03:04:05", "tags": ["a", "b"], "n": 3,
        "nested": {"a": 1},
    }
    assert note.has_frontmatter
    assert note.body == "body [[x]]\n"
    assert note.body_line == 10


@pytest.mark.parametrize("memory_type", ["user", "feedback", "project", "reference"])
def test_the_four_types(memory_type: str) -> None:
    note = parse_note(f"---\ntype: {memory_type}\n---\nx")
    assert (note.type, note.problems) == (memory_type, ())


DESCRIPTIONS = [
    ("no frontmatter", "First line\nsecond", "First line"),
    ("heading marks dropped", "\n\n## The title ##\nbody", "The title"),
    ("a hashtag is not a heading", "#tag first\nbody", "#tag first"),
    ("an empty heading is skipped", "#\n### Real\n", "Real"),
    ("seven hashes are text", "####### seven", "####### seven"),
    ("empty frontmatter description falls back", "---\ndescription: ''\n---\n\n# From body", "From body"),
    ("folded onto one line", "---\ndescription: |\n  two\n  lines\n---\nx", "two lines"),
    ("whitespace collapsed", "---\ndescription: '  a   b  '\n---\nx", "a b"),
    ("empty file", "", ""),
    ("blank file", "  \n\n\t\n", ""),
]


@pytest.mark.parametrize(("case", "text", "description"), DESCRIPTIONS, ids=[r[0] for r in DESCRIPTIONS])
def test_description(case: str, text: str, description: str) -> None:
    note = parse_note(text)
    assert note.description == description, case
    assert note.problems == ()


# (text, line, column, words in the message)
INVALID = [
    ("type outside the four", "---\ndescription: d\ntype: bogus\n---\nx", 3, 1, "bogus"),
    ("type in the wrong case", "---\ntype: User\n---\nx", 2, 1, "did you mean `user`"),
    ("type not a string", "---\ntype: 3\n---\nx", 2, 1, "3"),
    ("description a list", "---\ndescription: [a, b]\n---\n# Title", 2, 1, "one line"),
    ("YAML syntax: colon in value", "---\ndescription: a: b\n---\nx", 2, 15, "not valid YAML"),
    ("YAML syntax: bad indent", "---\ntitle: x\n  bad: indent\n---\nx", 3, 6, "not valid YAML"),
    ("YAML unsafe tag", "---\nx: !!python/object:os.system ls\n---\nx", 2, 4, "not valid YAML"),
    ("not a mapping", "---\n- a\n- b\n---\nx", 2, 1, "mapping"),
    ("never closed", "---\ndescription: d\n\nbody", 1, 1, "never closed"),
    ("quoted key", "---\n'description': d\n\"type\": x\n---\nbody", 3, 1, "type `x`"),
]


@pytest.mark.parametrize(
    ("case", "text", "line", "column", "words"), INVALID, ids=[r[0] for r in INVALID]
)
def test_invalid_frontmatter_names_the_line(
    case: str, text: str, line: int, column: int, words: str
) -> None:
    note = parse_note(text, "memory/bot/n.md")
    (problem,) = note.problems
    assert (problem.code, problem.severity.value, problem.path) == (
        "invalid-frontmatter", "error", "memory/bot/n.md",
    )
    assert (problem.line, problem.column) == (line, column), case
    assert words in problem.message
    assert problem.fix


def test_a_problem_without_a_known_line_has_no_column() -> None:
    (problem,) = parse_note("---\n{type: x}\n---\nbody").problems
    assert (problem.code, problem.line, problem.column) == ("invalid-frontmatter", None, None)


def test_invalid_frontmatter_keeps_the_body_and_a_fallback_description() -> None:
    note = parse_note("---\ndescription: a: b\ntype: user\n---\n\n## Fallback\nsee [[x]]\n")
    assert note.description == "Fallback"
    assert note.type is None
    assert [w.target for w in note.links] == ["x"]
    assert [(w.line, w.column) for w in note.links] == [(7, 5)]


def test_other_keys_stay_when_the_type_is_wrong() -> None:
    note = parse_note("---\ntype: nope\nowner: ann\n---\nx")
    assert dict(note.properties) == {"owner": "ann"}


def test_empty_frontmatter_block() -> None:
    note = parse_note("---\n---\nbody [[x]]")
    assert (note.has_frontmatter, note.description, note.problems) == (True, "body [[x]]", ())
    assert [(w.line, w.column) for w in note.links] == [(3, 6)]


def test_a_thematic_break_later_is_not_frontmatter() -> None:
    note = parse_note("text\n---\nmore")
    assert (note.has_frontmatter, note.problems) == (False, ())


# ------------------------------------------------------------------------------ bytes


def test_decode_strips_a_bom_and_normalizes_line_ends() -> None:
    assert decode(b"\xef\xbb\xbfa\r\nb\rc\n", "m.md") == ("a\nb\nc\n", [])


def test_decode_empty() -> None:
    assert decode(b"", "m.md") == ("", [])


def test_decode_non_utf8_gives_a_problem_with_its_position() -> None:
    text, problems = decode(b"ok\nab\xc3(\n[[y]]", "memory/bot/n.md")
    assert text == "ok\nab\ufffd(\n[[y]]"
    (problem,) = problems
    assert (problem.code, problem.severity.value, problem.line, problem.column) == (
        "invalid-encoding", "error", 2, 3,
    )
    assert "0xc3" in problem.message


def test_decode_binary_gives_a_problem_and_no_text() -> None:
    text, problems = decode(b"PNG\n\x00\x01\x02", "memory/bot/n.md")
    assert text == ""
    (problem,) = problems
    assert (problem.code, problem.line) == ("invalid-encoding", 2)
    assert "binary" in problem.message


@pytest.mark.parametrize(
    "raw",
    [b"", b"\xef\xbb\xbf", b"\xff\xfe\x00[\x00[", b"\r\n\r\n", b"---", b"---\r\n---\r\n", b"\x00" * 10,
     b"---\n\xff: \xfe\n---\n[[x]]"],
)
def test_odd_bytes_parse_without_raising(raw: bytes) -> None:
    text, _ = decode(raw, "m.md")
    note = parse_note(text, "m.md")
    assert isinstance(note.description, str)
