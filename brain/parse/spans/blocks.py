"""Block ids: `^id` at the end of a paragraph, list item or quote names that block. Pure.

Obsidian links a block with `[[Note#^id]]`. The id is written after a space at the end of
the block's last line (`text ^id`), or alone on the line after a list, quote or table with a
blank line before it, where it names that whole block. Ids are basic Latin letters, digits
and dashes. A `^id` in code, in math or in the middle of a paragraph is text.

Candidates are found with a regular expression (exact positions) and confirmed with
mistune, like wikilinks in brain.parse.note: a marker goes before each candidate, and only a
marker that ends up at the very end of a paragraph's (or list item's) own text is a block
id. Notes without a `^` at a line end never reach mistune.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from brain.model import Block
from brain.parse.mistune_ast import tokens as markdown_tokens
from brain.parse.spans.math import math_ranges

CANDIDATE_RE = re.compile(r"(?:^|(?<=[ \t]))\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
ALONE_RE = re.compile(r"^[ \t]*(?:>[ \t]*)*\^[A-Za-z0-9-]+[ \t]*$")
BLANK_RE = re.compile(r"^[ \t>]*$")
LIST_ITEM_RE = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
STOP_BEFORE_RE = re.compile(r"^ {0,3}(?:>[ \t]*)*(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,}|(?:=+|-+)[ \t]*$)")
MARK_RE = re.compile("\ue002(\\d+)\ue003\\^[A-Za-z0-9-]+[ \t]*$")
NEWLINE_RE = re.compile("\n")
MAX_BLOCKS = 10_000  # a note is read whole; this bounds the ids it may declare


def scan_blocks(body: str, body_line: int) -> tuple[Block, ...]:
    """The block ids of a markdown body whose first line is `body_line`, in order."""
    if "^" not in body:
        return ()
    candidates = list(CANDIDATE_RE.finditer(body))[:MAX_BLOCKS]
    if not candidates:
        return ()
    if "$" in body:
        spans = math_ranges(body)
        candidates = [m for m in candidates if not any(s <= m.start() < e for s, e in spans)]
    live = _confirmed(body, candidates)
    lines = body.split("\n")
    starts = [0, *(m.end() for m in NEWLINE_RE.finditer(body))]
    out: list[Block] = []
    seen: set[str] = set()
    for index in sorted(live):
        m = candidates[index]
        block_id = m.group(1)
        if block_id.casefold() in seen:
            continue  # Obsidian links the first block of an id
        seen.add(block_id.casefold())
        line = bisect.bisect_right(starts, m.start()) - 1
        out.append(
            Block(
                id=block_id,
                line=line + body_line,
                column=m.start() - starts[line] + 1,
                start_line=_block_start(lines, line) + body_line,
            )
        )
    return tuple(out)


def _confirmed(body: str, candidates: list[re.Match[str]]) -> set[int]:
    """Indexes of the candidates mistune reads as the end of a paragraph or list item text."""
    pieces: list[str] = []
    last = 0
    for index, m in enumerate(candidates):
        caret = m.start()
        pieces.append(body[last:caret])
        pieces.append(f"\ue002{index}\ue003")
        last = caret
    pieces.append(body[last:])
    tokens = markdown_tokens("".join(pieces))
    live: set[int] = set()
    for token in _blocks(tokens):
        children = [c for c in token.get("children") or () if isinstance(c, dict)]
        if children and children[-1].get("type") == "text":
            found = MARK_RE.search(str(children[-1].get("raw", "")))
            if found is not None:
                live.add(int(found.group(1)))
    return live


def _blocks(tokens: list[Any]) -> Iterator[dict[str, Any]]:
    for token in tokens:
        if not isinstance(token, dict):
            continue
        if token.get("type") in ("paragraph", "block_text"):
            yield token
        elif token.get("type") in ("list", "list_item", "block_quote"):
            yield from _blocks(list(token.get("children") or ()))


def _block_start(lines: list[str], index: int) -> int:
    """0-based first line of the block a `^id` on line `index` names."""
    if ALONE_RE.match(lines[index]) and index > 0 and BLANK_RE.match(lines[index - 1]):
        # Alone after a blank line: it names the whole block (list, quote, table) before.
        before = index - 1
        while before >= 0 and BLANK_RE.match(lines[before]):
            before -= 1
        if before < 0:
            return index
        while before > 0 and not BLANK_RE.match(lines[before - 1]):
            before -= 1
        return before
    start = index
    while start > 0 and not LIST_ITEM_RE.match(lines[start]):
        above = lines[start - 1]
        if BLANK_RE.match(above) or STOP_BEFORE_RE.match(above):
            break
        start -= 1
    return start


def block_text(body: str, block_id: str) -> str | None:
    """The text of the block `^block_id` names in `body` (its lines, without the id), or None."""
    wanted = re.compile(rf"(?:^|(?<=[ \t]))\^{re.escape(block_id)}[ \t]*$", re.MULTILINE | re.IGNORECASE)
    found = wanted.search(body)
    if found is None:
        return None
    lines = body.split("\n")
    line = body.count("\n", 0, found.start())
    start = _block_start(lines, line)
    text = lines[start : line + 1]
    text[-1] = text[-1][: found.start() - (body.rfind("\n", 0, found.start()) + 1)].rstrip()
    return "\n".join(text).strip("\n")
