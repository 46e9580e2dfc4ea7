"""Property: every heading's anchor, written the way an editor writes it, resolves (Hypothesis).

Headings are drawn from words and the characters that make anchors hard (inline code,
emphasis, `:`, `#`, `|`, `^`, `%%`, brackets, links, entities, escapes). For each heading
brain parses, the link an editor writes to it must parse as a link and land on it:

- Obsidian's "copy link to heading" and brain's own completion (`heading_for_link` of the
  heading as written);
- the heading as shown (its rendered text), the way someone retypes what they read;
- and, through the language server's completion, the text the completion item inserts.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from brain.lsp.features.anchor_items import anchor_choices
from brain.model import Anchors, Heading, Kind, LinkStatus
from brain.parse.note import parse_note
from brain.parse.spans.anchors import anchor_target, heading_for_link
from brain.resolve import NameEntry, resolve_link

PIECES = [
    "alpha", "Beta", "gamma", "Ünï", "中文", "e\u0301", "42", "2.4",
    " ", " ", "  ", "`", "`code`", "*", "**", "_", "__", ":", "#", "|", "^", "%%", "%",
    "[", "]", "[[x]]", "[[x|shown]]", "[t](https://u.v/w)", "(", ")", ",", ".", "!", "?",
    "'", "\"", "&amp;", "&", "<", ">", "<b>", "=", "==", "~", "~~", "/", "\\", "$", "-", "+",
]
heading_texts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)
TARGET = "memory:shared/target"
ENTRY = NameEntry(TARGET, Kind.MEMORY, "target", "shared")


def land(anchors: Anchors, heading: Heading, anchor: str) -> None:
    """`[[target#anchor]]`, parsed from a note, resolves and lands on `heading`'s text."""
    assume(anchor.strip())
    note = parse_note(f"see [[target#{anchor}]] here\n", "memory/shared/source.md")
    assert len(note.links) == 1, (anchor, note.links)
    link = note.links[0]
    lookup = {TARGET: anchors}.get
    resolution = resolve_link(link, "memory:shared/source", "shared", lambda key: [ENTRY], lookup)
    assert resolution.status is LinkStatus.RESOLVED, (heading, anchor)
    found = anchor_target(anchors, link.anchor or "")
    assert isinstance(found, Heading)
    # Several headings may compare equal; the link lands on the first of them.
    assert found.line <= heading.line


@settings(max_examples=300, deadline=None)
@given(st.lists(heading_texts, min_size=1, max_size=4), st.sampled_from(["#", "##", "###"]))
def test_every_heading_resolves_as_an_editor_links_it(texts: list[str], marks: str) -> None:
    body = "".join(f"{marks} {text}\n\nbody\n\n" for text in texts)
    note = parse_note(body, "memory/shared/target.md")
    anchors = Anchors(note.headings, note.blocks)
    for heading in note.headings:
        copied = heading_for_link(heading.written)
        assume(copied)  # a heading of only `#|^:` has nothing a link can name
        land(anchors, heading, copied)
        shown = heading_for_link(heading.text)
        if shown:
            land(anchors, heading, shown)
        _, choices = anchor_choices("", anchors, "target")
        (insert,) = {c.insert for c in choices if c.detail.endswith(f"(line {heading.line})")}
        land(anchors, heading, insert)
