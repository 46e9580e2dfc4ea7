"""The fast paths of a note's reading give exactly what the full readers give.

An ingest reads a `key: text` frontmatter without libyaml (brain.parse.frontmatter.simple_mapping)
and asks a cheap question before the secret detector's per-line scan
(brain.layouts.secrets.might_hold_secret). Both must never change an answer: checked here
on the benchmark's workload, on the examples, and on generated text built from the pieces
each fast path reasons about.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings

from bench.workload import generate
from brain.layouts import secrets as secrets_module
from brain.layouts.secrets import (
    _ALL_LOWER_NEEDLES,
    _ALL_NEEDLES,
    _KEYWORDS,
    _LINE_BREAK_RE,
    _flat,
    _gate,
    _has_base64_text,
    _keyword_assignment,
    _keyword_near,
    _long_runs,
    might_hold_secret,
    scan_secret_problems,
    secret_problems,
)
from brain.parse.body import ATX_RE, WIKILINK_RE, _atx_lines, _line_starts, _wikilinks, scan_body
from brain.parse.chunks import (
    CODE_HINT_RE,
    FENCE_LINE_RE,
    INDENTED_FENCE_RE,
    fence_lines,
    has_code_hint,
    has_indented_fence,
)
from brain.parse.frontmatter import load_frontmatter, simple_mapping, split_frontmatter
from brain.parse.native import native
from brain.parse.note import decode
from brain.parse.secrets.normalize import _FORMAT, _decode, base64_runs
from brain.parse.secrets.scan import find_secret
from tests.batches import batched, examples_for, for_each, joined_texts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every markdown text of a generated workload and of the examples."""
    root = tmp_path_factory.mktemp("workload")
    generate(root, 400)
    paths = sorted(root.rglob("*.md")) + sorted(EXAMPLES.rglob("*.md"))
    return [decode(p.read_bytes(), str(p))[0] for p in paths]


def _frontmatter(text: str) -> str | None:
    return split_frontmatter(text, "x.md", [])[0]


def test_the_corpus_is_read_by_the_fast_paths(corpus: list[str]) -> None:
    blocks = [fm for fm in map(_frontmatter, corpus) if fm is not None]
    assert len(corpus) > 400
    assert len(blocks) > 400
    assert sum(simple_mapping(fm) is not None for fm in blocks) > 0.9 * len(blocks)
    assert sum(not might_hold_secret(text) for text in corpus) > 0.9 * len(corpus)


def test_simple_frontmatter_is_read_as_yaml_reads_it_on_the_corpus(corpus: list[str]) -> None:
    for fm in filter(None, map(_frontmatter, corpus)):
        simple = simple_mapping(fm)
        if simple is not None:
            assert simple == yaml.safe_load(fm)
            assert list(simple) == list(yaml.safe_load(fm))


def test_secret_problems_equal_the_unfiltered_scan_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus:
        assert secret_problems("x.md", text) == scan_secret_problems("x.md", text)


def test_chunked_body_reading_equals_whole_reading_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus:
        _, body, line, _ = split_frontmatter(text, "x.md", [])
        assert scan_body(body, line) == scan_body(body, line, whole=True)


