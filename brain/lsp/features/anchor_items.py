"""What completes after `[[Note#`: headings, headings inside `#A#`, block ids after `#^`. Pure.

Each choice inserts what Obsidian's own completion writes: the heading as written, with the
characters a link cannot keep (`:`, `#`, `|`, `^`, `%%`, `[[`, `]]`) turned into spaces
(brain.parse.spans.anchors.heading_for_link), so the link resolves in brain and in Obsidian alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brain.model import Anchors, Heading
from brain.parse.spans.anchors import find_heading, heading_for_link, parse_anchor, section_stop


@dataclass(frozen=True, slots=True)
class AnchorChoice:
    """One completion: what the list shows, the anchor text it inserts, and what it says."""

    label: str
    insert: str
    detail: str
    key: str


def anchor_choices(typed: str, anchors: Anchors, owner: str) -> tuple[str, list[AnchorChoice]]:
    """(the part of `typed` to filter by, the choices) for the text typed after `#`."""
    if typed.lstrip().startswith("^"):
        return typed.lstrip()[1:], [
            AnchorChoice(f"^{b.id}", f"^{b.id}", f"block of {owner} (line {b.line})", b.id)
            for b in anchors.blocks
        ]
    headings: Sequence[Heading] = anchors.headings
    prefix = ""
    if "#" in typed:
        parent_text, typed = typed.rsplit("#", 1)
        parent = find_heading(anchors.headings, parse_anchor(parent_text).path)
        if parent is None:
            return typed, []
        index = anchors.headings.index(parent)
        headings = anchors.headings[index + 1 : section_stop(anchors.headings, index)]
        prefix = parent_text + "#"
    return typed, [
        AnchorChoice(
            h.text,
            prefix + heading_for_link(h.written),
            f"{'#' * h.level} heading of {owner} (line {h.line})",
            h.text,
        )
        for h in headings
    ]
