"""Properties of the parser over arbitrary input (Hypothesis).

Parsing never raises, and every reported link position points at its raw text, starting
with `[[` (or `![[`), in the source as an editor shows it. The text is drawn both from all
of Unicode and from markdown-shaped pieces (fences, indentation, quotes, HTML, escapes,
astral and combining characters) so that the code-block rules are exercised.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.parse.note import decode, normalize_text, parse_note

PIECES = [
    "[[", "]]", "[", "]", "|", "#", "!", "\\", "`", "``", "```", "~~~", "    ", "\t", "\n", "\n\n",
    "\r\n", "\r", "> ", "- ", "* ", "1. ", "1) ", "---", "===", "<div>", "</div>", "<!--", "-->",
    "<pre>", "</pre>", "<https://x.y/", ">", "](", "[r]: ", "note", "Shared/x.md", "workflow:", " ",
    "😀", "中文", "e\u0301", "\ufeff", "\u2028", "\x00", "é", "ß", "#Heading", "^block",
    "---\n", "type: x\n", "description: [\n", '"type": 1\n', "{description: [a]}\n", ": ",
]
markdownish = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
texts = st.one_of(st.text(max_size=300), markdownish)
RAW_RE = re.compile(r"!?\[\[[^\[\]\n]+\]\]")


def check_positions(text: str) -> None:
    note = parse_note(text, "memory/shared/n.md")
    lines = normalize_text(text).split("\n")
    previous = (0, 0)
    for link in note.links:
        assert RAW_RE.fullmatch(link.raw), link
        assert 1 <= link.line <= len(lines)
        source_line = lines[link.line - 1]
        assert source_line[link.column - 1 :].startswith(link.raw), (link, source_line)
        assert link.embed == link.raw.startswith("!")
        assert (link.line, link.column) > previous, "links come in source order, one per place"
        previous = (link.line, link.column)
    for problem in note.problems:
        assert (problem.line is None) == (problem.column is None), problem
        assert problem.line is None or 1 <= problem.line <= len(lines) + 1, problem
    for heading in note.headings:
        assert 1 <= heading.line <= len(lines)
        assert 1 <= heading.level <= 6


@settings(max_examples=400, deadline=None)
@given(texts)
def test_parsing_never_raises_and_positions_point_at_the_link(text: str) -> None:
    check_positions(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_decode_and_parse(raw: bytes) -> None:
    text, problems = decode(raw, "memory/shared/n.md")
    assert all(p.code == "invalid-encoding" and p.line and p.column for p in problems)
    check_positions(text)


@settings(max_examples=300, deadline=None)
@given(markdownish)
def test_nothing_inside_a_fenced_block_is_a_link_or_a_heading(body: str) -> None:
    body = normalize_text(body)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    note = parse_note(f"{fence}\n{body}\n{fence}\n")
    assert (note.links, note.headings) == ((), ())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["[[a]]", "![[b#H|l]]", "x ", "😀", "\n", "- ", "> "]), max_size=40))
def test_plain_links_are_all_found(pieces: list[str]) -> None:
    # No code syntax at all: every `[[...]]` is a link, found exactly once.
    text = "".join(pieces)
    assert [w.raw for w in parse_note(text).links] == RAW_RE.findall(text)
