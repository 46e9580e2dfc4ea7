"""Anchors as Obsidian matches them: one table per rule, over notes parsed by brain.parse.note."""

from __future__ import annotations

import pytest

from brain.model import Anchors, Block, Heading, Kind, LinkStatus, WikiLink
from brain.parse.note import parse_note
from brain.parse.spans.anchors import anchor_target, heading_for_link, strip_heading
from brain.resolve import NameEntry, resolve_link


def anchors_of(text: str) -> Anchors:
    note = parse_note(text, "memory/shared/n.md")
    return Anchors(note.headings, note.blocks)


def lands(text: str, anchor: str) -> bool:
    return anchor_target(anchors_of(text), anchor) is not None


# (heading as written in the note, anchor in the link, does the link land)
HEADING_TABLE = [
    # case and Unicode form do not matter
    ("## Retry Policy", "retry policy", True),
    ("## Café", "cafe\u0301", True),
    # inline code: as written (with backticks) and as rendered (without)
    ("### `date`", "date", True),
    ("### `date`", "`date`", True),
    ("### The `wikilink` filter", "The `wikilink` filter", True),
    ("### The `wikilink` filter", "the wikilink filter", True),
    # emphasis: as written and as rendered
    ("## *Very* important", "Very important", True),
    ("## *Very* important", "*Very* important", True),
    ("## __why__ it works", "why it works", True),
    ("## __why__ it works", "__why__ it works", True),
    # links inside headings: as written, or as shown (the label)
    ("## See [[Other|the other]]", "See the other", True),
    ("## See [[Other]]", "See Other", True),
    ("## See [the docs](https://x.org/a)", "See the docs", True),
    # what Obsidian's "copy link to heading" writes: `:` `#` `|` `^` `%%` `[[` `]]` as spaces
    ("## Minecraft: The Video Game", "Minecraft The Video Game", True),
    ("## Minecraft: The Video Game", "Minecraft: The Video Game", True),
    ("## C# tips", "C tips", True),
    ("## a | b", "a b", True),
    ("## x ^ y", "x y", True),
    ("## 50% done %%note%%", "50 done note", True),
    # punctuation and runs of spaces compare as one space, as Obsidian's stripHeading does
    ("## wifi 2.4 vs 5.0", "wifi 2 4 vs 5 0", True),
    ("## TCP/IP   Model", "TCP IP Model", True),
    ("## Questions?", "Questions", True),
    # still not a match: other words, and characters stripHeading keeps (`-`, `_`, `'`)
    ("## Retry Policy", "Retry", False),
    ("## well-known", "well known", False),
    ("## it's", "its", False),
    ("## Limits", "^Limits", False),  # `^...` names a block, not a heading
]


@pytest.mark.parametrize(("heading", "anchor", "expected"), HEADING_TABLE)
def test_heading_anchor(heading: str, anchor: str, expected: bool) -> None:
    assert lands(f"{heading}\n\ntext\n", anchor) is expected


NESTED = "# A\n## B\n### C\n## D\n# E\n## B\n### F\n"

# (anchor, line of the heading it lands on, or None)
NESTED_TABLE = [
    ("A#B", 2),
    ("A#B#C", 3),
    ("A#C", 3),  # a level may be skipped: C is inside A's section
    ("E#B", 6),  # the B inside E, not the first B
    ("E#B#F", 7),
    ("B#F", 7),  # the first B has no F: the second one does
    ("A#F", None),  # F is under E, not under A
    ("D#C", None),  # C comes before D
    ("A##B", 2),  # empty parts are skipped
    ("E#A", None),  # not in the tree order
]


@pytest.mark.parametrize(("anchor", "line"), NESTED_TABLE)
def test_nested_heading_path(anchor: str, line: int | None) -> None:
    found = anchor_target(anchors_of(NESTED), anchor)
    assert (found.line if isinstance(found, Heading) else None) == line


# (body, block ids with (line, column, first line of the block))
BLOCK_TABLE = [
    ("A paragraph ^para-1\n", [("para-1", 1, 13, 1)]),
    ("Two lines\nof text ^two\n", [("two", 2, 9, 1)]),
    ("Own line after text\n^own\n", [("own", 2, 1, 1)]),
    ("- one ^li-1\n- two\n  more ^li-2\n", [("li-1", 1, 7, 1), ("li-2", 3, 8, 2)]),
    ("> quoted\n> text ^q\n", [("q", 2, 8, 1)]),
    ("- a\n- b\n\n^whole-list\n", [("whole-list", 4, 1, 1)]),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n\n^table\n", [("table", 5, 1, 1)]),
    ("UPPER ^ID-9\n", [("ID-9", 1, 7, 1)]),
    # not block ids
    ("in the ^middle of a line\n", []),
    ("a^glued\n", []),
    ("a line ^mid\nand more\n", []),  # not the end of the paragraph
    ("```\ncode ^c\n```\n", []),
    ("    indented code ^c\n", []),
    ("`code ^c`\n", []),
    ("$$\nx ^m\n$$\n", []),
    ("bad ^under_score\n", []),  # Obsidian ids: letters, digits and dashes
    ("first ^dup\n\nsecond ^DUP\n", [("dup", 1, 7, 1)]),  # the first block of an id wins
]