KEYS = ["description", "type", "name", "tags", "on", "Yes", "null", "a-b", "x_1", "y", "1a", "é"]
VALUES = [
    "text", "two words", "yes", "No", "TRUE", "off", "null", "Null", "~", "y", "n", "nan", "inf",
    "a: b", "a:", "a #b", "C#", "x, y", "[x]", "{x}", "'q'", "it's", '"q"', "é", "東京", "1", "1.5",
    "2024-01-01", "a  b", "a ", " a", "a\tb", "&x", "*x", "!x", "|", ">", "-", "- x", "½", "a\u00a0b",
    "a\u2028b", "a\ufeffb", "x---", "%x", "@x", "`x`", "a:b", "a=b", "=", "<<",
    # quoted strings and flow lists of words (issue 43): the forms read without libyaml, and
    # their neighbours that are not
    '"a: b #c"', '"x\\ty"', '"a\\"', '""', "''", "'it''s'", "'a: b'", '"東京 ½"', '"a\u00a0b"',
    '"a" x', "'a'b'", '"a"b"', "[]", "[a]", "[a, b-c]", "[a,b]", "[a,  b]", "[a, yes]", "[a, 1]",
    "[a, Null]", "[é, x_y]", "[a, b c]", "[a, [b]]", "[a, b]x", "[ a ]", "[a, ~]", "[a:b]", "[-a]",
]
# A line: half the time a key, a separator and a value, else one of the other lines.
PAIRS = [f"{k}{sep}{v}" for k in KEYS for sep in (": ", ":  ", ":", ": \t") for v in VALUES]
OTHERS = ["", " ", "# comment", "  indented: x", "- item", "---", "..."]
LINES = PAIRS + OTHERS * (len(PAIRS) // len(OTHERS))


@pytest.mark.no_native_rerun  # the frontmatter reader has no native twin: no native scanner (tests/plan.py)
@batched
@settings(max_examples=examples_for(2000), deadline=None)
@given(joined_texts(LINES, 6, sep="\n"))
def test_simple_frontmatter_is_read_as_yaml_reads_it(fm_texts: list[str]) -> None:
    for_each(fm_texts, _read_as_yaml_reads)


def _read_as_yaml_reads(fm_text: str) -> None:
    simple = simple_mapping(fm_text)
    if simple is None:
        return
    assert simple == yaml.safe_load(fm_text)
    assert list(simple) == list(yaml.safe_load(fm_text))
    assert load_frontmatter(fm_text, "x.md", []) == simple


def test_the_simple_reading_keeps_yaml_types_to_yaml() -> None:
    assert simple_mapping("description: a note\ntype: user\n") == {"description": "a note", "type": "user"}
    for fm_text in ("on: x\n", "a: 1\n", "a: 2024-01-01\n", "a: x: y\n", "a: b #c\n", "a:\n",
                    'a: "b\\"c"\n', "a: [b, on]\n", "a: [b, 2]\n"):
        assert simple_mapping(fm_text) is None
    assert simple_mapping('name: "Release: Q4 #1"\ntags: [free-tier, é]\nx: []\n') == {
        "name": "Release: Q4 #1", "tags": ["free-tier", "é"], "x": []}
    # YAML 1.1's booleans and nulls are read as YAML reads them (an agent's `memory: true`).
    assert simple_mapping("memory: true\na: Off\nb: YES\nc: null\n") == {
        "memory": True, "a": False, "b": True, "c": None}


TOKEN = "ghp_" + "A1b2" * 9
SECRET_PIECES = [
    "a", "x", " ", "\t", "\n", "\\", "\\\n", "\n    ", ":", "=", "'", '"', "key", "Key", "token",
    "password", "secret", "aws", "AWS_SECRET_ACCESS_KEY", "://", "@", "user:", "https", "Zq8xW2pL9v!",
    TOKEN[:10], TOKEN[10:], TOKEN, "AKIA", "ABCDEFGHIJKLMNOP", "sk-", "sk_live_", "xoxb-", "eyJ",
    "-----BEGIN ", "RSA PRIVATE KEY-----", "glpat-", "hf_", "npm_", "SG.", "AccountKey=", "AIza",
    "\u200b", "\u00ad", "ｇｈｐ＿", "é", "東京", "Z2hwX0ExYjJBMWIyQTFiMkExYjJBMWIyQTFiMkExYjJBMWIyQTFiMg==",
    "cGFzc3dvcmQgPSBacTh4VzJwTDl2IQ==", "0123456789abcdef" * 2,
    " \\\n", "\t\n ", "a-b_c/d+e" * 3, "==", "\u00e9" * 3,
    # What NFKC changes (issue 43: such a text is gated by what the detector undoes it to).
    "\u2139\ufe0f", "\u2026", "\u00b5", "\ufb01", "\u00bd", "\u00a0", "\uff1a", "\u0301", "\u212a",
    "\uff54\uff4f\uff4b\uff45\uff4e", "\uff1d", "ghp\uff3f", "\u00a0\u00a0",
]


@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts(SECRET_PIECES, 30))
# A token that starts a line and ends on the next: joining every line at once glued it to the
# line before (`axoxb-...`), so `\bxox` no longer matched where the detector's pair join does.
@example(["a\nxoxb-\nZq8xW2pL9v!", "a\n" + "y" * 300 + "xoxb-\nZq8xW2pL9v!"])
# Text NFKC changes is gated by what the detector undoes it to: a full-width prefix or `=`, a
# `…` elsewhere on the line (issue 43: such texts went to the detector whole).
@example(["ｇｈｐ＿" + TOKEN[4:]])
# A keyword more than 40 blanks before its separator (the gate's window was 40 characters).
@example(["password" + " " * 50 + ": Zq8xW2pL9v!", 'password"' + " " * 45 + "= Zq8xW2pL9v!"])
@example(["wait\u2026 password\uff1d Zq8xW2pL9v!",
          "\u2139\ufe0f note\n" + TOKEN[:10] + "\u200b" + TOKEN[10:]])
