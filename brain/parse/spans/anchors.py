"""What `#...` in a wikilink names, matched the way Obsidian matches it. Pure.

A vault is edited in Obsidian as often as in VS Code, so a link Obsidian follows must resolve
here too. Obsidian's rules (its `stripHeading`, `stripHeadingForLink` and `resolveSubpath`):

- `[[Note#Heading]]`: the heading part and every heading are compared after replacing the
  characters Obsidian cannot keep in a link (`!"#$%&()*+,.:;<=>?@^`{|}~/[]\\`) by spaces,
  collapsing runs of spaces and trimming, case-insensitively. So `## Step 1: Install`
  matches `#Step 1 Install` (what Obsidian's "copy link to heading" writes) and
  `` ### `date` `` matches `#date` and `` #`date` ``.
- A heading is matched as written and as rendered: `## See [[Other|the other]]` also
  matches `#See the other`; `## _why_` also matches `#why`.
- `[[Note#A#B]]` follows the heading tree: `B` is a heading inside `A`'s section.
- `[[Note#^id]]` names a block: a paragraph, list item or quote that ends with `^id`
  (brain.parse.spans.blocks); ids compare case-insensitively, as Obsidian lowercases them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from brain.model import Anchors, Block, Heading, Headings

# Obsidian's `stripHeading`: what heading comparison ignores.
STRIP_RE = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\\r\n]")
# Obsidian's `stripHeadingForLink`: what cannot stay in the heading part of a link; and a
# lone `[` or `]`, which brain's link syntax cannot hold (Obsidian compares without them).
LINK_UNSAFE_RE = re.compile(r"[:#|^\\\r\n\[\]]|%%")
SPACES_RE = re.compile(r"\s+")
# How a heading reads: `[[t|label]]` shows label, `[[t]]` shows t, `%%comments%%` nothing.
WIKILINK_SHOWN_RE = re.compile(r"!?\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
COMMENT_RE = re.compile(r"%%.*?%%")
HIGHLIGHT_RE = re.compile(r"==(?=\S)(.+?)(?<=\S)==")
TRAILING_BLOCK_ID_RE = re.compile(r"(?:^|\s)\^[A-Za-z0-9-]+\s*$")
BLOCK_ID_RE = re.compile(r"[A-Za-z0-9-]+")
# The marks before an ATX heading's text (also in list items and quotes), and its closing #s.
ATX_PREFIX_RE = re.compile(r"^ {0,3}(?:(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*+)*+#{1,6}(?:[ \t]+|$)")
ATX_CLOSING_RE = re.compile(r"[ \t]+#+[ \t]*$|^#+[ \t]*$")
# What may stand before a heading's text when the line is nothing but marks and that text.
MARKS_ONLY_RE = re.compile(r"[ \t>*+\-\d.)#]*[ \t]")


def with_sources(headings: tuple[Heading, ...], body: str, body_line: int) -> tuple[Heading, ...]:
    """The headings with `source` set where the text as written differs from the text shown."""
    if not headings:
        return headings
    lines = body.split("\n")
    out: list[Heading] = []
    for heading in headings:
        index = heading.line - body_line
        source = heading.text
        if 0 <= index < len(lines):
            line = lines[index]
            text = heading.text
            # Most headings are written as shown (`## Title`): skip the full reading for them.
            plain = line.endswith(text) and MARKS_ONLY_RE.fullmatch(line, 0, len(line) - len(text))
            source = text if plain else heading_source(line)
        out.append(heading if source == heading.text else heading._replace(source=source))
    return tuple(out)


def heading_source(line: str) -> str:
    """The text of an ATX heading line as written: no `#` marks, no closing `#`s."""
    prefix = ATX_PREFIX_RE.match(line)
    return ATX_CLOSING_RE.sub("", line[prefix.end() :] if prefix else line).strip()


def strip_heading(text: str) -> str:
    """Obsidian's `stripHeading`: the form in which headings and links are compared."""
    return SPACES_RE.sub(" ", STRIP_RE.sub(" ", text)).strip()


def heading_for_link(text: str) -> str:
    """A heading as a link names it (`A: B` -> `A B`), as Obsidian's `stripHeadingForLink`."""
    return SPACES_RE.sub(" ", LINK_UNSAFE_RE.sub(" ", text)).strip()


def rendered(text: str) -> str:
    """A heading as it reads: wikilinks as their label, comments and a block id removed."""
    if "[[" in text:
        text = WIKILINK_SHOWN_RE.sub(lambda m: m.group(2) or m.group(1), text)
    if "%%" in text:
        text = COMMENT_RE.sub("", text)
    if "==" in text:
        text = HIGHLIGHT_RE.sub(r"\1", text)
    if "^" in text:
        text = TRAILING_BLOCK_ID_RE.sub("", text)
    return text


