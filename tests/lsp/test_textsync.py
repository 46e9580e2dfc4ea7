"""didChange application (brain.lsp.textsync) and id recovery for unparseable messages. Tables."""

from __future__ import annotations

import pytest
from lsprotocol import types

from brain.lsp.textsync import ChangeRefused, apply_changes
from brain.parse.safejson import recover_id

P, R = types.Position, types.Range


def edit(sl: int, sc: int, el: int, ec: int, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=R(P(sl, sc), P(el, ec)), text=text)


@pytest.mark.parametrize(
    ("text", "changes", "expected"),
    [
        ("ab\ncd\n", [edit(0, 1, 1, 1, "X")], "aXd\n"),
        ("ab\ncd", [edit(1, 2, 1, 2, "!")], "ab\ncd!"),
        ("ab", [edit(5, 0, 5, 0, "\nz")], "ab\nz"),  # past the end: appended
        ("ab\r\ncd", [edit(0, 9, 1, 0, "-")], "ab-cd"),  # a column past the line: its end
        ("ab\ncd", [edit(0, 0, 0, 0, "1\n2\n")], "1\n2\nab\ncd"),
        ("x", [types.TextDocumentContentChangeWholeDocument(text="new\n"), edit(1, 0, 1, 0, "y")], "new\ny"),
        ("😀b\n", [edit(0, 2, 0, 3, "B")], "😀B\n"),  # UTF-16: the emoji is two units
        ("a\u2028b\n", [edit(0, 3, 0, 3, "!")], "a\u2028b!\n"),  # U+2028 is no line end in LSP
    ],
)
def test_changes_apply_in_order(text: str, changes: list[types.TextDocumentContentChangeEvent],
                                expected: str) -> None:
    assert apply_changes(text, changes, "utf-16") == expected


def test_many_changes_match_applying_them_one_by_one() -> None:
    changes = [edit(i % 3, i % 5, i % 3, i % 5 + 1, str(i % 10)) for i in range(300)]
    text = "hello world\nsecond line\nthird\n"
    slow = text
    for change in changes:
        slow = apply_changes(slow, [change], "utf-16")
    assert apply_changes(text, changes, "utf-16") == slow


def test_a_range_that_ends_before_it_starts_and_the_budget_are_refused() -> None:
    with pytest.raises(ChangeRefused, match="ends"):
        apply_changes("abc", [edit(0, 2, 0, 1, "x")], "utf-16")
    with pytest.raises(ChangeRefused, match="more than 100"):
        apply_changes("a" * 60, [edit(0, 0, 0, 0, "b"), edit(0, 0, 0, 0, "c")], "utf-16", max_work=100)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": [[[', 7),
        (b'{"id": "abc", "method": "x"', "abc"),
        (b'{"method": "x", "params": ' + b"[" * 10_000 + b', "id": 12}', 12),
        (b"garbage", None),
        (b'{"id": {"no": 1}}', None),
    ],
)
def test_recover_id(body: bytes, expected: int | str | None) -> None:
    assert recover_id(body) == expected
