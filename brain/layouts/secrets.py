"""The `secret` problem of every layout: a line that looks like a credential.

The detector is the memory tool's own (brain.parse.secrets.scan), so what `brain check` flags is
exactly what a write through the tool would refuse. The message gives the line and the kind of
secret, never the value: problems end up in CI logs and editors.

Each secret is one problem, at the line and column where it starts (a split secret is
reported where its first piece is), with the length of its piece on that line.

Cost: the detector looks at every line several ways (as written, undisguised, base64-decoded)
and at the whole text reassembled (brain.parse.secrets.stream), about three times the cost of
parsing the note. An ingest first asks a cheap question of the whole text: can any view
match at all? A pattern runs only if the literal text each of its matches holds is there, in
the text with all its line breaks taken out: a match within a line, or across a joined
break, is a match there too. Text the detector would undisguise (not NFKC, or with invisible
characters) and decodable base64 runs always go to the detector; text with markup, comments
or tags, spaced letters or a fence inside a token has its patterns run on the reassembled
view. Only texts that pass go through the full scan; tests hold this to the detector.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from brain.model import Problem, Severity
from brain.parse.native import native

MAX_SECRETS_PER_FILE = 20  # a leaked key file need not flood the report


def secret_problems(rel: str, text: str) -> list[Problem]:
    """One `secret` error per line holding a credential-looking value."""
    if not might_hold_secret(text):
        return []
    return scan_secret_problems(rel, text)


def scan_secret_problems(rel: str, text: str) -> list[Problem]:
    """`secret_problems` without the prefilter: the detector on every line (the reference)."""
    # Imported here: brain.tool's package imports the memory service, which imports ingest.
    from brain.parse.secrets.scan import find_secrets

    out: list[Problem] = []
    for hit in find_secrets(text)[:MAX_SECRETS_PER_FILE]:
        line_start = text.rfind("\n", 0, hit.start) + 1
        line_end = text.find("\n", hit.start)
        out.append(Problem(
            "secret", Severity.ERROR, rel,
            f"line {hit.line} holds what looks like {hit.kind}: secrets must not be kept in memory",
            line=hit.line, column=hit.start - line_start + 1,
            length=(hit.end if line_end == -1 else min(hit.end, line_end)) - hit.start,
            fix="remove the value and rotate it; keep a reference to where the secret is stored instead",
        ))
    return out


# For each of the detector's patterns (by kind), literal text every match of it contains: a
# pattern whose needles are all absent cannot match, so its regex never runs.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "a private key": ("-----BEGIN",),
    "an AWS access key": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "a GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "a GitLab token": ("glpat-",),
    "a Slack token": ("xox",),
    "a Slack webhook": ("hooks.slack.com",),
    "a Stripe key": ("sk_", "rk_"),
    "an Anthropic API key": ("sk-ant-",),
    "an OpenAI API key": ("sk-",),
    "a Google API key": ("AIza",),
    "a Hugging Face token": ("hf_",),
    "an npm token": ("npm_",),
    "a PyPI token": ("pypi-",),
    "a SendGrid key": ("SG.",),
    "a Twilio key": ("SK",),
    "an Azure storage key": ("AccountKey=",),
    "a JSON web token": ("eyJ",),
}
_LOWER_NEEDLES: dict[str, tuple[str, ...]] = {"an AWS secret key": ("aws",)}
_ALL_NEEDLES = frozenset(n for group in _NEEDLES.values() for n in group) | {"://"}
_ALL_LOWER_NEEDLES = frozenset(n for group in _LOWER_NEEDLES.values() for n in group)
# The keywords `_ASSIGNMENT` needs right before its `:` or `=` (lowered; `key` covers `api_key`).
_KEYWORDS = ("password", "passwd", "pwd", "passphrase", "secret", "key", "token", "bearer")


def might_hold_secret(text: str) -> bool:
    """False only when no line of `text` can hold what the detector looks for."""
    # The gate reads `flat`, the text with every line break (a line's trailing `\` and
    # blanks, the next line's indent) taken out: a needle or keyword assignment within a line
    # is in it as written (none holds a blank or a `\`), and one across a break as the
    # detector's pair join has it (its window is a piece of `flat`). More is found than
    # either view holds (across empty lines, beyond the window): those go to the full check.
    # One pass in C, where joining the pairs took a Python loop over every line.
    if native is not None:
        # One native pass answers nearly every note (native/src/secrets/prefilter.rs): no
        # pattern can match any view, so only the base64 runs are left to ask. Where it is
        # unsure, or in a module built before it, the two calls below.
        prefilter = getattr(native, "secret_prefilter", None)
        if prefilter is not None:
            try:
                cleared = prefilter(text)
            except UnicodeEncodeError:
                cleared = None  # a lone surrogate: asked below (and then in Python)
            if cleared is not None:
                return bool(cleared) and _decodes(cleared)
        try:
            gate, runs, invisible, plain = native.secret_gate(text)
        except UnicodeEncodeError:
            pass  # a lone surrogate (a YAML escape) is not UTF-8: asked in Python below
        else:
            if invisible or not (plain or unicodedata.is_normalized("NFKC", text)):
                cleared = _undisguised_clear(text)
                if cleared is not None:
                    return (bool(runs) and _decodes(runs)) or cleared
                return _native_might_hold(text, gate, runs) or _undisguised_might_hold(text)
            if native.secret_clear(text):
                # No pattern can match the text or its reassembled view (native/src/
                # secrets/view.rs: the view built as stream.py builds it, and every pattern
                # widened): what is left of the question is the base64 runs'. The view and
                # the patterns in Python were most of the gate's CPU (issue 43).
                return bool(runs) and _decodes(runs)
            return _native_might_hold(text, gate, runs)
    from brain.parse.secrets.normalize import _FORMAT  # not at the top: brain.tool imports ingest

    if not text.isascii() and (not unicodedata.is_normalized("NFKC", text) or _FORMAT.search(text)):
        return _python_might_hold(text) or _undisguised_might_hold(text)
    return _python_might_hold(text)


def _undisguised_clear(text: str) -> bool | None:
    """For a text the detector undoes (`visible`): where the native scanner clears what it is
    undone to and the text as written (`secret_clear`), the answer of the base64 runs of the
    undone text (the text's own are the caller's); None where it does not. Both views of
    `_native_might_hold(text)` and `_undisguised_might_hold(text)` start from that undone
    text: its reassembled view is theirs."""
    from brain.parse.secrets.normalize import visible

    assert native is not None
    view = visible(text)[0]
    try:
        _, runs, invisible, plain = native.secret_gate(view)
    except UnicodeEncodeError:
        return None
    if invisible or not (plain or unicodedata.is_normalized("NFKC", view)):
        return None
    if not native.secret_clear(view, text):
        return None
    return bool(runs) and _decodes(runs)


def _undisguised_might_hold(text: str) -> bool:
    """The gate of text the detector undoes (full-width letters, invisible characters, `…`,
    `µ`), asked of what it undoes it to: the detector scans each line as written (the gate of
    `text` asks that) and as `visible` makes it, and reassembles the text from `visible` of
    the whole (brain.parse.secrets.stream), which is `visible` of each line joined, and its own
    `visible` (NFKC character by character is done once done). Before, such a text went to the
    detector whole: 30 ms for a note of 4 KB with one `ℹ️` in it."""
    from brain.parse.secrets.normalize import visible

    view = visible(text)[0]
    if native is not None:
        try:
            gate, runs, _, _ = native.secret_gate(view)
        except UnicodeEncodeError:
            return _python_might_hold(view)
        return _native_might_hold(view, gate, runs)
    return _python_might_hold(view)


def _native_might_hold(text: str, gate: bool, runs: list[str]) -> bool:
    """The gate of `text` from the native scanner's answer (`secret_gate`), NFKC aside."""
    if (_unguarded() or gate) and _pattern_in_views(text, _joined(text)):
        return True
    return (bool(runs) and _decodes(runs)) or _reassembled_might_hold(text)


