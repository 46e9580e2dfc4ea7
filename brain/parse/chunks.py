"""A markdown body cut into pieces mistune reads the same alone as together, and whether a
piece holds any syntax of code. Pure.

brain.parse.note reads links and headings chunk by chunk: a chunk with no code syntax is taken as
it looks, and only the others are read by mistune. The regular expressions here say what
"code syntax" and a chunk's boundary are; the `has_*` functions answer the same as a search
with them, found faster (plain substrings, and line starts found after a literal `\\n`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Anything that may open code: backticks, tildes, HTML, or four spaces of indentation,
# also after list and quote markers (`-     x` is code inside a list item).
# Link destinations `](...)` and reference definitions `[r]: url` are not text either.
CODE_HINT_RE = re.compile(
    r"`|~~~|<|\\|\]\(|^ {0,3}\[[^\]\n]+\]:|^[ >*+\-\d.)]*?(?: {4}|\t)", re.MULTILINE
)
# Its alternatives that need a line start (the others are looked for as plain substrings),
# at the start of the text and after a line break: a literal `\n` the engine finds fast.
LINE_CODE_HINT_RE = re.compile(r" {0,3}\[[^\]\n]+\]:|[ >*+\-\d.)]*?(?: {4}|\t)")
LINE_CODE_HINT_NL_RE = re.compile(r"\n(?: {0,3}\[[^\]\n]+\]:|[ >*+\-\d.)]*?(?: {4}|\t))")
FENCE_LINE_RE = re.compile(r"^(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
BOUNDARY_RE = re.compile(r"\n\n(?=\S)")
INDENTED_FENCE_RE = re.compile(r"^[ \t]+(?:`{3,}|~{3,})|^ {0,3}>.*(?:`|~~~)", re.MULTILINE)
# The same after a line break (a literal start: found fast); INDENTED_FENCE_RE.match the first line.
INDENTED_FENCE_NL_RE = re.compile(r"\n(?:[ \t]+(?:`{3,}|~{3,})| {0,3}>.*(?:`|~~~))")



def body_chunks(body: str) -> list[tuple[int, int]]:
    """Offsets of pieces of the body that mistune reads the same alone as together.

    A chunk ends at an empty line followed by a line that starts in column 0, outside a
    fenced block: such a line cannot continue a list item, a quote, a paragraph or an
    indented code block. An HTML block (which may span blank lines: `html_may_start`), tabs,
    and fences that are indented or have backticks in their info string are rare and subtle:
    then the whole body is one chunk.
    """
    whole = [(0, len(body))]
    if "\t" in body or has_indented_fence(body):
        return whole
    fences: list[tuple[int, int]] = []
    opener: re.Match[str] | None = None
    for m in fence_lines(body):
        marker, rest = m.group(1), m.group(2)
        if opener is None:
            if marker[0] == "`" and "`" in rest:
                return whole
            opener = m
        elif marker[0] == opener.group(1)[0] and len(marker) >= len(opener.group(1)) and not rest.strip(" "):
            fences.append((opener.start(), m.end()))
            opener = None
    if opener is not None:
        fences.append((opener.start(), len(body)))
    if "<" in body and html_may_start(body, fences):
        return whole
    bounds = [0]
    fence_index = 0
    for m in BOUNDARY_RE.finditer(body):
        pos = m.end()
        while fence_index < len(fences) and fences[fence_index][1] < pos:
            fence_index += 1
        if fence_index < len(fences) and fences[fence_index][0] < pos <= fences[fence_index][1]:
            continue
        bounds.append(pos)
    bounds.append(len(body))
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1) if bounds[i] < bounds[i + 1]]


# A `<` with only blanks, quote and list marks before it on its line: where an HTML block
# may start (ASCII digits: a list's number is one).
HTML_START_RE = re.compile(r"^[ >*+\-0-9.)]*<", re.MULTILINE)


def html_may_start(body: str, fences: list[tuple[int, int]]) -> bool:
    """Whether an HTML block may start outside the fenced blocks (`fences`: each from its
    opening line's start to its closing line's end). Raw HTML may run on past an empty line
    only as a block, and a block starts a line (after quote and list marks); a `<` anywhere
    else is inline, in a paragraph that ends at an empty line, or code (a shell command's
    `<placeholder>` in a fenced block made the whole body mistune's)."""
    return any(
        not any(start <= m.end() - 1 < end for start, end in fences) for m in HTML_START_RE.finditer(body)
    )


# A line break before a fence's first three characters: a literal start, found fast.
FENCE_START_NL_RE = re.compile(r"\n(?=```|~~~)")


def fence_lines(body: str) -> Iterator[re.Match[str]]:
    """FENCE_LINE_RE.finditer(body), found faster: a match is one whole line, so it is
    matched where a line starts with three backticks or tildes (MULTILINE `^` made the engine
    try every position of the body)."""
    match = FENCE_LINE_RE.match
    if body.startswith(("```", "~~~")) and (first := match(body)) is not None:
        yield first
    for m in FENCE_START_NL_RE.finditer(body):
        found = match(body, m.end())
        if found is not None:
            yield found


def has_indented_fence(body: str) -> bool:
    """INDENTED_FENCE_RE.search(body) is not None, found faster."""
    return INDENTED_FENCE_RE.match(body) is not None or INDENTED_FENCE_NL_RE.search(body) is not None


def has_code_hint(text: str) -> bool:
    """CODE_HINT_RE.search(text) is not None, with its plain substrings found as such."""
    return (
        "`" in text or "~~~" in text or "<" in text or "\\" in text or "](" in text
        or LINE_CODE_HINT_RE.match(text) is not None or LINE_CODE_HINT_NL_RE.search(text) is not None
    )
