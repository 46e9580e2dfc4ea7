"""Content that looks like a secret: private keys, common API keys and tokens. Pure.

The house rules say never store secrets in memory (memory files are in every diff, backup
and checkpoint). A write whose new lines match is refused with the line and the kind of
secret, never with the secret itself: the refusal may be logged.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from brain.parse.secret_normalize import back, base64_runs, visible


@dataclass(frozen=True, slots=True)
class SecretHit:
    line: int  # 1-based, in the text that was scanned
    kind: str
    start: int  # offsets of the secret within the whole text
    end: int

    def preview(self, text: str) -> str:
        """A hint at what matched that gives nothing away: its first 4 characters."""
        value = text[self.start : self.end]
        if value.startswith("-----BEGIN"):
            return value
        return value[:4] + "…"


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("an AWS access key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        ("an AWS secret key", r"(?i)aws_?secret_?access_?key\W{0,3}[:=]\W{0,3}[A-Za-z0-9/+=]{40}"),
        ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
        ("a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
        ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
        ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
        ("a Slack webhook", r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+"),
        ("a Stripe key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
        ("an Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        ("an OpenAI API key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
        ("a SendGrid key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
        ("a Twilio key", r"\bSK[0-9a-f]{32}\b"),
        ("an Azure storage key", r"AccountKey=[A-Za-z0-9+/=]{80,}"),
        ("a JSON web token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    )
)
_URL_PASSWORD = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@")
_ASSIGNMENT = re.compile(
    r"(?i)\b(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|"
    r"apikey|access[_-]?key|access[_-]?token|auth[_-]?token|bearer|private[_-]?key|token)\b"
    r"[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{8,})"
)
_PLACEHOLDER = re.compile(
    r"(?i)[<>{}$*]|x{3,}|\.\.\.|…|example|changeme|placeholder|redacted|your[_-]|dummy|"
    r"^(?:none|null|true|false|undefined)$"
)


_IDENTIFIER = re.compile(r"^[a-z]+(?:[-_/.:][a-z0-9]+)*$")


def find_secret(text: str, lines: range | None = None) -> SecretHit | None:
    """The first secret-looking value on the given 1-based lines (default: every line).

    Each line is scanned as written, then undisguised (brain.parse.secret_normalize: NFKC
    without invisible characters, then decoded base64 runs); then each pair of neighbouring
    lines joined, for a secret split across them. Offsets always point into `text`.
    """
    rows = text.split("\n")
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row) + 1)
    wanted = range(1, len(rows) + 1) if lines is None else lines
    for number, row in enumerate(rows, 1):
        if number in wanted:
            hit = _scan_views(row)
            if hit is not None:
                kind, start, end = hit
                return SecretHit(number, kind, starts[number - 1] + start, starts[number - 1] + end)
    for number in range(1, len(rows)):
        if number in wanted or number + 1 in wanted:
            joined = _scan_joined(rows[number - 1], rows[number])
            if joined is not None:
                kind, start, end = joined  # offsets from the start of the first line
                return SecretHit(number, kind, starts[number - 1] + start, starts[number - 1] + end)
    return None


def _scan_views(line: str) -> tuple[str, int, int] | None:
    hit = _scan_line(line)
    if hit is not None:
        return hit
    folded, where = visible(line)
    if where is not None:
        hit = _scan_line(folded)
        if hit is not None:
            kind, start, end = hit
            return kind, back(where, start), back(where, end - 1) + 1
    for start, end, decoded in base64_runs(folded):
        inner = _scan_line(decoded) or _scan_line(visible(decoded)[0])
        if inner is not None:
            return f"{inner[0]} (base64-encoded)", back(where, start), back(where, end - 1) + 1
    return None


_TOKEN_END = re.compile(r"[\w+/=-]+\\?[ \t]*$")  # a token at the end of a line, maybe with `\\`
_TOKEN_START = re.compile(r"^[ \t]*([\w+/=-]+)")
_CONTINUED = re.compile(r"\\?[ \t]*$")
JOIN_WINDOW = 256  # characters each side of the break: longer than any pattern's match
MIN_JOINED = 12  # a token across the break shorter than this is no secret


def _scan_joined(first: str, second: str) -> tuple[str, int, int] | None:
    """A secret that only exists across the line break (a `\\` continuation, an indent).

    Only a break inside a token (a word on both sides, no space between them once the
    continuation and the indent are gone) is looked at, within JOIN_WINDOW characters.
    """
    head, head_where = visible(first)
    tail, tail_where = visible(second)
    ending, opening = _TOKEN_END.search(head), _TOKEN_START.match(tail)
    if ending is None or opening is None:
        return None
    head = head[: _CONTINUED.search(head).start()]  # type: ignore[union-attr]  # always matches
    token = len(head) - ending.start() + len(opening.group(1))
    if token < MIN_JOINED:
        return None
    indent = opening.start(1)
    left = max(0, len(head) - JOIN_WINDOW)
    window = head[left:] + tail[indent : indent + JOIN_WINDOW]
    hit = _scan_line(window)
    if hit is None or _scan_line(head) is not None or _scan_line(tail) is not None:
        return None  # nothing, or a secret one line holds on its own: that line decides
    kind, start, end = hit
    cut = len(head) - left
    if not start < cut < end:
        return None  # within one line: that line's own scan decides
    second_at = len(first) + 1  # where the second line starts, counted from the first
    return kind, back(head_where, left + start), second_at + back(tail_where, indent + end - cut - 1) + 1


def _scan_line(line: str) -> tuple[str, int, int] | None:
    for kind, pattern in _PATTERNS:
        m = pattern.search(line)
        if m is not None:
            return kind, m.start(), m.end()
    m = _URL_PASSWORD.search(line)
    if m is not None and _looks_secret(m.group(1), minimum=4):
        return "a password in a URL", m.start(1), m.end(1)
    for m in _ASSIGNMENT.finditer(line):
        if _looks_secret(m.group(1)):
            return "a password or key assignment", m.start(1), m.end(1)
    return None


def _looks_secret(value: str, minimum: int = 8) -> bool:
    """Random-looking rather than a word, a placeholder or a reference to where it lives."""
    if len(value) < minimum or _PLACEHOLDER.search(value) or _IDENTIFIER.match(value):
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return classes >= 2 and _entropy(value) >= 2.5


def _entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())