def test_the_prefilter_never_hides_what_the_detector_finds(texts: list[str]) -> None:
    for_each(texts, _never_hidden)


def _never_hidden(text: str) -> None:
    if find_secret(text) is not None:
        assert might_hold_secret(text)
    assert secret_problems("x.md", text) == scan_secret_problems("x.md", text)
    assert _flat(text) == _LINE_BREAK_RE.sub("", text)
    assert _has_base64_text(text) == any(True for _ in base64_runs(text))


def test_the_prefilter_s_fast_finders_agree_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus:
        assert _flat(text) == _LINE_BREAK_RE.sub("", text)
        assert _has_base64_text(text) == any(True for _ in base64_runs(text))


LINK_PIECES = [
    "!", "[", "[[", "]]", "]", "a", " ", "\n", "!![[", "x]]", "`", "<", "\\", "](", "    ", "\t", "- ",
    "[r]: u", ">", "```", "~~~", " > ", "1. ", "#", "## ", "####### ", "- # ", "```js", "~~~~ ",
    "x#y", "\n#", "\n```", "\n~~~",
]


@pytest.mark.no_native_rerun  # the Python finders alone: no native scanner (tests/plan.py)
@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts(LINK_PIECES, 30))
def test_the_fast_finders_find_what_the_regular_expressions_find(texts: list[str]) -> None:
    for_each(texts, _found_alike)


def _found_alike(text: str) -> None:
    spans = [(m.span(), m.groups()) for m in _wikilinks(text)]
    assert spans == [(m.span(), m.groups()) for m in WIKILINK_RE.finditer(text)]
    assert has_code_hint(text) == (CODE_HINT_RE.search(text) is not None)
    assert has_indented_fence(text) == (INDENTED_FENCE_RE.search(text) is not None)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    assert _line_starts(text) == starts
    assert _matches(_atx_lines(text)) == _matches(ATX_RE.finditer(text))
    assert _matches(fence_lines(text)) == _matches(FENCE_LINE_RE.finditer(text))


def _matches(found: Iterator[re.Match[str]]) -> list[tuple[tuple[int, int], tuple[str | Any, ...]]]:
    return [(m.span(), m.groups()) for m in found]


def test_the_line_finders_find_what_the_regular_expressions_find_on_the_corpus(
    corpus: list[str],
) -> None:
    for text in corpus:
        assert _matches(_atx_lines(text)) == _matches(ATX_RE.finditer(text))
        assert _matches(fence_lines(text)) == _matches(FENCE_LINE_RE.finditer(text))


DISGUISES = [*SECRET_PIECES, "İ", "\u212a", "Σ", "\x1c", "\u3000", "\ufeff", "\u2066", "\ufffa", "\u061c",
             "\u180e", "\u200f", "\u2064"]


@pytest.mark.no_native_rerun  # the Python gate's helpers alone: no native scanner (tests/plan.py)
@batched
@settings(max_examples=examples_for(2000), deadline=None)
@given(joined_texts(DISGUISES, 30))
@example(["token" + " " * 45 + ":"])
def test_the_keyword_gate_holds_whenever_the_keyword_check_does(texts: list[str]) -> None:
    for_each(texts, _gate_holds)


def _gate_holds(text: str) -> None:
    if _keyword_assignment(text.lower()):
        assert _keyword_near(text)


# The native twin of the prefilter (brain/parse/native.py, native/src/secrets/mod.rs): the same gate and
# the same base64 runs as the Python code, which is its reference.
native_only = pytest.mark.skipif(native is None, reason="the native scanner is not built (cargo)")


def _python_gate(text: str) -> tuple[bool, set[str]]:
    raw = text.encode("utf-8", "surrogatepass")
    return _gate(_flat(text)), {run.decode("ascii") for run in _long_runs(raw)}


def _native_gate(text: str) -> tuple[bool, set[str]]:
    assert native is not None
    gate, runs, invisible, plain = native.secret_gate(text)
    assert len(runs) == len(set(runs))  # each distinct run once
    assert invisible == (_FORMAT.search(text) is not None)  # the detector's format characters
    assert not plain or unicodedata.is_normalized("NFKC", text)
    assert plain or not text.isascii()
    return gate, set(runs)


