"""Where math is in a markdown body: `$...$` spans and `$$...$$` blocks hold no links. Pure.

Obsidian renders both with MathJax, so `$[[x]]$` is math, not a link. When `$` opens math
follows pandoc's `tex_math_dollars` (which Obsidian's reading matches on real notes):

- `$$` opens display math that runs to the next `$$` (it may span lines);
- `$` opens inline math only with a non-space character right after it, and the closing `$`
  has a non-space character right before it and no digit right after it, in the same
  paragraph: `$20 and $30` is text, `$x^2$` is math;
- a backslash escapes a `$`, and a code span (`` `$x$` ``) or fenced code block is code,
  not math, read left to right as CommonMark does.

The scan is linear: a `$` that finds no closer in its paragraph means no later `$` of that
paragraph can find one either (closers do not depend on their opener).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SPECIAL_RE = re.compile(r"[`~\\$]")  # a character class: a fast scan between them
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)
BACKTICKS_RE = re.compile(r"`+")
BLANK_LINE_RE = re.compile(r"\n[ \t>]*\n")
INLINE_CLOSER_RE = re.compile(r"(?<=[^\s\\])\$(?!\d)")
DISPLAY_CLOSER_RE = re.compile(r"(?<!\\)\$\$")


def math_ranges(body: str) -> list[tuple[int, int]]:
    """[start, end) offsets of every math span and block in `body`, in order."""
    if "$" not in body:
        return []
    out: list[tuple[int, int]] = []
    pos = 0
    no_closer_until = -1  # inline `$` search already failed up to here
    length = len(body)
    while pos < length:
        m = SPECIAL_RE.search(body, pos)
        if m is None:
            break
        start = m.start()
        char = body[start]
        if char in "`~":
            line_start = body.rfind("\n", 0, start) + 1
            fence = FENCE_RE.match(body, line_start) if start - line_start <= 3 else None
            if fence is not None and fence.start(1) == start:
                pos = _fence_end(body, fence)
            elif char == "`":
                run = BACKTICKS_RE.match(body, start)
                assert run is not None
                pos = _code_span_end(body, run.end(), run.end() - start)
            else:
                pos = start + 1
        elif char == "\\":
            pos = start + 2
        elif body.startswith("$$", start):
            close = DISPLAY_CLOSER_RE.search(body, start + 2)
            if close is None:
                pos = start + 2
            else:
                out.append((start, close.end()))
                pos = close.end()
        else:  # a single `$`
            pos = start + 1
            if pos >= length or body[pos].isspace() or start < no_closer_until:
                continue
            stop = _paragraph_end(body, pos)
            close = INLINE_CLOSER_RE.search(body, pos + 1, stop)
            if close is None:
                no_closer_until = stop
                continue
            out.append((start, close.end()))
            pos = close.end()
    return out


def outside_math(body: str, offsets: Sequence[int]) -> list[bool]:
    """For each offset (ascending), whether it lies outside every math range of `body`."""
    ranges = math_ranges(body)
    keep: list[bool] = []
    index = 0
    for offset in offsets:
        while index < len(ranges) and ranges[index][1] <= offset:
            index += 1
        keep.append(not (index < len(ranges) and ranges[index][0] <= offset))
    return keep


def _fence_end(body: str, opener: re.Match[str]) -> int:
    marker = opener.group(1)
    for closer in FENCE_RE.finditer(body, opener.end()):
        fence = closer.group(1)
        if fence[0] == marker[0] and len(fence) >= len(marker) and not closer.group(2).strip():
            return closer.end()
    return len(body)


def _code_span_end(body: str, after: int, ticks: int) -> int:
    """Past the closing run of exactly `ticks` backticks in the paragraph, else `after`."""
    stop = _paragraph_end(body, after)
    run = re.compile(f"(?<!`)`{{{ticks}}}(?!`)")
    close = run.search(body, after, stop)
    return after if close is None else close.end()


def _paragraph_end(body: str, pos: int) -> int:
    blank = BLANK_LINE_RE.search(body, pos)
    return len(body) if blank is None else blank.start()
