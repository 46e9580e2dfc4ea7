"""Content that looks like a secret: private keys, common API keys and tokens. Pure.

The house rules say never store secrets in memory (memory files are in every diff, backup
and checkpoint). A write whose new lines match is refused with the line and the kind of
secret, never with the secret itself: the refusal may be logged.

What the scan promises to see through (and what it leaves out on purpose: hex, base32,
rot13 ...) is written in docs/security.md, "Secrets". A value that reads as code
(`app.secretStorage.getSecret(…)`, `settings.API_KEY`) is no secret: notes hold code that
fetches secrets far more often than secrets.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from brain.parse.secrets.normalize import back, base64_runs, visible
from brain.parse.secrets.stream import JoinedView, joined_view


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
        # Not after a `-`: each run of `-eyJ-eyJ…` would be a start that scans to its end.
        ("a JSON web token", r"(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    )
)
# Bounded: with `*` a text like `a-a-a-…` made every letter a scheme's start scanned to its end.
_URL_PASSWORD = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s:/@]{1,256}:([^\s@/]{1,256})@")
_ASSIGNMENT = re.compile(
    # A keyword, maybe after names joined by `_` or `-` (`DB_PASSWORD`, `openai-api-key`).
    r"(?i)\b(?:[a-z0-9]{1,30}[_-]){0,4}(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|"
    r"apikey|access[_-]?key|access[_-]?token|auth[_-]?token|bearer|private[_-]?key|token)\b"
    r"[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{8,})"
)
_PLACEHOLDER = re.compile(
    r"(?i)[<>{}$*]|x{3,}|\.\.\.|…|example|changeme|placeholder|redacted|your[_-]|dummy|"
    r"^(?:none|null|true|false|undefined)$"
)


_IDENTIFIER = re.compile(r"^[a-z]+(?:[-_/.:][a-z0-9]+)*$")


def find_secret(text: str, lines: range | None = None) -> SecretHit | None:
    """The first secret-looking value on the given 1-based lines (default: every line)."""
    found = find_secrets(text, lines)
    return found[0] if found else None


def find_secrets(text: str, lines: range | None = None) -> list[SecretHit]:
    """Each line's first secret-looking value, once, in order, where a secret touches `lines`.

    Each line is scanned as written, then undisguised (brain.parse.secrets.normalize: NFKC
    without invisible characters, then decoded base64 runs). Then the whole text as a reader
    reassembles it (brain.parse.secrets.stream: split lines joined, comments, tags and markup
    inside a word gone, spaced letters closed up): a secret found there counts when one of
    the lines it spans is asked about, and is reported at the line where it starts. Offsets
    always point into `text`.
    """
    rows = text.split("\n")
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row) + 1)
    wanted = range(1, len(rows) + 1) if lines is None else lines
    hits: dict[int, SecretHit] = {}
    for number, row in enumerate(rows, 1):
        if number in wanted:
            hit = _scan_views(row)
            if hit is not None:
                kind, start, end = hit
                at = starts[number - 1]
                hits[number] = SecretHit(number, kind, at + start, at + end)
    for joined in _joined_hits(text, starts, wanted):
        hits.setdefault(joined.line, joined)
    return sorted(hits.values(), key=lambda hit: hit.start)


def _joined_hits(text: str, starts: list[int], wanted: range) -> list[SecretHit]:
    """Secrets of the reassembled text that no single line shows as written."""
    view = joined_view(text)
    if view.text == text:
        return []
    found: list[SecretHit] = []
    offset = 0
    for row in view.text.split("\n"):
        here, offset = offset, offset + len(row) + 1
        if not row:
            continue
        first, last = view.span(here, here + len(row))
        if last - first == len(row) and text[first:last] == row:
            continue  # the line as written: scanned already
        if not _touches(starts, first, last, wanted):
            continue
        for kind, start, end in _scan_all(row):
            end = _without_glue(row, kind, start, end, functools.partial(_back_from, view, here), starts)
            begin, stop = view.span(here + start, here + end)
            number = bisect.bisect_right(starts, begin)
            if _touches(starts, begin, stop, wanted) and not _own(text, starts, number, begin, stop):
                found.append(SecretHit(number, kind, begin, stop))
    return found


def _back_from(view: JoinedView, offset: int, index: int) -> int:
    return view.back(offset + index)


def _without_glue(
    row: str, kind: str, start: int, end: int, back: Callable[[int], int], starts: list[int],
) -> int:
    """The end of the match at `start` once the words of later lines that only lengthen it
    are left off (`ghp_…` ending a line and `more` starting the next read as one token)."""
    while True:
        last = bisect.bisect_right(starts, back(end - 1))
        if bisect.bisect_right(starts, back(start)) == last:
            return end
        low, high = start, end - 1  # the first view index on the hit's last line
        while low < high:
            middle = (low + high) // 2
            if bisect.bisect_right(starts, back(middle)) < last:
                low = middle + 1
            else:
                high = middle
        shorter = [e for k, s, e in _scan_all(row[:low]) if (k, s) == (kind, start)]
        if not shorter:
            return end
        end = shorter[0]


def _own(text: str, starts: list[int], number: int, begin: int, stop: int) -> bool:
    """Whether line `number` holds a secret of its own where [begin, stop) is: a token that
    ends its line and a word the next line starts with are one token in the view, and that
    line alone decides (an edit of the next line must not be refused for it)."""
    at = starts[number - 1]
    hit = _scan_views(text[at : starts[number] - 1])
    return hit is not None and at + hit[1] < stop and begin < at + hit[2]


def _touches(starts: list[int], begin: int, stop: int, wanted: range) -> bool:
    """Whether the span [begin, stop) of the text lies on one of the lines `wanted`."""
    first, last = bisect.bisect_right(starts, begin), bisect.bisect_right(starts, max(begin, stop - 1))
    return any(number in wanted for number in range(first, last + 1))


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


def _scan_all(line: str) -> list[tuple[str, int, int]]:
    """Every match in `line` (`_scan_line` gives the first kind's first)."""
    found = [(kind, m.start(), m.end()) for kind, pattern in _PATTERNS for m in pattern.finditer(line)]
    found += [
        ("a password in a URL", m.start(1), m.end(1))
        for m in _URL_PASSWORD.finditer(line) if _looks_secret(m.group(1), minimum=4)
    ]
    found += [
        ("a password or key assignment", m.start(1), m.end(1))
        for m in _ASSIGNMENT.finditer(line) if _assigned_secret(m.group(1))
    ]
    return sorted(found, key=lambda hit: hit[1])


def _scan_line(line: str) -> tuple[str, int, int] | None:
    for kind, pattern in _PATTERNS:
        m = pattern.search(line)
        if m is not None:
            return kind, m.start(), m.end()
    m = _URL_PASSWORD.search(line)
    if m is not None and _looks_secret(m.group(1), minimum=4):
        return "a password in a URL", m.start(1), m.end(1)
    for m in _ASSIGNMENT.finditer(line):
        if _assigned_secret(m.group(1)):
            return "a password or key assignment", m.start(1), m.end(1)
    return None


# A name or a path of names (`a.b`, `a?.b`, `a::b`, `a->b`), maybe called or subscripted.
_CODE_HEAD = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)*")
_CODE_SEP = re.compile(r"\.|\?\.|::|->")
_WORD_NAME = re.compile(r"[A-Za-z_$]+\d*")  # letters, maybe a version number: `env`, `v2`


def _assigned_secret(value: str) -> bool:
    """The value of `password = …`, `token: …` looks like a credential and not like code."""
    value = value.rstrip(":.")  # a YAML key or a sentence's end glued to the value
    return _looks_secret(value) and not _reads_as_code(value)


def _reads_as_code(value: str) -> bool:
    """A variable, an attribute path, a call or a subscript made of ordinary names
    (`app.secretStorage.getSecret(`, `os.environ[`, `tokenFromEnv`, `settings.API_KEY`):
    code that fetches a secret, not one. A lone name with digits in it (`hunter22`,
    `Zq8xW2pL9v`) is a value, as is a path whose names are not words (`Zq8x.W2pL`)."""
    head = _CODE_HEAD.match(value)
    if head is None:
        return False
    rest = value[head.end() :]
    names = _CODE_SEP.split(head.group())
    if rest and not rest.startswith(("(", "[", "!", "?")):
        return False
    if not rest and len(names) == 1:
        return not any(c.isdigit() for c in value)
    return all(_WORD_NAME.fullmatch(name) for name in names)


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
