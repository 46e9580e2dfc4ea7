"""Columns in code points (what brain's parser counts) <-> LSP columns in the negotiated encoding.

brain counts columns in characters (code points); an LSP client counts UTF-16 code units by
default, or UTF-8 bytes / UTF-32 code points when both sides agree on it at initialize. Every
position that crosses the wire goes through these functions, with the text of its line.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from lsprotocol import types

Encoding = Literal["utf-8", "utf-16", "utf-32"]
ENCODINGS: tuple[Encoding, ...] = ("utf-8", "utf-16", "utf-32")


def encoding_of(kind: types.PositionEncodingKind | str | None) -> Encoding:
    value = kind.value if isinstance(kind, types.PositionEncodingKind) else kind
    for encoding in ENCODINGS:
        if value == encoding:
            return encoding
    return "utf-16"


def char_units(char: str, encoding: Encoding) -> int:
    """Code units of one character in `encoding`."""
    if encoding == "utf-32":
        return 1
    point = ord(char)
    if encoding == "utf-16":
        return 2 if point > 0xFFFF else 1
    if point < 0x80:
        return 1
    if point < 0x800:
        return 2
    return 3 if point < 0x10000 else 4


def units(text: str, encoding: Encoding) -> int:
    """Length of `text` in code units of `encoding`."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-16":
        return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)
    return len(text.encode("utf-8", errors="surrogatepass"))


def to_client(line: str, column: int, encoding: Encoding) -> int:
    """0-based code point column on `line` -> client column (clamped to the line)."""
    column = max(0, min(column, len(line)))
    return units(line[:column], encoding)


def from_client(line: str, character: int, encoding: Encoding) -> int:
    """Client column -> 0-based code point column; a column inside a character snaps to its start."""
    if character <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(character, len(line))
    used = 0
    for index, char in enumerate(line):
        used += char_units(char, encoding)
        if used > character:
            return index
    return len(line)


def split_lines(text: str) -> list[str]:
    """Lines as LSP counts them (`\\n`, `\\r\\n` or `\\r` end a line), without their ends."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


class LineIndex:
    """The lines of one text, to convert positions within it."""

    __slots__ = ("encoding", "lines")

    def __init__(self, lines: Sequence[str], encoding: Encoding) -> None:
        self.lines = lines
        self.encoding = encoding

    @classmethod
    def of(cls, text: str, encoding: Encoding) -> LineIndex:
        return cls(split_lines(text), encoding)

    def line(self, index: int) -> str:
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """0-based line and code point column -> LSP position."""
        return types.Position(line, to_client(self.line(line), column, self.encoding))

    def span(self, line: int, start: int, end: int) -> types.Range:
        """Code point columns [start, end) on one 0-based line -> LSP range."""
        return types.Range(self.position(line, start), self.position(line, end))

    def whole_line(self, line: int) -> types.Range:
        text = self.line(line)
        start = len(text) - len(text.lstrip())
        return self.span(line, start, len(text.rstrip()) or len(text))

    def column(self, position: types.Position) -> int:
        """LSP position -> 0-based code point column on its line."""
        return from_client(self.line(position.line), position.character, self.encoding)
