"""`secret_normalize.visible` equals its plain reading: NFKC character by character, format
characters dropped, each view character mapped to the line's character it came from.

The fast path copies ASCII runs whole (issue 43: a long line with one `…` or `µ` cost 0.2 ms
a line in the per-character loop); this holds it to the loop it replaced."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.parse.secrets.normalize import visible


def reference(line: str) -> tuple[str, list[int] | None]:
    if line.isascii() or (unicodedata.is_normalized("NFKC", line) and
                          not any(unicodedata.category(c) == "Cf" for c in line)):
        return line, None
    out: list[str] = []
    where: list[int] = []
    for index, char in enumerate(line):
        if unicodedata.category(char) == "Cf":
            continue
        folded = unicodedata.normalize("NFKC", char) if not char.isascii() else char
        out.append(folded)
        where.extend([index] * len(folded))
    where.append(len(line))
    return "".join(out), where


SAMPLES = [
    "p95 went from 300 µs to 2 ms…",
    "ℹ️ token = ｇｈｐ＿abc",
    "zero\u200bwidth soft\u00adhyphen ﬁle ½ ²",
    "東京（とうきょう）：ok",
    "\ufeffbom at the start",
    "e\u0301 combining, and Kelvin \u212a",
    "ascii only",
    "",
]


def test_visible_equals_the_per_character_reading_on_samples() -> None:
    for line in SAMPLES:
        assert visible(line) == reference(line), line


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    [*"abc =:_-/+\\`", "µ", "…", "ℹ", "\ufe0f", "\u200b", "\u00ad", "ｇ", "＿", "\u00e9", "\u0301",
                              "ﬁ", "½", "東", "（", "\ufeff", "\u212a", "ß", "\U0001f680"]), max_size=60))
def test_visible_equals_the_per_character_reading(line: str) -> None:
    assert visible(line) == reference(line)
