"""Code point columns <-> client columns in each position encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types

from brain.lsp.features.positions import LineIndex, encoding_of, from_client, split_lines, to_client, units

LINE = "a😀b漢e\u0301[[x]]"  # emoji (outside the BMP), CJK, e + combining acute, then a link
# code points: a=0 😀=1 b=2 漢=3 e=4 ◌́=5 [=6


@pytest.mark.parametrize(
    ("column", "utf8", "utf16", "utf32"),
    [
        (0, 0, 0, 0),
        (1, 1, 1, 1),  # before the emoji
        (2, 5, 3, 2),  # after the emoji: 4 bytes, 2 UTF-16 units, 1 code point
        (3, 6, 4, 3),
        (4, 9, 5, 4),  # after 漢: 3 bytes, 1 unit
        (5, 10, 6, 5),
        (6, 12, 7, 6),  # the combining mark is its own code point (2 bytes)
        (11, 17, 12, 11),  # end of line
        (99, 17, 12, 11),  # past the end: clamped
    ],
)
def test_to_client(column: int, utf8: int, utf16: int, utf32: int) -> None:
    assert to_client(LINE, column, "utf-8") == utf8
    assert to_client(LINE, column, "utf-16") == utf16
    assert to_client(LINE, column, "utf-32") == utf32


@pytest.mark.parametrize(
    ("encoding", "character", "column"),
    [
        ("utf-16", 0, 0),
        ("utf-16", 1, 1),
        ("utf-16", 2, 1),  # inside the surrogate pair: snaps to the emoji's start
        ("utf-16", 3, 2),
        ("utf-16", 7, 6),
        ("utf-16", 500, 11),
        ("utf-8", 3, 1),  # inside the emoji's 4 bytes
        ("utf-8", 5, 2),
        ("utf-8", 8, 3),  # inside 漢
        ("utf-8", 12, 6),
        ("utf-32", 6, 6),
        ("utf-32", -1, 0),
    ],
)
def test_from_client(encoding: str, character: int, column: int) -> None:
    assert from_client(LINE, character, encoding) == column  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_round_trip_every_column(encoding: str) -> None:
    for column in range(len(LINE) + 1):
        assert from_client(LINE, to_client(LINE, column, encoding), encoding) == column  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "utf8", "utf16", "utf32"),
    [("", 0, 0, 0), ("abc", 3, 3, 3), ("😀", 4, 2, 1), ("漢字", 6, 2, 2), ("e\u0301", 3, 2, 2)],
)
def test_units(text: str, utf8: int, utf16: int, utf32: int) -> None:
    assert (units(text, "utf-8"), units(text, "utf-16"), units(text, "utf-32")) == (utf8, utf16, utf32)


def test_split_lines_treats_every_line_end_alike() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\n") == ["a", ""]


def test_line_index_span_and_column() -> None:
    index = LineIndex.of("x\n" + LINE, "utf-16")
    assert index.span(1, 6, 11) == types.Range(types.Position(1, 7), types.Position(1, 12))
    assert index.column(types.Position(1, 7)) == 6
    assert index.whole_line(1) == types.Range(types.Position(1, 0), types.Position(1, 12))
    assert index.position(9, 3) == types.Position(9, 0)  # a line past the end is empty


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (types.PositionEncodingKind.Utf8, "utf-8"),
        ("utf-32", "utf-32"),
        (None, "utf-16"),
        ("utf-7", "utf-16"),
    ],
)
def test_encoding_of(kind: types.PositionEncodingKind | str | None, expected: str) -> None:
    assert encoding_of(kind) == expected
