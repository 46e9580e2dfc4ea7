"""The native body scanner (native/src/body.rs, through brain.parse.body.scan_body) gives exactly
the headings and links of the Python reading, its reference: on random bodies built from the
pieces each of its paths reasons about, on the benchmark's notes and the examples, and on a
table of the cases it declines or hands back to mistune."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings

from bench.workload import generate
from brain.model import Heading, WikiLink
from brain.parse import body as parse
from brain.parse import note
from brain.parse.native import native
from brain.parse.note import decode, parse_note, split_frontmatter
from tests.batches import batched, examples_for, for_each, joined_texts

pytestmark = pytest.mark.skipif(native is None, reason="the native scanner is not built (cargo)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
Scan = tuple[tuple[Heading, ...], tuple[WikiLink, ...]]


def python_scan(body: str, body_line: int = 1) -> Scan:
    """scan_body with the native scanner off: the reference."""
    saved, parse.native = parse.native, None
    try:
        return parse.scan_body(body, body_line)
    finally:
        parse.native = saved


def native_scan(body: str, body_line: int = 1) -> Scan:
    return parse.scan_body(body, body_line)


PIECES = [
    "a", "x", " ", "  ", "    ", "\t", "\n", "\n\n", "!", "[", "[[", "]]", "]", "|", "\\|", "#", "^",
    "[[a]]", "[[b|B]]", "![[c#H]]", "[[#H]]", "[[ ]]", "[[|x]]", "\\[[e]]", "\\\\[[f]]",
    "# ", "## ", "###### ", "####### ", " # ", "    # ", "- # ", "> ## ", "1. # ", "1) ## ", "123456789. # ",
    "1234567890. # ", "# a #", "# a ##  ", "## #", "#a", "*", "_", "**b**", "`", "``", "```", "~~~",
    "```js\n", "<", "<b>", "](", "[r]: u", "=", "==", "-", "---", "***", "- - -", "\n---", "\n===", "\n-",
    "é", "東京", "١", "１", "\u00a0", "\u3000", "\u2028", "İ", "🚀",
    # math (brain/parse/spans/math.py): spans, blocks, escapes, and code that holds a `$`
    "$", "$$", "x$y", "$x$", "$[[m]]$", "$ [[n]] $", "$$[[o]]$$", "\\$", "$1", "$x$2", "$x$١", "\n> \n",
    "`$`", "``$``", "`` ` ``", "\n~~~\n", "\n```\n",
    # code: fenced blocks at a line's start, code spans on one line or across lines, emphasis
    "\n```\n[[f]]\n# g\n```\n", "\n~~~~ [[h]]\n~~~~\n", "\n```py\n", "`[[i]]`", "``[[j]]``", "`a",
    "b`", "*`", "`*", "_`", "`_`", "[[`k`]]", "[[l `]]`", "\n    x", "- `m` [[n]]",
    # block structure around them: lists that may or may not interrupt a paragraph, quotes
    "\n2. ", "\n99) ", "\n1. ", "\n  - ", "\n> - ", "\n> ", "\n***\n", "\n - # ", "\n  ",
    # what real memory holds beside code (issue 43): table rows, snake_case names, escaped
    # pipes, a line that opens with a code span or a quote, `<` in a fenced block or inline
    "\n| ", " | ", "a_b", "[[a_b]]", "_b", "b_", "[[c\\|d]]", "\n`e` ", "\n(", '\n"', "<x>",
    "\n<div>\n", "\n```sh\n$ cmd <arg> | [[p]]\n```\n", "\n\n", "`q_r`",
    # markdown links: a wikilink in a destination or a title is none
    "[t](u)", "](", "(", ")", "[t](u [[v]])", "[t]([[w]])", "[[x]](y)", '[t](u "s [[z]]")',
    "[t](a(b)[[c]])", "[t](a(b)c)", "[t](\n",
]
bodies_drawn = joined_texts(PIECES, 40)


def _same_scan(text: str) -> None:
    # The body's first line number from the text: 1-5, as an integer drawn beside it was.
    body_line = 1 + len(text) % 5
    assert native_scan(text, body_line) == python_scan(text, body_line)


@batched
@settings(max_examples=examples_for(4000), deadline=None)
@given(bodies_drawn)
@example(["# a\n\n[[b]]\n\n```\n[[c]]\n```\n\n[[d]] ## e", "x\n---\n\n[[a]]\n\ny\n\n- [[z]]"])
@example(["- # 1\n\n 1١. # x\n"])  # an Arabic-Indic digit where a list marker may be: declined
@example(["a\n\n\u00a0b [[x]]\n\n[[é]] `c`", "$a [[x]] b$ [[y]] $$\n[[z]]\n$$ `$` [[w]] $5 and $6"])
@example(["```\n$\n```\n[[a]] $b$ ``x`` $[[c]]$"])
@example(["a\n123456789. # a\n`_`"])  # mistune: no heading after a list's number beside a span
@example(["a\n99. # a\nx"])  # but one without the span
def test_the_native_scan_equals_the_python_reading(texts: list[str]) -> None:
    for_each(texts, _same_scan)


@pytest.fixture(scope="module")
def bodies(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("workload")
    generate(root, 600)
    paths = sorted(root.rglob("*.md")) + sorted(EXAMPLES.rglob("*.md"))
    return [split_frontmatter(decode(p.read_bytes(), str(p))[0], "x.md", [])[1] for p in paths]


def test_the_native_scan_equals_the_python_reading_on_the_corpus(bodies: list[str]) -> None:
    read_here = 0
    for text in bodies:
        scanned = native.scan_body(text) if native is not None else None
        read_here += scanned is not None
        assert native_scan(text, 4) == python_scan(text, 4)
    assert read_here > 0.9 * len(bodies)  # the corpus is read natively, not declined


@pytest.mark.parametrize(("text", "declined", "left"), [
    ("plain [[a]] and # not a heading", False, 0),
    ("$x$ [[a]] $[[b]]$", False, 0),  # the link in math is no link
    ("$x$١ [[a]]", True, 0),  # maybe Python's \\d after a closing `$`
    ("1١. # heading", True, 0),  # maybe Python's \\d
    ("[[a]] `code [[b]]`", False, 0),  # a code span on its line: its link is no link
    ("```\n[[a]]\n# b\n```\n[[c]]", False, 0),  # a fenced block at a line's start
    ("[[a]] `open\nclose [[b]]`", False, 1),  # a span across lines: mistune reads the chunk
    ("*a `b* [[c]] c`", False, 1),  # emphasis beside a code span: mistune's
    ("# The `date` [[a]]", False, 1),  # code in a heading changes its text
    ("[[a]] <b>", False, 1),  # other code syntax
    ("# *emphasis* [[a]]\n\nplain [[b]]", False, 1),  # one chunk each way
    ("text\n---\n[[a]]", False, 1),  # a setext underline
    ("# a\n\n---\n\n[[b]]", False, 0),  # a thematic break after an empty line is no underline
])
def test_what_the_native_scanner_reads_declines_and_leaves(text: str, declined: bool, left: int) -> None:
    assert native is not None
    scanned = native.scan_body(text)
    assert (scanned is None) == declined
    if scanned is not None:
        assert len(scanned[2]) == left
    assert native_scan(text) == python_scan(text)


def test_a_lone_surrogate_is_read_by_python() -> None:
    text = "[[a\ud800]] # x"
    assert native_scan(text) == python_scan(text)


def python_note(text: str) -> note.ParsedNote:
    saved, parse.native = parse.native, None
    try:
        return note.parse_note(text, "memory/x/n.md")
    finally:
        parse.native = saved


def _same_note(text: str) -> None:
    note = f"---\ndescription: x\n---\n{text}"
    assert parse_note(note, "memory/x/n.md") == python_note(note)


@batched
@settings(max_examples=examples_for(1500), deadline=None)
@given(bodies_drawn)
@example(["# *a* [[b]]\n\n## c `d`\n\n### e\n\nf\n===\n"])  # sources of headings mistune read
def test_a_note_parses_the_same_on_both_scanners(texts: list[str]) -> None:
    """A whole note (its headings' sources, set by brain.parse.spans.anchors.with_sources only where
    mistune read them on the native path) parses as the Python reading parses it."""
    for_each(texts, _same_note)


def test_notes_of_the_corpus_parse_the_same_on_both_scanners(bodies: list[str]) -> None:
    for text in bodies:
        assert parse_note(text, "memory/x/n.md") == python_note(text)
