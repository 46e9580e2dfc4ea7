"""The secret prefilter in one native pass (native/src/secrets/prefilter.rs) against the detector.

`secret_prefilter` answers most notes alone: Some(runs) means no pattern can match the text,
what `visible` undoes it to, or either one reassembled, so `might_hold_secret` is only
whether a base64 run decodes (issue 43: the two native calls before it read each note twice,
and a note with an `ℹ` or `…` went through `visible` in Python). It must never clear a text
the detector (brain.parse.secrets.scan.find_secrets) flags, must give the base64 runs the
two-call path gives, and must decide nearly every note of both workload profiles.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given, settings

from bench.workload import generate
from brain.layouts.secrets import _decodes, might_hold_secret
from brain.parse.native import native
from brain.parse.note import decode
from brain.parse.secrets.normalize import _FORMAT, visible
from brain.parse.secrets.scan import find_secrets
from tests.batches import batched, examples_for, for_each, joined_texts
from tests.tool.secret_corpus import NEGATIVES, PLANTED, VALUES

pytestmark = pytest.mark.skipif(
    native is None or getattr(native, "secret_prefilter", None) is None,
    reason="the native scanner is not built (cargo)",
)

TOKEN = "ghp_" + "A1b2" * 9


def _prefilter(text: str) -> list[str] | None:
    assert native is not None
    return native.secret_prefilter(text)


def _two_call_runs(text: str) -> set[str]:
    """The base64 runs the two-call path asks about: the text's, and its undone form's."""
    assert native is not None
    runs = set(native.secret_gate(text)[1])
    undone = visible(text)[0]
    if undone != text:
        runs |= set(native.secret_gate(undone)[1])
    return runs


def _sound(text: str) -> None:
    """Where the one pass decides: the runs of the two-call path, and never "clear" where
    the detector finds a secret."""
    runs = _prefilter(text)
    if runs is None:
        return
    assert len(runs) == len(set(runs))
    assert set(runs) == _two_call_runs(text)
    if not (runs and _decodes(runs)):
        assert find_secrets(text) == [], text


# What the pass reads: tokens and keyword assignments, the characters it undoes (`ℹ`, `…`,
# no-break space, `™`, ligatures, superscripts) and drops (format characters) inside them,
# the ones it keeps (`⚠️`, `é`, CJK) and the ones it leaves to Python (`İ`, full-width
# letters, the Kelvin sign), markup, comments, line breaks, base64.
PIECES = [
    "ghp_", "A1b2", "A1b2" * 8, "password", "pass", "word", " = ", ": ", "Zq8xW2pL9v!", "token",
    "sk-", "AKIA", "IOSFODNN7Q", "https://", "user:", "@host", "\u2139", "\u2026", "\u00a0",
    "\u2122", "\ufb01", "\u00b2", "\u200b", "\u00ad", "\ufeff", "\u2060", "\u26a0\ufe0f", "\u2705",
    "\u00e9", "\u6771\u4eac", "\u0130", "\u0131", "\u212a", "\uff47\uff48\uff50", "\u0301", "\n",
    " ", "**", "`", "<!-- x -->", "<b>", "\n---\n", "QUJD" * 6, "cGFzc3dvcmQgPSBacTh4VzJwTDl2IQ",
    "Z2hwX0ExYjJBMWIyQTFiMkExYjJBMWIy", "g h p _ A 1 b 2 ", "x",
]


@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts(PIECES, 40))
@example([
    TOKEN[:20] + "\u2139" + TOKEN[20:],  # `visible` makes it `i`: one token again
    TOKEN[:20] + "\u200b" + TOKEN[20:],  # a zero-width space inside the token
    TOKEN[:20] + "\u00ad" + TOKEN[20:] + " \u2026",
    "pass\u200bword = Zq8xW2pL9v!",
    "\u2139 password\u00a0=\u00a0Zq8xW2pL9v!",
    "api_key: Zq8x\ufb01W2pL9v\u00b2",
    "\u26a0\ufe0f " + TOKEN,
    "note \u2139\n\n" + "Z2hwX0ExYjJBMWIyQTFiMkExYjJBMWIyQTFiMkExYjJBMWIyQTFiMg" + "\n",
])
def test_the_one_pass_never_clears_what_the_detector_flags(texts: list[str]) -> None:
    for_each(texts, _sound)


def test_a_token_the_undone_characters_hide_is_not_cleared() -> None:
    """Each character the pass undoes or drops, inside a token or a keyword: `visible` makes
    them one again, and the detector flags the note."""
    assert native is not None
    for char in ("\u2139", "\u200b", "\u00ad", "\ufeff", "\u2060"):
        key = "ap" + char + ("_key" if char == "\u2139" else "i_key")  # `api_key` undone
        for text in (TOKEN[:20] + char + TOKEN[20:], f"{key} = Zq8xW2pL9v!"):
            assert find_secrets(text), repr(text)
            assert _prefilter(text) is None, repr(text)
            assert might_hold_secret(text)


def test_the_characters_it_undoes_are_undone_by_visible() -> None:
    """Each character the pass reads but NFKC does not keep (it answers for "a" + it where
    `secret_gate` does not vouch for it as plain) is one `visible` undoes: a format character
    it drops, or one whose NFKC is ASCII, so the text is not NFKC and Python undoes it too.
    (What the pass puts in its place is held to `visible` by the token and keyword test above.)"""
    assert native is not None
    undone = []
    for point in range(0x80, 0x30000):
        if 0xD800 <= point <= 0xDFFF:
            continue
        text = "a" + chr(point)
        if _prefilter(text) is None or native.secret_gate(text)[3]:
            continue
        undone.append(chr(point))
        assert _FORMAT.search(text) or not unicodedata.is_normalized("NFKC", text), hex(point)
        # What Python undoes it to is ASCII (so plain): the two-call path would clear it too.
        assert visible(text)[0].isascii(), hex(point)
    assert {"\u2139", "\u2026", "\u00a0", "\u200b"} <= set(undone)
    assert not {"\uff47", "\u0301", "\u0130"} & set(undone)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    texts: dict[str, list[str]] = {}
    for profile in ("default", "real"):
        root = tmp_path_factory.mktemp(f"workload-{profile}")
        generate(root, 400, profile=profile)
        texts[profile] = [decode(p.read_bytes(), str(p))[0] for p in sorted(root.rglob("*.md"))]
    return texts


def test_it_decides_nearly_every_note_of_both_profiles(corpus: dict[str, list[str]]) -> None:
    """Else the two calls run after it, and the pass only adds to the cost: the real profile's
    notes with `ℹ`, `⚠️` and non-ASCII names included."""
    for profile, texts in corpus.items():
        for text in texts:
            _sound(text)
        decided = sum(_prefilter(text) is not None for text in texts)
        assert decided > 0.97 * len(texts), (profile, decided, len(texts))
    assert any("\u2139" in t and _prefilter(t) is not None for t in corpus["real"])


def test_planted_secrets_are_never_cleared() -> None:
    for planted in PLANTED:
        assert might_hold_secret(planted.text), planted.name
        _sound(planted.text)
    for kind, value in VALUES.items():
        for text in (f"note\n\n{value}\n", f"note \u2139\n\n{value}\n", f"\u26a0\ufe0f {value}"):
            assert might_hold_secret(text), kind
            _sound(text)
    for text in NEGATIVES.values():
        _sound(text)


def test_a_lone_surrogate_is_asked_in_python() -> None:
    assert native is not None
    with pytest.raises(UnicodeEncodeError):
        native.secret_prefilter("a\udc80b")
    assert might_hold_secret("x\udc80 " + TOKEN)