def _python_might_hold(text: str) -> bool:
    """The gate of `text` in Python, NFKC aside."""
    if (_unguarded() or _gate(_flat(text))) and _pattern_in_views(text, _joined(text)):
        return True
    return _has_base64_text(text) or _reassembled_might_hold(text)


def _reassembled_might_hold(text: str) -> bool:
    """Whether the reassembled text (brain.parse.secrets.stream) can hold a match, where it is
    more than the text with its in-token line breaks joined: a token cut by markup, an HTML
    comment or tag, spaced out or split around a fence line hides its needles from `_gate`."""
    from brain.parse.secrets.stream import joined_view, needs_view

    if not needs_view(text):
        return False
    view = joined_view(text).text
    return view != text and _pattern_in_views(view, view)


def _gate(flat: str) -> bool:
    """Whether `flat` (the text with its line breaks taken out) holds a needle of a pattern, a
    lowered needle, or a keyword right before a `:` or `=`: what a match of any pattern
    needs (the native scanner's `secret_gate` answers the same)."""
    # Lowered as bytes: only `İ` and the Kelvin sign lower to ASCII letters, and no lowered
    # needle has an `i` or a `k` (_keyword_near lowers what a keyword assignment needs).
    return (
        _has_needle(flat)
        or any(n.encode() in flat.encode("utf-8", "surrogatepass").lower() for n in _ALL_LOWER_NEEDLES)
        or _keyword_near(flat)
    )


