"""Links that name nothing: `[[]]`, `[[|label]]`, `[[#]]`. Pure.

brain.parse.note keeps only links with a target or an anchor. A link with neither is not
skipped silently: it is an `empty-link` problem (a warning: no note is misread and nothing
in the graph is wrong, but the writer meant to link something, and Obsidian shows a link
that goes nowhere). Like links, they count only outside code and math, which mistune and
brain.parse.spans.math decide; notes without one never reach mistune here.
"""

from __future__ import annotations

import re
from typing import Any

from brain.model import Problem, Severity
from brain.parse.mistune_ast import tokens as markdown_tokens
from brain.parse.spans.math import outside_math

# Only empty links, and starting with the literal `[[` so that the scan of a note (every
# note has links) is a fast literal search; a `!` before it is checked after.
EMPTY_RE = re.compile(r"\[\[[ \t]*#?[ \t]*(?:\\?\|([^\[\]\n]*))?\]\]")
MARKER_RE = re.compile("\ue004(\\d+)\ue005")
MAX_REPORTED = 100  # per note: the first hundred say all there is to say


def empty_link_problems(body: str, body_line: int, path: str) -> list[Problem]:
    """An `empty-link` warning for each link in `body` that names no note and no heading."""
    if "[[" not in body:
        return []
    found = [m for m in EMPTY_RE.finditer(body) if not _escaped(body, _start(m))]
    if not found:
        return []
    if "$" in body:
        keep = outside_math(body, [_start(m) for m in found])
        found = [m for m, kept in zip(found, keep, strict=True) if kept]
    live = _in_text(body, found)
    problems: list[Problem] = []
    for index in sorted(live)[:MAX_REPORTED]:
        m = found[index]
        start = _start(m)
        line = body.count("\n", 0, start)
        column = start - (body.rfind("\n", 0, start) + 1) + 1
        problems.append(_problem(body[start : m.end()], m.group(1), path, line + body_line, column))
    return problems


def _start(m: re.Match[str]) -> int:
    """Where the link starts: at its `!` when it is an embed."""
    start = m.start()
    return start - 1 if start > 0 and m.string[start - 1] == "!" else start


def _problem(raw: str, label: str | None, path: str, line: int, column: int) -> Problem:
    label = label.strip() if label else ""
    if label:
        fix = (
            f"write the note's name before the `|` (`[[Note|{label}]]`), "
            f"or replace the link by its label `{label}`"
        )
    elif "#" in raw:
        fix = "name a heading after the `#` (`[[#Heading]]`, `[[Note#Heading]]`) or delete the link"
    else:
        fix = "write a note's name between the brackets (`[[Note]]`) or delete the empty link"
    return Problem(
        code="empty-link",
        severity=Severity.WARNING,
        path=path,
        message=f"`{raw}` links to nothing: it names no note and no heading",
        line=line,
        column=column,
        length=len(raw),
        fix=fix,
    )


def _escaped(text: str, pos: int) -> bool:
    """An odd run of backslashes right before `pos` (`\\[[|x]]` is text)."""
    before = text[max(0, pos - 32) : pos]
    return (len(before) - len(before.rstrip("\\"))) % 2 == 1


def _in_text(body: str, found: list[re.Match[str]]) -> set[int]:
    """Indexes of the candidates whose `[[` mistune reads as text (not code, HTML or a URL)."""
    pieces: list[str] = []
    last = 0
    for index, m in enumerate(found):
        inside = m.start() + 2
        pieces += [body[last:inside], f"\ue004{index}\ue005"]
        last = inside
    pieces.append(body[last:])
    tokens = markdown_tokens("".join(pieces))
    live: set[int] = set()
    for token in tokens:
        _walk(token, live)
    return live


def _walk(token: Any, live: set[int]) -> None:
    if not isinstance(token, dict):
        return
    if token.get("type") == "text":
        live.update(int(i) for i in MARKER_RE.findall(str(token.get("raw", ""))))
        return
    for child in token.get("children") or ():
        _walk(child, live)
    if token.get("type") == "link":
        url = str((token.get("attrs") or {}).get("url", ""))
        live.difference_update(int(i) for i in MARKER_RE.findall(url))
