"""Secrets in disguise: split over lines, broken by invisible characters, full-width, base64.

Each was missed before the scanner normalised its input; each hit must point at the right
line and span of the text as written (the refusal quotes the line and redacts the span).
"""

from __future__ import annotations

import base64

import pytest

from brain.parse.secrets.scan import find_secret

TOKEN = "ghp_" + "A1b2" * 9
ENCODED_PASSWORD = base64.urlsafe_b64encode(b"password = Zq8xW2pL9v!").decode()


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


DISGUISED = [
    # (text, line, kind, the span the hit covers)
    ("intro\ntoken " + TOKEN[:20] + "\n" + TOKEN[20:] + " end", 2, "a GitHub token",
     TOKEN[:20] + "\n" + TOKEN[20:]),
    ("export T=" + TOKEN[:20] + "\\\n    " + TOKEN[20:], 1, "a GitHub token",
     TOKEN[:20] + "\\\n    " + TOKEN[20:]),
    ("key " + TOKEN[:9] + "\u200b" + TOKEN[9:], 1, "a GitHub token", TOKEN[:9] + "\u200b" + TOKEN[9:]),
    ("key " + TOKEN[:9] + "\u00ad" + TOKEN[9:], 1, "a GitHub token", TOKEN[:9] + "\u00ad" + TOKEN[9:]),
    ("key " + TOKEN[:9] + "\u2060" + TOKEN[9:], 1, "a GitHub token", TOKEN[:9] + "\u2060" + TOKEN[9:]),
    ("a\nkey " + fullwidth(TOKEN) + ".", 2, "a GitHub token", fullwidth(TOKEN)),
    ("password： " + fullwidth("Zq8xW2pL9v"), 1, "a password or key assignment", fullwidth("Zq8xW2pL9v")),
    ("blob " + base64.b64encode(TOKEN.encode()).decode() + " end", 1, "a GitHub token (base64-encoded)",
     base64.b64encode(TOKEN.encode()).decode()),
    ("x\n" + ENCODED_PASSWORD, 2, "a password or key assignment (base64-encoded)", ENCODED_PASSWORD),
]


@pytest.mark.parametrize(("text", "line", "kind", "span"), DISGUISED)
def test_disguised_secrets_are_found_where_they_are(text: str, line: int, kind: str, span: str) -> None:
    hit = find_secret(text)
    assert hit is not None
    assert (hit.line, hit.kind, text[hit.start : hit.end]) == (line, kind, span)


NOT_SECRETS = [
    "The summary of the run:\nerrors were few and the fix was simple",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "image: " + base64.b64encode(bytes(range(256))).decode(),  # binary, not text
    "caption " + base64.b64encode(b"a harmless sentence about deployments").decode(),
    "a very long identifier_that_wraps_around_\nthe_line_without_being_a_secret_at_all",
    "café — naïve résumé ﬁle",  # NFKC changes it, and it is still prose
    "see [[deploy-checklist]]\n[[release-notes]] too",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_stays_ordinary(text: str) -> None:
    assert find_secret(text) is None


def test_a_split_secret_counts_when_either_of_its_lines_changed() -> None:
    text = "token " + TOKEN[:20] + "\n" + TOKEN[20:]
    assert find_secret(text, range(2, 3)) is not None
    assert find_secret(text, range(1, 2)) is not None
    assert find_secret(text + "\nmore\n", range(3, 5)) is None