# What the detector's pair join takes out between two lines (brain.parse.secrets.scan
# _CONTINUED on the first, the indent of the second): the same leftmost match.
_LINE_BREAK_RE = re.compile(r"\\?[ \t]*\n[ \t]*")
_INDENT_RE = re.compile(r"\n[ \t]*")  # the same where no line ends in a blank or a `\`


def _flat(text: str) -> str:
    r"""`_LINE_BREAK_RE.sub("", text)`, faster: a pattern that starts with a literal `\n`
    is found fast, and it is the same one where no line ends in a blank or a `\`."""
    if " \n" in text or "\t\n" in text or "\\\n" in text:
        return _LINE_BREAK_RE.sub("", text)
    return _INDENT_RE.sub("", text) if "\n " in text or "\n\t" in text else text.replace("\n", "")


# Bytes of the detector's base64 alphabets (brain.parse.secrets.normalize._BASE64_RUN) kept,
# every other byte (those of non-ASCII characters too) a blank; and the same as a letter.
_BASE64_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_BASE64_KEEP = bytes(b if b in _BASE64_BYTES else 0x20 for b in range(256))
_BASE64_AS_A = bytes(0x61 if b in _BASE64_BYTES else 0x20 for b in range(256))
_MIN_RUN = 24


def _has_base64_text(text: str) -> bool:
    """`any(True for _ in base64_runs(text))`, several times faster.

    Each match of _BASE64_RUN is a maximal run of the alphabet, 24 characters or more, and
    `=` padding that decoding strips; so the runs are the words of the text with every other
    byte a blank, found by bytes.translate and bytes.split in C instead of a regular
    expression tried at every position. Each distinct run is decoded once.
    """
    raw = text.encode("utf-8", "surrogatepass")
    if b"a" * _MIN_RUN not in raw.translate(_BASE64_AS_A):
        return False
    return _decodes([run.decode("ascii") for run in _long_runs(raw)])


def _long_runs(raw: bytes) -> set[bytes]:
    """The distinct maximal runs of the base64 alphabet, _MIN_RUN bytes or longer."""
    return {run for run in raw.translate(_BASE64_KEEP).split() if len(run) >= _MIN_RUN}


