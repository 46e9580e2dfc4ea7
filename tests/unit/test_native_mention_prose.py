"""The native mention seed (native/src/mention_prose.rs: the candidates and, for most, whether
they are prose, in one pass) gives exactly the seeds of the Python reference (`seed_of` with
the twin off: `_listed_py`, then `_prose_only` on every candidate), and `find_mentions`, which
lists its candidates with the same twin, its answer without it: on a table of the places
where prose is decided (code spans, fenced and indented code, markdown and wikilinks, URLs,
math, HTML, escapes, non-ASCII text), on random bodies built from those pieces, and on the
benchmark's notes of both profiles. The table also says what the twin decides itself, so a
twin that left everything to Python (correct, and as slow as before) fails too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.workload import generate
from brain.parse import mention_seeds, mentions
from brain.parse.mention_seeds import Seed, Vocabulary, seed_of
from brain.parse.mentions import ASK, NOT_PROSE, PROSE, Mention, MentionTarget, NameIndex, find_mentions

pytestmark = pytest.mark.skipif(mention_seeds._native_seed is None,
                                reason="the native scanner is not built with mention_seed_candidates (cargo)")

NAMES = ["deploy guide", "beta", "release plan", "x_y", "été plan", "naïve", "東京 region", "notes",
         "[[odd]] name"]
VOCABULARY = Vocabulary(NAMES)
PLAIN = Vocabulary([n for n in NAMES if "[" not in n])  # blanks its wikilinks' words

PIECES = ["beta", "Beta", "deploy", "guide", "release", "plan", "x", "_", "y", "été", "ÉTÉ", "naïve", "東京",
          "region", "notes", " ", "  ", "-", "\n", "\n\n", ",", "[[", "]]", "|", "`", "``", "```\n", "~~~\n",
          "    ", "\t", "$", "$$", "*", "_", "[", "](", ")", "][", "]: ", "https://x.org/", "www.", "é",
          "<b>", "</b>", "<", "# ", "> ", "- ", "1. ", "\\", "—", "🚀", "İ", "K", "١", "===", "---"]


def python_seed(body: str, vocabulary: Vocabulary, body_line: int = 3) -> Seed | None:
    saved, mention_seeds._native_seed = mention_seeds._native_seed, None
    try:
        return seed_of(body, body_line, vocabulary)
    finally:
        mention_seeds._native_seed = saved


def states(body: str, vocabulary: Vocabulary = PLAIN) -> list[int]:
    listed = mention_seeds._listed_native(body, vocabulary)
    assert listed is not None
    return [entry[5] for entry in listed]


# body, the states the twin gives its candidates (in order): what it decides, what it asks.
CASES: list[tuple[str, str, list[int]]] = [
    ("plain", "see the deploy guide and beta", [PROSE, PROSE]),
    ("code span", "run `beta` then beta", [NOT_PROSE, PROSE]),
    ("double ticks", "``a ` beta`` beta", [NOT_PROSE, PROSE]),
    ("fenced", "beta\n\n```\nbeta\n```\n\nbeta", [PROSE, NOT_PROSE, PROSE]),
    ("tilde fence", "~~~\nbeta\n~~~\nbeta", [NOT_PROSE, PROSE]),
    ("unclosed fence", "```\nbeta\n\nbeta", [NOT_PROSE, NOT_PROSE]),
    ("wikilink", "[[beta]] and [[x|beta]] beta", [PROSE]),
    ("wikilink kept", "[[beta]] beta", [PROSE]),
    ("embed", "![[beta]] beta", [PROSE]),
    ("url", "https://beta.org/beta and www.beta.org beta", [NOT_PROSE, NOT_PROSE, NOT_PROSE, PROSE]),
    ("url glued to a letter", "xhttp://beta beta", [NOT_PROSE, PROSE]),
    ("url after non-ASCII", "éhttp://beta beta", [ASK, ASK]),
    ("url after a dash", "—https://beta.org beta", [ASK, ASK]),
    ("math", "$beta$ and $$\nbeta\n$$ beta", [NOT_PROSE, NOT_PROSE, PROSE]),
    ("markdown link", "[beta](https://x.org) beta", [ASK, ASK]),
    ("markdown link in a line", "see [beta](x.md) and beta", [ASK, ASK]),
    ("image", "see ![beta](x.png) and beta", [ASK, ASK]),
    ("reference link", "[beta][r] beta", [ASK, ASK]),
    ("html", "<b>beta</b> beta", [ASK, ASK]),
    ("escape", "\\*beta beta", [ASK, ASK]),
    ("indented code", "text\n\n    beta\n\nbeta", [ASK, PROSE]),
    ("list and code", "- run `beta`\n- beta", [NOT_PROSE, PROSE]),
    ("emphasis beside code", "*beta* `x`", [ASK]),
    ("emphasis alone", "*beta* and **beta**, not _beta_", [PROSE, PROSE]),
    ("heading", "# beta `x`\n\nbeta", [PROSE, PROSE]),
    ("two chunks", "`x` beta\n\n[beta](y)", [PROSE, ASK]),
    ("non-ASCII words", "ÉTÉ plan and naïve, 東京 region", [PROSE, PROSE, PROSE]),
    ("lower changes length", "İstanbul beta", [PROSE]),
    ("spans a line", "deploy\nguide beta", [PROSE]),
    ("separators", "x_y, x-y and deploy--guide", [PROSE, PROSE]),
]


@pytest.mark.parametrize(("body", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_native_seed_equals_python_on_the_table(body: str, expected: list[int]) -> None:
    for vocabulary in (VOCABULARY, PLAIN):
        assert seed_of(body, 3, vocabulary) == python_seed(body, vocabulary), vocabulary.names
    if "İ" not in body:  # lower() changes its length: Python lists it (with the candidates' twin)
        assert states(body) == expected


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60), st.booleans())
@example(["`", "beta", "`", " ", "beta"], True)
@example(["```\n", "beta", "\n", "```\n", "beta"], True)
@example(["é", "https://x.org/", "beta"], False)
@example(["[", "beta", "](", "x", ")", " ", "beta"], True)
@example(["beta", " ", "[", "beta", "](", ")", " ", "`", "x", "`"], True)
@example(["1. ", "beta", "\n", "    ", "beta"], True)
def test_native_seed_equals_python_on_random_bodies(pieces: list[str], plain: bool) -> None:
    body = "".join(pieces)
    vocabulary = PLAIN if plain else VOCABULARY
    assert seed_of(body, 3, vocabulary) == python_seed(body, vocabulary)


def _notes(root: Path) -> Iterator[tuple[str, str]]:
    for path in sorted((root / "memory").rglob("*.md")):
        yield path.stem, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("profile", ["default", "real"])
def test_native_seed_equals_python_on_benchmark_notes(tmp_path: Path, profile: str) -> None:
    generate(tmp_path / "ws", 300, profile=profile)
    notes = list(_notes(tmp_path / "ws"))
    vocabulary = Vocabulary(name for name, _body in notes)
    asked = decided = 0
    for name, body in notes:
        assert seed_of(body, 1, vocabulary) == python_seed(body, vocabulary, 1), name
        listed = mention_seeds._listed_native(body, vocabulary) or []
        asked += sum(1 for entry in listed if entry[5] == ASK)
        decided += sum(1 for entry in listed if entry[5] != ASK)
    assert decided > 4 * asked  # most candidates never reach mistune


#: The non-ASCII characters the twin lower-cases itself (native/src/mention_prose.rs `known`).
KNOWN = [*range(0xA0, 0x100), 0x2139, *range(0x4E00, 0xA000), *range(0x2000, 0x2070), *range(0x2190, 0x2400),
         *range(0x2500, 0x2776), *range(0x2794, 0x27C0), *range(0x2B00, 0x2C00), *range(0x3000, 0x3005),
         *range(0x3008, 0x3012), *range(0xFE00, 0xFE10), *range(0x1F300, 0x1F650), *range(0x1F680, 0x1F700),
         *range(0x1F900, 0x1FA00)]


def test_native_lowers_what_python_lowers() -> None:
    """Every character the twin lower-cases without Python, in names and bodies: Python's
    `lower()` and `\\w` (this interpreter's Unicode tables) decide the candidates both ways."""
    chars = [chr(u) for u in KNOWN]
    known = set(chars)
    upper = {c: c.upper() if c.upper() in known else c for c in chars}  # `É` as well as `é`
    names = [f"q{c}q" for c in chars] + ["beta"]
    vocabulary = Vocabulary(names)
    for k in range(0, len(chars), 400):
        batch = chars[k : k + 400]
        body = " ".join(f"Q{upper[c]}q beta{c}beta" for c in batch)
        listed = mention_seeds._native_seed(body, None, "", vocabulary.index.native_table(), True)
        assert listed is not None, "a known character was refused"
        assert seed_of(body, 1, vocabulary) == python_seed(body, vocabulary, 1), batch


def _reach() -> NameIndex:
    """A source's names: own and shared, one name on two notes (ambiguous), one linked."""
    names = [(n, MentionTarget(f"memory:a/{n}", n, k % 2)) for k, n in enumerate(NAMES)]
    return NameIndex([*names, ("beta", MentionTarget("memory:a/beta-2", "beta-2", 0))])


def both_mentions(body: str) -> tuple[list[Mention], list[Mention]]:
    """find_mentions with the twin, and with it off (Python's candidates and prose)."""
    index = _reach()
    native = find_mentions(body, 3, index, source_id="memory:a/self", linked={"memory:a/notes"})
    saved, mentions._native_listed = mentions._native_listed, None
    try:
        python = find_mentions(body, 3, index, source_id="memory:a/self", linked={"memory:a/notes"})
    finally:
        mentions._native_listed = saved
    return native, python


@pytest.mark.parametrize("body", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_find_mentions_equal_with_the_twin_on_the_table(body: str) -> None:
    native, python = both_mentions(body)
    assert native == python


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60))
@example(["beta", " ", "[", "beta", "](", ")", " ", "`", "beta", "`", " ", "notes"])
def test_find_mentions_equal_with_the_twin_on_random_bodies(pieces: list[str]) -> None:
    native, python = both_mentions("".join(pieces))
    assert native == python
