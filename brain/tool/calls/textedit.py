"""The text side of the tool's commands: numbered lines, literal replace, insert. Pure.

Lines are 1-based and split on `\\n`; a final newline ends the last line rather than
starting an empty one. Replacement is a literal splice of strings (never a regular
expression), so `$$`, `$1`, `\\1` and `\\g<0>` in the new text survive as written.
"""

from __future__ import annotations

from dataclasses import dataclass

NUMBER_WIDTH = 6


def split_lines(text: str) -> list[str]:
    if not text:
        return []
    body = text[:-1] if text.endswith("\n") else text
    return body.split("\n")


def line_count(text: str) -> int:
    return len(split_lines(text))


def numbered(lines: list[str], first: int = 1) -> str:
    """`     1\\tline`, the way an editor's gutter and the model's tool results show lines."""
    return "\n".join(
        f"{n:>{NUMBER_WIDTH}}\t{line.removesuffix(chr(13))}" for n, line in enumerate(lines, first)
    )


def occurrences(text: str, needle: str) -> list[int]:
    """Every offset where `needle` starts, overlapping ones included (`aa` in `aaa`: 2)."""
    found: list[int] = []
    start = text.find(needle)
    while start >= 0:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def splice(text: str, offset: int, length: int, new: str) -> str:
    return text[:offset] + new + text[offset + length :]


def insert_after(text: str, line: int, insert_text: str) -> str:
    """`insert_text` as whole lines after line `line` (0 = the top)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    ends_with_newline = text.endswith("\n") or not text
    body = text[: -len(newline)] if text.endswith(newline) else text
    lines = body.split(newline) if text else []
    new_lines = insert_text.replace("\r\n", "\n").removesuffix("\n").split("\n")
    joined = newline.join(lines[:line] + new_lines + lines[line:])
    return joined + newline if ends_with_newline else joined


@dataclass(frozen=True, slots=True)
class Widened:
    """A longer old_str that matches once, and the new_str that keeps the same edit."""

    old_str: str
    new_str: str


def widen_to_unique(text: str, offset: int, old: str, new: str) -> Widened | None:
    """Grow the match at `offset` to whole lines, then a line up, a line down, ... until unique."""
    start = text.rfind("\n", 0, offset) + 1
    end_nl = text.find("\n", offset + len(old))
    end = len(text) if end_nl < 0 else end_nl
    upward = True
    while len(occurrences(text, text[start:end])) > 1:
        if start == 0 and end == len(text):
            return None
        if (upward and start > 0) or end == len(text):
            start = text.rfind("\n", 0, start - 1) + 1
        else:
            nxt = text.find("\n", end + 1)
            end = len(text) if nxt < 0 else nxt
        upward = not upward
    prefix, suffix = text[start:offset], text[offset + len(old) : end]
    return Widened(text[start:end], prefix + new + suffix)


def changed_lines(old: str, new: str) -> range:
    """The 1-based lines of `new` that differ from `old` (an empty range when none do)."""
    a, b = split_lines(old), split_lines(new)
    top = 0
    while top < len(a) and top < len(b) and a[top] == b[top]:
        top += 1
    bottom = 0
    while bottom < len(a) - top and bottom < len(b) - top and a[-1 - bottom] == b[-1 - bottom]:
        bottom += 1
    return range(top + 1, len(b) - bottom + 1)


def snippet(text: str, first: int, last: int, context: int = 2) -> str:
    """Lines `first`..`last` with a little context, numbered: what an edit looks like now."""
    lines = split_lines(text)
    if not lines:
        return "(the file is now empty)"
    lo = max(1, first - context)
    hi = min(len(lines), max(last, first) + context)
    return numbered(lines[lo - 1 : hi], lo)


def whitespace_insensitive_line(text: str, needle: str) -> int | None:
    """The line where `needle` would match if runs of whitespace were ignored, if any."""
    words = needle.split()
    if not words or len(words) > 200:
        return None  # a hint, not worth quadratic time on a huge old_str
    flat: list[tuple[str, int]] = []
    for number, line in enumerate(split_lines(text), 1):
        flat.extend((word, number) for word in line.split())
    n = len(words)
    for i in range(len(flat) - n + 1):
        if all(flat[i + j][0] == words[j] for j in range(n)):
            return flat[i][1]
    return None
