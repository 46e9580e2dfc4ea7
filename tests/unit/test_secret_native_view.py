"""The native rest of the secret prefilter (native/src/secrets/view.rs) against its Python reference.

`secret_clear` answers "no pattern can match" for the text and for its reassembled view, so
that `might_hold_secret` skips the Python view and patterns (issue 43: half of the parse
helpers' CPU). It must never clear a text the Python code would send to the detector: its
view must be stream.py's `joined_view` exactly, its patterns must match wherever scan.py's
do. Held on the secret corpora (tests/tool/secret_corpus.py), both workload profiles, the
examples, and generated texts built from the pieces each pass of the view reads.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings

from bench.workload import generate
from brain.layouts import secrets as secrets_module
from brain.layouts.secrets import _pattern_in_views, might_hold_secret, scan_secret_problems, secret_problems
from brain.parse.native import native
from brain.parse.note import decode
from brain.parse.secrets import scan
from brain.parse.secrets.normalize import _FORMAT, visible
from brain.parse.secrets.stream import joined_view
from tests.batches import batched, examples_for, for_each, joined_texts
from tests.tool.secret_corpus import NEGATIVES, PLANTED, VALUES

pytestmark = pytest.mark.skipif(native is None, reason="the native scanner is not built (cargo)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOKEN = "ghp_" + "A1b2" * 9


def _plain(text: str) -> bool:
    """The texts `secret_clear` is asked about: NFKC, without format characters."""
    return unicodedata.is_normalized("NFKC", text) and not _FORMAT.search(text)


def _python_may_match(text: str) -> bool:
    """Whether a pattern of the detector matches the text, its view, or the view alone: what
    `might_hold_secret` asks beside the base64 runs."""
    view = joined_view(text).text
    return _pattern_in_views(text, view) or _pattern_in_views(view, view)


def _agree(text: str) -> None:
    assert native is not None
    if not _plain(text):
        _agree_undisguised(text)
        return
    view = native.secret_view(text)
    if view is not None:
        assert view == joined_view(text).text
    if native.secret_clear(text):
        assert view is not None
        assert not _python_may_match(text)


def _agree_undisguised(text: str) -> None:
    """A text `visible` changes: cleared with its undone view only where no pattern matches
    the text as written, the undone view, or the view reassembled from it."""
    assert native is not None
    undone = visible(text)[0]
    if _plain(undone) and native.secret_clear(undone, text):
        assert not _pattern_in_views(text, text)
        assert not _python_may_match(undone)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Both workload profiles' notes, the examples, the planted secrets and the negatives."""
    texts: list[str] = []
    for profile in ("default", "real"):
        root = tmp_path_factory.mktemp(f"workload-{profile}")
        generate(root, 300, profile=profile)
        texts += [decode(p.read_bytes(), str(p))[0] for p in sorted(root.rglob("*.md"))]
    texts += [decode(p.read_bytes(), str(p))[0] for p in sorted(EXAMPLES.rglob("*.md"))]
    return texts + [p.text for p in PLANTED] + list(NEGATIVES.values())


def test_the_native_view_and_clearance_agree_on_the_corpora(corpus: list[str]) -> None:
    assert native is not None
    for text in corpus:
        _agree(text)
    # It decides nearly every note (else Python would do the work again).
    notes = [t for t in corpus if _plain(t) and not _python_may_match(t)]
    assert sum(native.secret_clear(t) for t in notes) > 0.95 * len(notes)


def test_no_planted_secret_is_cleared() -> None:
    assert native is not None
    for planted in PLANTED:
        assert might_hold_secret(planted.text), planted.name
        if _plain(planted.text) and "base64" not in planted.name:  # base64: the runs' question
            assert not native.secret_clear(planted.text), planted.name
    for kind, value in VALUES.items():
        assert not native.secret_clear(f"note\n\n{value}\n"), kind


