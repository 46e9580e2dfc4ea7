"""The native mention candidates (native/src/mentions.rs, through brain.parse.mentions.
candidates) are exactly the Python reference's (`candidates_py`): on random bodies built from
the pieces where the two could part (non-ASCII word characters, case that changes length,
separators, digits, underscores), on the unit table's bodies and on the benchmark's notes.
And `find_mentions` answers the same with the twin as without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.workload import generate
from brain.parse import mentions
from brain.parse.mentions import MentionTarget, NameIndex, candidates, candidates_py, find_mentions
from tests.unit.test_mentions import CASES, index

pytestmark = pytest.mark.skipif(mentions.native_table_available() is False,
                                reason="the native scanner is not built with mention_candidates (cargo)")

NAMES = ["Project Alpha", "alpha proj", "beta", "gamma", "deploy guide", "deploy-howto", "été plan",
         "東京 region", "straße", "x_y", "v2 notes", "İstanbul", "ǅemal", "a1 b2 c3", "beta beta gamma",
         "naïve", "ﬁle", "Σίσυφος"]
PIECES = ["project", "Project", "PROJECT", "alpha", "proj", "beta", "gamma", "deploy", "guide", "howto",
          "été", "ÉTÉ", "plan", "東京", "region", "straße", "STRASSE", "x", "_", "y", "v2", "notes",
          "İstanbul",
          "istanbul", "ǅemal", "Ǆemal", "a1", "b2", "c3", "naïve", "nai\u0308ve", "ﬁle", "file", "Σίσυφος",
          "ΣΊΣΥΦΟΣ", "١٢", "Ⅻ", "\u0301", " ", "  ", "-", "--", "\n", ",", ".", "[[", "]]", "`", "\u00a0",
          "\u3000", "🚀", "é", "\t"]


def table() -> NameIndex:
    return NameIndex([(n, MentionTarget(f"memory:shared/{n}", n, 1)) for n in NAMES])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
@example(["İstanbul", " ", "beta"])
@example(["Σίσυφος", " ", "ΣΊΣΥΦΟΣ"])
@example(["nai\u0308ve", " ", "naïve"])
def test_native_candidates_equal_python(pieces: list[str]) -> None:
    body = "".join(pieces)
    idx = table()
    assert candidates(body, idx) == candidates_py(body, idx)


@pytest.mark.parametrize("body", [c[1] for c in CASES])
def test_native_equal_on_the_table(body: str) -> None:
    assert candidates(body, index()) == candidates_py(body, index())


def test_native_equal_on_benchmark_notes(tmp_path: Path) -> None:
    generate(tmp_path / "ws", 300)
    notes = sorted((tmp_path / "ws" / "memory").rglob("*.md"))
    names = NameIndex([(p.stem, MentionTarget(str(p), p.stem, 0)) for p in notes])
    for path in notes:
        body = path.read_text(encoding="utf-8")
        assert candidates(body, names) == candidates_py(body, names), path
        with_twin = find_mentions(body, 1, names, source_id=str(path))
        saved, mentions._native_table = mentions._native_table, None
        try:
            assert find_mentions(body, 1, names, source_id=str(path)) == with_twin, path
        finally:
            mentions._native_table = saved
