"""Applying one `didChange`: its content changes, in time linear in what they touch. Pure.

pygls applies each incremental change by re-splitting and re-joining the whole document, so
one notification of 20,000 small changes to a modest note took minutes (and the server was
killed by the editor). Here the document is a list of lines while the changes are applied:
a change costs the lines it touches plus a list splice. What the changes copy is still
bounded (MAX_WORK characters), because 20,000 changes to one very long line copy that line
each time; a notification over the budget is refused whole, and the caller says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

from brain.lsp.features.positions import Encoding, from_client

MAX_WORK = 256 * 1024 * 1024  # characters copied while applying one notification
_LINE_RE = re.compile(r"[^\r\n]*+(?:\r\n|\r|\n)|[^\r\n]++\Z")  # LSP's line ends only


class ChangeRefused(ValueError):
    """A notification that cannot be applied: over budget, or a range that ends before it starts."""


def split_keepends(text: str) -> list[str]:
    """Lines with their ends, split at `\n`, `\r\n` and `\r` only (not str.splitlines's others)."""
    if "\r" not in text:  # the common case, without the regex engine
        parts = text.split("\n")
        out = [part + "\n" for part in parts[:-1]]
        if parts[-1]:
            out.append(parts[-1])
        return out
    found: list[str] = _LINE_RE.findall(text)
    return found


def _column(line: str, character: int, encoding: Encoding) -> int:
    """A client column on `line` (which may end in its line end) -> code point offset in it."""
    end = len(line) - (2 if line.endswith("\r\n") else 1 if line.endswith(("\n", "\r")) else 0)
    if encoding == "utf-32" or line.isascii():  # no copy of a long line for the common case
        return max(0, min(character, end))
    return from_client(line[:end], character, encoding)


def apply_changes(
    text: str, changes: Sequence[types.TextDocumentContentChangeEvent], encoding: Encoding,
    max_work: int = MAX_WORK,
) -> str:
    """`text` with every change applied in order (a change without a range replaces it all)."""
    lines = split_keepends(text)
    work = 0
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            lines = split_keepends(change.text)
            work += len(change.text)
        else:
            start, end = change.range.start, change.range.end
            if (end.line, end.character) < (start.line, start.character):
                raise ChangeRefused(f"a change whose range ends ({end.line}:{end.character}) "
                                    f"before it starts ({start.line}:{start.character})")
            first, last = min(start.line, len(lines)), min(end.line, len(lines))
            head = lines[first] if first < len(lines) else ""
            tail = lines[last] if last < len(lines) else ""
            merged = (
                head[: _column(head, start.character, encoding)]
                + change.text
                + tail[_column(tail, end.character, encoding) :]
            )
            work += len(merged)
            one_line = merged.find("\n") in (-1, len(merged) - 1) and "\r" not in merged
            lines[first : last + 1] = [merged] if one_line and merged else split_keepends(merged)
        if work > max_work:
            raise ChangeRefused(
                f"{len(changes):,} changes that copy more than {max_work:,} characters"
            )
    return "".join(lines)