@native_only
@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts([*DISGUISES, "\u2028", "\xa0", " \u3000", "ＫＥＹ"], 30))
@example([
    "to\u212aen: x",  # the Kelvin sign lowers to `k`
    "key\x1c:",  # Python's whitespace, which Rust's is_whitespace lacks
    "Z2hwX0ExYjJBMWIyQTFiMkExYjJBMWIy  QUJD-_ab" + "QUJD" * 6 + " cGFzc3dvcmQgPSBacTh4VzJwTDl2IQ",
    "x" * 50 + "token" + " " * 3 + "'\":",
    "token" + " " * 45 + "'\":",  # past the 40 characters the gate once looked at
])
def test_the_native_gate_answers_as_the_python_gate(texts: list[str]) -> None:
    for_each(texts, _same_gate)


def _same_gate(text: str) -> None:
    """The same gate; the native runs are among the Python ones, and hold every run that
    decodes to text (the native scanner leaves out those it knows cannot)."""
    gate, runs = _native_gate(text)
    python_gate, python_runs = _python_gate(text)
    assert gate == python_gate
    assert runs <= python_runs
    assert {run for run in python_runs if _decode(run) is not None} <= runs


# What the native gate reads fast: base64 runs around 24 bytes long at every offset (it
# probes every 24th byte), line breaks with blanks and `\\` around them (taken out in slices),
# format characters beside look-alikes with the same first UTF-8 byte (found by that byte),
# and the needles in any case.
FAST_PIECES = [
    "QUJD", "QUJDRA", "cGFzc3dvcmQ", "x", "ab_-", "+/", "=", " ", "  ", "\n", " \n ", "\\\n",
    "\t\n\t", "\u00ad", "\u00a0", "\u00e9", "\u061c", "\u0627", "\u180e", "\u1e9e", "\u200b",
    "\u2014", "\u2066", "\ufeff", "\uff21", "\ufffa", "AwS", "aWs", "SK", "xox", "eyJ", "sk-",
    "key", ":", "東京",
]


@native_only
@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts(FAST_PIECES, 60))
@example(["a" * 23 + " " + "QUJD" * 6 + "\n" + "QUJD" * 6 + "Q" + " " + "b" * 47,
          "QUJD" * 6, " " * 23 + "QUJD" * 6])
def test_the_native_gate_s_fast_reads_answer_as_the_python_gate(texts: list[str]) -> None:
    for_each(texts, _same_gate)


@native_only
def test_the_characters_the_native_gate_calls_plain_are_left_as_they_are_by_nfkc() -> None:
    """Each character `secret_gate` vouches for (its fourth answer) keeps NFKC's quick check
    at Yes wherever it stands: it has combining class 0, NFKC leaves it alone, and it never
    ends a canonical pair (which would compose it with the character before)."""
    assert native is not None
    seconds = set()
    for point in range(sys.maxunicode + 1):
        parts = unicodedata.decomposition(chr(point)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(chr(int(parts[1], 16)))
    vouched = [chr(p) for p in range(0x80, 0x20000)
               if not 0xD800 <= p <= 0xDFFF and native.secret_gate("a" + chr(p))[3]]
    assert {"é", "東", "—", "🚀"} <= set(vouched)
    assert not {"ｋ", "\u0301", "…"} & set(vouched)
    for char in vouched:
        assert unicodedata.combining(char) == 0, hex(ord(char))
        assert unicodedata.normalize("NFKC", char) == char, hex(ord(char))
        assert char not in seconds, hex(ord(char))


@native_only
def test_the_native_gate_knows_every_needle_and_keyword() -> None:
    """A needle added to the Python tables must be added to the Rust ones: each alone opens
    both gates."""
    for needle in sorted(_ALL_NEEDLES | _ALL_LOWER_NEEDLES):
        assert _native_gate(needle)[0], needle
        assert _python_gate(needle)[0], needle
    for keyword in _KEYWORDS:
        text = f"x {keyword.upper()} = y"
        assert _native_gate(text)[0] == _python_gate(text)[0] is True


@native_only
def test_the_native_gate_agrees_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus:
        _same_gate(text)


@pytest.fixture(params=[pytest.param("python", marks=pytest.mark.no_native_rerun),  # tests/plan.py
                        *(["native"] if native is not None else [])])
def prefilter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(secrets_module, "native", None)
    return str(request.param)


def test_secret_problems_equal_the_unfiltered_scan_on_both_prefilters(
    corpus: list[str], prefilter: str,
) -> None:
    tricky = [*SECRET_PIECES, "a\ud800b " + TOKEN]  # a lone surrogate: the Python gate answers
    for text in [*corpus, *tricky, "\n".join(tricky)]:
        assert secret_problems("x.md", text) == scan_secret_problems("x.md", text)