def _decodes(runs: list[str]) -> bool:
    """Whether one of the runs decodes as base64 of text (what base64_runs looks for)."""
    from brain.parse.secrets.normalize import _decode

    return any(_decode(run) is not None for run in runs)


# Needles with a `_` are looked for only in a text that has one (rare in prose): one scan
# instead of ten.
_UNDERSCORE_NEEDLES = tuple(sorted(n for n in _ALL_NEEDLES if "_" in n))
_OTHER_NEEDLES = tuple(sorted(n for n in _ALL_NEEDLES if "_" not in n))


def _has_needle(text: str) -> bool:
    """any(n in text for n in _ALL_NEEDLES), with one scan for the `_` needles."""
    if any(n in text for n in _OTHER_NEEDLES):
        return True
    return "_" in text and any(n in text for n in _UNDERSCORE_NEEDLES)


def _joined(text: str) -> str:
    """The text with its in-token line breaks joined, as the detector's reassembled view
    has it when `needs_view` is false (the gate reads only NFKC text without invisible
    characters: the rest goes to the detector)."""
    from brain.parse.secrets.stream import joined_view

    return joined_view(text).text


def _pattern_in_views(text: str, joined: str) -> bool:
    """Whether one of the detector's patterns matches the text or its joined-lines view."""
    from brain.parse.secrets import scan as secret_scan

    for view in dict.fromkeys((text, joined)):  # once where the join changed nothing
        lowered = view.lower()
        present = {n for n in _ALL_NEEDLES if n in view}
        present |= {n for n in _ALL_LOWER_NEEDLES if n in lowered}
        for kind, pattern in secret_scan._PATTERNS:
            needles = _NEEDLES.get(kind) or _LOWER_NEEDLES.get(kind)
            if needles is not None and present.isdisjoint(needles):
                continue
            if pattern.search(view):
                return True
        # A password in a URL is `scheme://user:password@`: every link (`://`, in a third of
        # real notes) went through that pattern, most without any `@`.
        if "://" in present and "@" in view and secret_scan._URL_PASSWORD.search(view):
            return True
        if _keyword_assignment(lowered) and secret_scan._ASSIGNMENT.search(view):
            return True
    return False


@functools.cache
def _unguarded() -> bool:
    """A detector pattern of a kind with no needles here: then every text gets the full check."""
    from brain.parse.secrets.scan import _PATTERNS

    return any(kind not in _NEEDLES and kind not in _LOWER_NEEDLES for kind, _ in _PATTERNS)


def _keyword_near(text: str) -> bool:
    """True whenever `_keyword_assignment(text.lower())` is (and maybe more often): only the
    characters before each `:` and `=` that a keyword can end at are lowered."""
    return _keyword_before_separator(text, lower=True)


def _keyword_assignment(lowered: str) -> bool:
    """A keyword, maybe a quote and blanks, then `:` or `=` (as `_ASSIGNMENT` begins)."""
    return _keyword_before_separator(lowered, lower=False)


_LONGEST_KEYWORD = max(map(len, _KEYWORDS))


def _keyword_before_separator(text: str, lower: bool) -> bool:
    """Whether a keyword ends right before some `:` or `=`, past any blanks and then quotes.

    Any number of blanks, as `_ASSIGNMENT`'s `\\s*` takes: the 40 characters before the
    separator that were looked at missed `password` + 41 spaces + `: <value>`, which the
    detector flags (and the memory tool refuses). Each separator looks back over its own run
    of blanks and quotes only, so a text is read about once."""
    for sep in (":", "="):
        at = text.find(sep)
        while at != -1:
            j = at
            while j > 0 and text[j - 1].isspace():
                j -= 1
            while j > 0 and text[j - 1] in "\"'":
                j -= 1
            head = text[max(0, j - _LONGEST_KEYWORD) : j]
            if (head.lower() if lower else head).endswith(_KEYWORDS):
                return True
            at = text.find(sep, at + 1)
    return False
