"""Views of a line that undo the disguises of a secret, with a map back to the line. Pure.

A pattern scan of the raw text misses a token written in full-width letters (`ｇｈｐ＿…`),
broken by a zero-width space or a soft hyphen, split over two lines, or base64-encoded. Each
view here is a string to scan plus, for every character of it, the index in the original
line it came from, so a hit is still reported at its true line and column:

- `visible`: NFKC (full-width and other compatibility forms become ASCII) without the
  invisible format characters (zero-width space/joiners, soft hyphen, word joiner, BOM ...);
- `base64_runs`: runs of 24+ base64 characters that decode to mostly printable UTF-8 text.

ASCII lines (nearly all) skip the first view at no cost; hashes and binary blobs decode to
non-text and are skipped by the second, which keeps false positives down.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
# Unicode's format characters (category Cf) that turn up in text: a quick test before the
# per-character pass, which then drops every Cf character.
_FORMAT = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
MIN_PRINTABLE = 0.9


def visible(line: str) -> tuple[str, list[int] | None]:
    """(NFKC of `line` without invisible characters, original index of each character + end).

    The map is None when the view is the line itself (ASCII, or already NFKC without format
    characters), which is nearly always: those lines cost two C-level checks.
    """
    if line.isascii() or (unicodedata.is_normalized("NFKC", line) and not _FORMAT.search(line)):
        return line, None
    # Character by character where it is not ASCII; each ASCII run (no ASCII character is a
    # format character or changes under NFKC) is copied whole and mapped by one range: a
    # loop over every character of a long line with one `…` or `µ` in it was 0.2 ms a line.
    out: list[str] = []
    where: list[int] = []
    last = 0
    for m in _NON_ASCII.finditer(line):
        index = m.start()
        if index > last:
            out.append(line[last:index])
            where.extend(range(last, index))
        last = index + 1
        char = m.group()
        if unicodedata.category(char) == "Cf":  # format characters: ZWSP, ZWJ, SHY, WJ, BOM ...
            continue
        folded = unicodedata.normalize("NFKC", char)
        out.append(folded)
        where.extend([index] * len(folded))
    out.append(line[last:])
    where.extend(range(last, len(line)))
    where.append(len(line))
    return "".join(out), where


def back(where: list[int] | None, index: int) -> int:
    """The index in the original line of view index `index` (an end index maps to an end)."""
    return index if where is None else where[index]


def base64_runs(line: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of each run in `line` that is likely base64 of text."""
    for m in _BASE64_RUN.finditer(line):
        decoded = _decode(m.group(0))
        if decoded is not None:
            yield m.start(), m.end(), decoded


def _decode(run: str) -> str | None:
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    altchars = b"-_" if ("-" in body or "_" in body) else None
    if altchars is not None and ("+" in body or "/" in body):
        return None  # one alphabet or the other, not both
    try:
        raw = base64.b64decode(padded, altchars=altchars, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    return text if text and printable >= MIN_PRINTABLE * len(text) else None
