"""A note's budget: past its size, link count or nesting, brain stops reading it and says so.

A note on disk or in an editor's buffer is whatever someone put there: a 25 MB nested list
took 80 s to check, a 20 MB note 834 MB of memory, a note of 450,000 links made every
`backlinks` answer 7 MB. The budgets (brain/budgets.py, the operator's) are enforced here,
before either scanner (the Python parser or the Rust one in native/) sees the text, so both
agree by construction:

- bytes (`too-large`): the note stays a node (path, size, hash) but nothing of its text is
  read: no frontmatter, links, headings, blocks, body or rule. The check is a length (or, for
  a file, a stat) before the text is read.
- nesting (`too-deep`): its frontmatter is read, its body is not scanned for links,
  headings or blocks. A cheap line scan finds it.
- links (`too-many-links`): the first `max_links` links are kept, the rest dropped.

Each is one error on the note naming the file, the budget, its variable and the fix.
"""

from __future__ import annotations

import functools
import re

from brain.budgets import NOTE_BYTES_ENV, NOTE_DEPTH_ENV, NOTE_LINKS_ENV, NoteBudget, mib
from brain.model import Problem, Severity, WikiLink

TOO_LARGE = "too-large"
TOO_DEEP = "too-deep"
TOO_MANY_LINKS = "too-many-links"

# A line's container prefix: quote markers, list markers and indentation.
_PREFIX_CHARS = r"[ \t>*+\-\d.)]"
_MARKER_RE = re.compile(r">|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])")


def text_bytes(text: str, limit: int) -> int:
    """The UTF-8 size of `text` where it matters (exact up to `limit`, else over it) without
    encoding a text that is plainly under or over."""
    if len(text) > limit or len(text) * 4 <= limit:
        return len(text)
    return len(text.encode("utf-8", errors="surrogatepass"))


def too_large(path: str, size: int, budget: NoteBudget) -> Problem:
    return Problem(
        TOO_LARGE, Severity.ERROR, path,
        f"the note is {mib(size)}, over the budget of {mib(budget.max_bytes)} a note may have "
        f"({NOTE_BYTES_ENV}): it is kept as a node (path, size, hash) but not read, so its "
        "links, headings, description and search text are missing",
        line=1, column=1,
        fix=f"split it into notes of one topic each, or the operator raises {NOTE_BYTES_ENV}",
    )


def depth_of(body: str, budget: NoteBudget) -> tuple[int, int] | None:
    """(line in the body, 0-based; depth) of the first line nested past the budget, or None.

    Depth counts the quote and list markers before a line's text, and every two columns of
    indentation (a nested list item is indented at least that much). A line can only be that
    deep with at least `max_depth` prefix characters, so one regex search rules out
    every ordinary note. The search is for a line break and the prefix, in the body behind
    one more break: a pattern that starts with a literal is tried only where the literal is
    (`^` with MULTILINE was tried at every character: 3.5 times the CPU, 5% of a parse
    helper's). A match's start in that text is its line's start in the body."""
    wide = _wide(budget.max_depth)
    for found in wide.finditer("\n" + body):
        prefix = found.group()[1:]
        indent = len(prefix) - len(prefix.lstrip(" \t"))
        depth = len(_MARKER_RE.findall(prefix)) + indent // 2
        if depth > budget.max_depth:
            return body.count("\n", 0, found.start()), depth
    return None


@functools.lru_cache(maxsize=4)
def _wide(depth: int) -> re.Pattern[str]:
    """A line break, then `depth` or more prefix characters."""
    return re.compile(rf"\n{_PREFIX_CHARS}{{{depth},}}")


def too_deep(path: str, line: int, depth: int, budget: NoteBudget) -> Problem:
    return Problem(
        TOO_DEEP, Severity.ERROR, path,
        f"line {line} is nested {depth:,} levels deep (lists and quotes), over the budget of "
        f"{budget.max_depth:,} ({NOTE_DEPTH_ENV}): the note's links, headings and blocks are not read",
        line=line, column=1,
        fix="flatten the nesting: no note needs lists or quotes that deep",
    )


def capped_links(
    links: tuple[WikiLink, ...], path: str, budget: NoteBudget
) -> tuple[tuple[WikiLink, ...], Problem | None]:
    """The first `max_links` links, and the problem saying the rest were dropped."""
    if len(links) <= budget.max_links:
        return links, None
    first_dropped = links[budget.max_links]
    return links[: budget.max_links], Problem(
        TOO_MANY_LINKS, Severity.ERROR, path,
        f"the note has {len(links):,} links, over the budget of {budget.max_links:,} "
        f"({NOTE_LINKS_ENV}): only the first {budget.max_links:,} are in the graph; the rest, "
        f"from line {first_dropped.line} on, are not",
        line=first_dropped.line, column=first_dropped.column,
        fix="split it into several notes, or link an index note that links the rest",
    )