@pytest.mark.parametrize(("body", "expected"), BLOCK_TABLE)
def test_block_ids(body: str, expected: list[tuple[str, int, int, int]]) -> None:
    note = parse_note("---\ntype: user\n---\n" + body)
    shifted = [(i, line + 3, column, start + 3) for i, line, column, start in expected]
    assert [(b.id, b.line, b.column, b.start_line) for b in note.blocks] == shifted


# (anchor in `[[n#...]]`, status: the note has one heading and one block)
BLOCK_LINK_TABLE = [
    ("^para", LinkStatus.RESOLVED),
    ("^PARA", LinkStatus.RESOLVED),  # Obsidian compares ids lowercased
    (" ^para ", LinkStatus.RESOLVED),
    ("^nope", LinkStatus.MISSING_ANCHOR),
    ("^", LinkStatus.MISSING_ANCHOR),
    ("para", LinkStatus.MISSING_ANCHOR),  # a block id is not a heading
    ("Top", LinkStatus.RESOLVED),
]


@pytest.mark.parametrize(("anchor", "status"), BLOCK_LINK_TABLE)
def test_block_links_resolve(anchor: str, status: LinkStatus) -> None:
    anchors = {"memory:shared/n": anchors_of("# Top\n\nSome text ^para\n")}
    entry = NameEntry("memory:shared/n", Kind.MEMORY, "n", "shared")
    link = WikiLink(f"[[n#{anchor}]]", "n", None, anchor, False, 1, 1)
    resolution = resolve_link(link, "memory:shared/x", "shared", lambda key: [entry], anchors.get)
    assert (resolution.status, resolution.target_id) == (status, "memory:shared/n")
    # `[[#...]]` names the note it is written in
    own = WikiLink(f"[[#{anchor}]]", "", None, anchor, False, 1, 1)
    assert resolve_link(own, "memory:shared/n", "shared", lambda key: [], anchors.get).status is status


# (text, what Obsidian's stripHeading gives, what a link to it is written as)
STRIP_TABLE = [
    ("Step 1: Install", "Step 1 Install", "Step 1 Install"),
    ("`date`", "date", "`date`"),
    ("a [b] c", "a b c", "a b c"),
    ("foo:#|^\\%%[[]]bar", "foo bar", "foo bar"),
    ("  spaced   out  ", "spaced out", "spaced out"),
    ("50% (approx.)", "50 approx", "50% (approx.)"),
]


@pytest.mark.parametrize(("text", "stripped", "for_link"), STRIP_TABLE)
def test_strip_rules(text: str, stripped: str, for_link: str) -> None:
    assert strip_heading(text) == stripped
    assert heading_for_link(text) == for_link


def test_heading_keeps_its_written_form_only_where_it_differs() -> None:
    note = parse_note("# Plain\n## The `x` *y*\n")
    assert note.headings == (Heading("Plain", 1, 1), Heading("The x y", 2, 2, "The `x` *y*"))
    assert note.headings[1].written == "The `x` *y*"


def test_block_model_round_trip() -> None:
    (block,) = parse_note("text ^b-1\n").blocks
    assert block == Block("b-1", 1, 6, 1)


def test_a_stores_headings_are_searched_as_a_tuple_of_them_is() -> None:
    """A one-name anchor is matched on a store's flat `Headings` without building each
    Heading (brain/parse/spans/anchors.py): by its text and by its source as written, the
    first match in order, the same answers as a plain sequence of headings gives."""
    from brain.model import Heading, Headings
    from brain.parse.spans.anchors import find_heading

    plain = [Heading("Intro", 1, 1, ""), Heading("Shown", 2, 3, "Written [[x|as]] this"),
             Heading("Part", 2, 5, ""), Heading("part", 3, 7, "")]
    held = Headings(plain)
    for name in ("intro", "Shown", "Written [[x|as]] this", "Written as this", "part", "nowhere"):
        assert find_heading(held, (name,)) == find_heading(plain, (name,)), name
    assert find_heading(held, ("Written [[x|as]] this",)) == plain[1]  # by its source alone
    assert find_heading(held, ("part",)) == plain[2]  # the first of two
