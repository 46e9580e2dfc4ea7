"""What is under the cursor: a link being typed, a link, a frontmatter key or `type:` value.

Everything here works on plain text with 0-based lines and code point columns. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from brain.model import WikiLink
from brain.resolve import KIND_PREFIXES

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
FM_KEY_TYPING_RE = re.compile(r"^([A-Za-z_][\w-]*)?$")
TYPE_VALUE_RE = re.compile(r"^type[ \t]*:[ \t]*")
FM_KEY_LINE_RE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")


@dataclass(frozen=True, slots=True)
class LinkTyping:
    """The cursor is in the target of a `[[` link: complete a name.

    `start`..`end` is the target part on `line` (what a completion replaces); `typed` is
    the text from `start` to the cursor; `closed` says whether `]]` (or `#`/`|`) follows.
    """

    line: int
    start: int
    end: int
    typed: str
    closed: bool


@dataclass(frozen=True, slots=True)
class AnchorTyping:
    """The cursor is after `[[target#`: complete a heading of `target` (empty: this note)."""

    line: int
    start: int
    end: int
    target: str
    typed: str
    closed: bool


@dataclass(frozen=True, slots=True)
class KeyTyping:
    """The cursor is at the start of a frontmatter line: complete a key."""

    line: int
    start: int
    end: int
    typed: str


@dataclass(frozen=True, slots=True)
class TypeValueTyping:
    """The cursor is in the value of `type:` in the frontmatter."""

    line: int
    start: int
    end: int
    typed: str


Typing = LinkTyping | AnchorTyping | KeyTyping | TypeValueTyping


def frontmatter_lines(lines: Sequence[str]) -> tuple[int, int] | None:
    """(first, last) 0-based line of the frontmatter's content, or None without frontmatter.

    An unclosed block counts up to its first blank line, so keys complete while it is typed.
    """
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return (1, index - 1)
    for index in range(1, len(lines)):
        if not lines[index].strip():
            return (1, index)
    return (1, len(lines) - 1)


def typing_at(lines: Sequence[str], line: int, column: int) -> Typing | None:
    """What completion means at this cursor, if anything."""
    if not 0 <= line < len(lines):
        return None
    text = lines[line]
    column = min(column, len(text))
    frontmatter = frontmatter_lines(lines)
    if frontmatter is not None and frontmatter[0] <= line <= frontmatter[1]:
        return _frontmatter_typing(text, line, column)
    if in_fenced_code(lines, line):
        return None
    return _link_typing(text, line, column)


def _frontmatter_typing(text: str, line: int, column: int) -> Typing | None:
    before = text[:column]
    value = TYPE_VALUE_RE.match(text)
    if value is not None and column >= value.end():
        end = len(text.rstrip())
        return TypeValueTyping(line, value.end(), max(end, column), text[value.end() : column])
    if FM_KEY_TYPING_RE.match(before):
        end = column
        while end < len(text) and (text[end].isalnum() or text[end] in "_-"):
            end += 1
        if ":" in text[end:]:
            return None  # the key is there already; the cursor is inside it
        return KeyTyping(line, 0, end, before)
    return None


def _link_typing(text: str, line: int, column: int) -> Typing | None:
    opening = text.rfind("[[", 0, column)
    if opening < 0 or "]]" in text[opening:column] or _in_code_span(text, opening):
        return None
    start = opening + 2
    typed = text[start:column]
    if "|" in typed:
        return None  # in the label: free text
    if "#" in typed:
        anchor_start = start + typed.index("#") + 1
        end = _part_end(text, column, "|]")
        return AnchorTyping(
            line, anchor_start, end, typed[: typed.index("#")].strip(),
            text[anchor_start:column], _closed(text, end),
        )
    end = _part_end(text, column, "#|]")
    return LinkTyping(line, start, end, typed, _closed(text, end))


def _part_end(text: str, column: int, stops: str) -> int:
    end = column
    while end < len(text) and text[end] not in stops and not text.startswith("[[", end):
        end += 1
    # Do not swallow the rest of a sentence when the link has no closing brackets yet.
    if end == len(text) or text.startswith("[[", end):
        end = column
        while end < len(text) and not text[end].isspace() and text[end] not in stops:
            end += 1
    return end


def _closed(text: str, end: int) -> bool:
    return text.startswith(("]]", "#", "|"), end)


def _in_code_span(text: str, offset: int) -> bool:
    """True when `offset` lies inside an inline code span (an odd run of backticks before it)."""
    inside: str | None = None
    index = 0
    while index < offset:
        if text[index] == "`":
            run = index
            while index < len(text) and text[index] == "`":
                index += 1
            ticks = text[run:index]
            if inside is None:
                inside = ticks
            elif ticks == inside:
                inside = None
            continue
        index += 1
    return inside is not None and text.find(inside, offset) >= 0


def in_fenced_code(lines: Sequence[str], line: int) -> bool:
    """True when `line` is inside (or is a fence line of) a fenced code block."""
    fence: str | None = None
    for index in range(line + 1):
        match = FENCE_RE.match(lines[index])
        if match is None:
            continue
        marker = match.group(1)
        if fence is None:
            fence = marker
            if index == line:
                return True
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not lines[index][match.end():].strip():
            fence = None
            if index == line:
                return True
    return fence is not None


def link_at(links: Sequence[WikiLink], line: int, column: int) -> WikiLink | None:
    """The link whose text contains this cursor (0-based line, code point column); ends count."""
    for link in links:
        if link.line - 1 == line and link.column - 1 <= column <= link.column - 1 + len(link.raw):
            return link
    return None


def frontmatter_keys(lines: Sequence[str]) -> set[str]:
    span = frontmatter_lines(lines)
    if span is None:
        return set()
    return {m.group(1) for m in (FM_KEY_LINE_RE.match(lines[i]) for i in range(span[0], span[1] + 1)) if m}


def split_typed(typed: str) -> tuple[str, str | None, str]:
    """`workflow:nig` -> (`workflow:`, None, `nig`); `shared/ho` -> (``, `shared`, `ho`).

    The prefix is returned as typed (its case kept), the scope without its `/`.
    """
    rest = typed.lstrip()
    prefix = ""
    folded = rest.casefold()
    for candidate, kind in KIND_PREFIXES:
        if folded.startswith(candidate):
            prefix = rest[: len(candidate)]
            rest = rest[len(candidate) :].lstrip()
            if kind.value != "memory":
                return prefix, None, rest
            break
    if "/" in rest:
        scope, name = rest.split("/", 1)
        return prefix, scope.strip(), name.lstrip()
    return prefix, None, rest


def word_at(text: str, column: int) -> tuple[int, int]:
    """[start, end) of the word (letters, digits, `_`, `-`) at a column; empty at a non-word."""
    start = end = min(column, len(text))
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_-"):
        end += 1
    return start, end