# The patterns secrets/view.rs widens, as scan.py writes them: a pattern added or changed there
# must be widened in PATTERNS too (then add it here).
KNOWN_PATTERNS = {
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    r"(?i)aws_?secret_?access_?key\W{0,3}[:=]\W{0,3}[A-Za-z0-9/+=]{40}",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
    r"\bglpat-[A-Za-z0-9_-]{20,}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",
    r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
    r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    r"\bAIza[0-9A-Za-z_-]{35}\b",
    r"\bhf_[A-Za-z0-9]{30,}\b",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    r"\bSK[0-9a-f]{32}\b",
    r"AccountKey=[A-Za-z0-9+/=]{80,}",
    r"(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    scan._URL_PASSWORD.pattern,
    scan._ASSIGNMENT.pattern,
}


def test_the_native_patterns_know_every_pattern_of_the_detector() -> None:
    assert {p.pattern for _, p in scan._PATTERNS} | {
        scan._URL_PASSWORD.pattern, scan._ASSIGNMENT.pattern,
    } == KNOWN_PATTERNS


def test_the_word_table_is_python_s() -> None:
    """Where secrets/view.rs says a character is or is not one of Python's `\\w`, the markup
    pass (a `*` between two token characters goes) gives Python's answer."""
    assert native is not None
    ranges = [(0x80, 0x250), (0x2000, 0x2C00), (0x4E00, 0xA000), (0xAC00, 0xD7A4), (0xFE00, 0xFE10),
              (0x1F000, 0x1FB00)]
    known = 0
    for start, stop in ranges:
        for point in range(start, stop):
            text = f"a*{chr(point)} {chr(point)}*a"
            if not _plain(text):
                continue
            view = native.secret_view(text)
            if view is not None:
                known += 1
                assert view == joined_view(text).text, hex(point)
    assert known > 30_000


PIECES = [
    "a", "x", "É", "東", "é", "ß", "—", "⚠️", "🚀", " ", "  ", "   ", "    ", "\t", "\n", "\\", "\\\n", " \n",
    "\n  ", "---", "\n---\n", "\n...\n", " --- ", "<!--", "-->", "<b>", "</b>", "<a href=x>", "<", ">",
    "`", "**", "*", "~~", "~", "\\_", "\\-", "_", "-", "+", "/", "=", ":", "'", '"', "key", "token: ",
    "password", "Password = ", "aws_secret_access_key", "ghp_", "g h p _ ", "A 1 b 2 ", "sk-", "xoxb-",
    "://", "user:", "@", "https://", "eyJ", ".", TOKEN[:10], TOKEN[10:24], TOKEN[24:], "\u00a0", "\u2028",
    "\u3000", "\x1c", "İ", "Zq8xW2pL9v!", "ℹ️", "ｇｈｐ＿", "＝", "\u200b", "\u212a", "ſ", "…",
]


@batched
@settings(max_examples=examples_for(4000), deadline=None)
@given(joined_texts(PIECES, 40))
@example(["tok\n---\nen", "ab \\\n  cd", "x `a`b **c**d e\\_f", "a b c d e f g h"])
@example(["password\n: " + "Zq8xW2pL9v!", "pass**word**: Zq8xW2pL9v!", "https://user:p4ss<b></b>word@host"])
@example(["ℹ️ note\n" + TOKEN[:10] + "\u200b" + TOKEN[10:], "ℹ️ paſsword: Zq8xW2pL9v!"])
def test_the_native_view_and_clearance_agree_on_generated_texts(texts: list[str]) -> None:
    for_each(texts, _agree)


@pytest.fixture(params=["python", "native"])
def prefilter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(secrets_module, "native", None)
    return str(request.param)


def test_secret_problems_equal_the_unfiltered_scan_with_either_prefilter(
    corpus: list[str], prefilter: str,
) -> None:
    for text in corpus:
        assert secret_problems("x.md", text) == scan_secret_problems("x.md", text)