@functools.lru_cache(maxsize=1 << 16)
def match_key(text: str) -> str:
    """The comparison key of a heading or of one `#` part of a link."""
    return unicodedata.normalize("NFC", strip_heading(unicodedata.normalize("NFC", text)).casefold())


@functools.lru_cache(maxsize=1 << 14)
def _keys(text: str, source: str) -> frozenset[str]:
    keys = {match_key(text), match_key(rendered(text))}
    if source:
        keys |= {match_key(source), match_key(rendered(source))}
    # A heading of punctuation only (`## ???`) has the empty key: like Obsidian, a link of
    # punctuation only names it.
    return frozenset(keys)


def heading_keys(heading: Heading) -> frozenset[str]:
    """Every key a link may use for this heading: as written and as rendered."""
    return _keys(heading.text, heading.source)


@dataclass(frozen=True, slots=True)
class AnchorRef:
    """The anchor part of a link taken apart: a block id, or a path of heading names."""

    block: str | None
    path: tuple[str, ...]


def parse_anchor(anchor: str) -> AnchorRef:
    """`^id` -> a block; `A#B` -> the path (A, B); empty parts (`A##B`) are skipped."""
    text = anchor.strip()
    if text.startswith("^"):
        return AnchorRef(text[1:].strip(), ())
    return AnchorRef(None, tuple(part.strip() for part in text.split("#") if part.strip()))


def find_heading(headings: Sequence[Heading], path: Sequence[str]) -> Heading | None:
    """The heading `path` names: the first part anywhere, each next one inside the last's section."""
    if not path:
        return None
    keys = [match_key(part) for part in path]
    if len(keys) == 1:
        # One name (nearly every anchor): matched on the headings' texts and sources alone
        # and only the one found built. Read by index, a store's `Headings` built a Heading
        # at each, a sixth of a first sync's link plan at 10,000 notes (issue 43).
        flat = headings.flat if isinstance(headings, Headings) else None
        pairs = (zip(flat[0::4], flat[3::4], strict=True) if flat is not None
                 else ((h.text, h.source) for h in headings))
        key = keys[0]
        for at, (text, source) in enumerate(pairs):
            if key in _keys(text, source):
                return headings[at]
        return None
    return _find(headings, 0, len(headings), keys)


def _find(headings: Sequence[Heading], start: int, stop: int, keys: list[str]) -> Heading | None:
    for index in range(start, stop):
        heading = headings[index]
        if keys[0] not in heading_keys(heading):
            continue
        if len(keys) == 1:
            return heading
        end = section_stop(headings, index)
        found = _find(headings, index + 1, min(end, stop), keys[1:])
        if found is not None:
            return found
    return None


def section_stop(headings: Sequence[Heading], index: int) -> int:
    """Index of the first heading after `headings[index]` that is not inside its section."""
    level = headings[index].level
    for later in range(index + 1, len(headings)):
        if headings[later].level <= level:
            return later
    return len(headings)


def section_end_line(headings: Sequence[Heading], heading: Heading) -> int | None:
    """The last line of `heading`'s section (None: it runs to the end of the note)."""
    for index, candidate in enumerate(headings):
        if candidate is heading or candidate == heading:
            stop = section_stop(headings, index)
            return headings[stop].line - 1 if stop < len(headings) else None
    return None


def find_block(blocks: Sequence[Block], block_id: str) -> Block | None:
    wanted = block_id.strip().casefold()
    for block in blocks:
        if block.id.casefold() == wanted:
            return block
    return None


def anchor_target(anchors: Anchors, anchor: str) -> Heading | Block | None:
    """The heading or block an anchor names in a memory, or None."""
    ref = parse_anchor(anchor)
    if ref.block is not None:
        return find_block(anchors.blocks, ref.block) if ref.block else None
    return find_heading(anchors.headings, ref.path)


def is_block_id(text: str) -> bool:
    """A valid block id: basic Latin letters, digits and dashes (Obsidian's rule)."""
    return BLOCK_ID_RE.fullmatch(text) is not None


def anchor_lines(anchors: Anchors, anchor: str) -> tuple[int, int] | None:
    """1-based (first, last) line of what an anchor names: a heading's line, a block's lines."""
    found = anchor_target(anchors, anchor)
    if found is None:
        return None
    if isinstance(found, Block):
        return found.start_line, found.line
    return found.line, found.line
