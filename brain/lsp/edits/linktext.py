"""The parts of a wikilink as written, by offset, so edits touch only the part they mean to.

`[[memory: shared/Old Name.md#Heading|label]]`: a rename replaces `Old Name` and nothing else;
making an ambiguous link explicit replaces `memory: shared/Old Name.md`. Offsets are code points
within the raw text, and follow `brain.parse.body.split_link` and `brain.resolve.parse_target`
exactly (the same prefixes, the same `\\|` rule). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from brain.model import Kind
from brain.resolve import KIND_PREFIXES

_PREFIX_TEXT = {kind: prefix for prefix, kind in reversed(KIND_PREFIXES)}


@dataclass(frozen=True, slots=True)
class LinkParts:
    """Offsets into a raw link: [start, end) of the target, of its name, of the anchor."""

    target_start: int
    target_end: int
    name_start: int
    name_end: int
    kind: Kind | None
    anchor_start: int | None = None
    anchor_end: int | None = None


def link_parts(raw: str) -> LinkParts:
    """Take `[[...]]` or `![[...]]` apart (the raw text of a `WikiLink`)."""
    start = 3 if raw.startswith("!") else 2
    end = len(raw) - 2 if raw.endswith("]]") else len(raw)
    stop = _target_stop(raw, start, end)
    t_start, t_end = _trim(raw, start, stop)
    name_start, kind = t_start, None
    folded = raw[t_start:t_end].casefold()
    for prefix, prefix_kind in KIND_PREFIXES:
        if folded.startswith(prefix):
            kind = prefix_kind
            name_start = _skip_spaces(raw, t_start + len(prefix), t_end)
            break
    if kind in (None, Kind.MEMORY):
        slash = raw.rfind("/", name_start, t_end)  # the leaf: space paths have folders
        if slash >= 0:
            name_start = _skip_spaces(raw, slash + 1, t_end)
    name_end = t_end
    if raw[name_start:name_end].casefold().endswith(".md"):
        name_end = _trim(raw, name_start, name_end - 3)[1]
    anchor_start = anchor_end = None
    if stop < end and raw[stop] == "#":
        label = _target_stop(raw, stop + 1, end, anchor=True)
        anchor_start, anchor_end = stop + 1, label
    return LinkParts(t_start, t_end, name_start, name_end, kind, anchor_start, anchor_end)


def replace_name(raw: str, new_name: str) -> str:
    """The link with its name replaced: prefix, scope, `.md`, anchor, label and `!` are kept."""
    parts = link_parts(raw)
    return raw[: parts.name_start] + new_name + raw[parts.name_end :]


def replace_target(raw: str, new_target: str) -> str:
    """The link with its whole target replaced (anchor, label and `!` kept)."""
    parts = link_parts(raw)
    return raw[: parts.target_start] + new_target + raw[parts.target_end :]


def explicit_target(node_id: str) -> str:
    """The link target that names `node_id` and nothing else: `scope/name` or `kind:id`."""
    kind, rest = node_id.split(":", 1)
    if kind == Kind.MEMORY.value:
        return rest
    return f"{_PREFIX_TEXT[Kind(kind)]}{rest}"


def prefix_of(kind: Kind) -> str:
    return _PREFIX_TEXT[kind]


def _target_stop(raw: str, index: int, end: int, anchor: bool = False) -> int:
    """Where the target (or, with `anchor`, the anchor) ends: at `#`, `|` or `\\|`."""
    while index < end:
        char = raw[index]
        if char == "|" or (char == "#" and not anchor):
            return index
        if char == "\\" and raw.startswith("\\|", index):
            return index
        index += 1
    return end


def _trim(raw: str, start: int, end: int) -> tuple[int, int]:
    while start < end and raw[start].isspace():
        start += 1
    while end > start and raw[end - 1].isspace():
        end -= 1
    return start, end


def _skip_spaces(raw: str, index: int, end: int) -> int:
    while index < end and raw[index].isspace():
        index += 1
    return index
