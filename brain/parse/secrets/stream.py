"""The whole-text view of the secret scan: the text as a reader puts it back together. Pure.

A line-by-line scan is beaten by splitting a token where a reader does not see a split: over
several lines, across the frontmatter's closing fence, around an HTML comment or tag, inside
markdown emphasis or code marks, or with its letters spaced out. `joined_view` undoes those
(docs/security.md, "Secrets", lists exactly what it promises) and keeps a map from each
character of the view back to the text, so a hit is reported where it is written.

Every step is one regular-expression pass with bounded repetitions (no nested quantifiers: the
workspace is hostile), and each only deletes characters, so the view is never longer than
the text after NFKC. `needs_view` answers cheaply whether any step but the line joins could
change the text: the ingest prefilter asks it before paying for the view.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from brain.parse.secrets.normalize import back, visible

_TOKEN = r"[\w+/=-]"  # a character a key or token is made of (base64 and URL-safe base64)
# HTML comments are cut by str.find (an unclosed `<!--` must not make a lazy `.*?` rescan the
# rest of the text from every opener); tags by a bounded pattern.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:[ \t][^<>\n]{0,200})?/?>")
# Emphasis, code marks, strike-through and backslash escapes inside a token (`ghp_A1**b2**`).
# Written to start with the mark itself, its look-behind after it: a pattern that starts
# with a look-behind is tried at every position of the text, one that starts with a set of
# characters is searched for in C (issue 43: 0.6 ms a note with code, now a few us). The
# same matches as `(?<=T)(?:[`*~]{1,3}|\\(?=[_*`~-]))(?=T)` (tests/unit/test_secret_stream.py).
_MARKUP = re.compile(
    rf"[`*~\\](?<={_TOKEN}[`*~\\])(?:(?<=[`*~])[`*~]{{0,2}}|(?<=\\)(?=[_*`~-]))(?={_TOKEN})"
)
# A run of single characters each set apart by one to three blanks: `g h p _ A 1 ...`.
_SPACED = re.compile(r"(?<!\S)\S(?!\S)(?:[ \t]{1,3}\S(?!\S))+")
MIN_SPACED = 8  # characters in a run before it is read as one word (prose has `a b c` lists)
_BLANKS = re.compile(r"[ \t]+")
# A line break inside a token: a word ends one line (maybe with a `\` continuation) and the
# next line (maybe after a `---` or `...` fence line: frontmatter and body are one text, and
# an indent) goes on with one. Not when the next line starts a key (`name:` / `name=`: YAML,
# INI, code), or a known token's prefix or a secret keyword: joining it to the line before
# would hide its start from the patterns' `\b`.
# Its first character (a `\`, a blank or the break) before its look-behind, as _MARKUP: the
# same matches as `(?<=T)\\?[ \t]*\n...` (tests/unit/test_secret_stream.py).
_BREAK = re.compile(
    rf"[\\ \t\n](?<={_TOKEN}[\\ \t\n])(?:(?<=\n)|(?<=[\\ \t])[ \t]*\n)"
    r"(?:[ \t]*(?:---|\.\.\.)[ \t]*\n)?[ \t]*"
    rf"(?={_TOKEN})"
    rf"(?!{_TOKEN}{{0,200}}[ \t]*[:=])"
    r"(?!(?i:gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk[-_]|rk_|akia|asia|abia|acca|aiza|hf_|"
    r"npm_|pypi-|sg\.|eyj|password|passwd|pwd|passphrase|secret|client|api|access|auth|bearer|"
    r"private|token|aws))"
)
# What makes the view differ from the text with its in-token line breaks taken out (the
# ingest gate's own join), each found from a literal or a small set of characters so that
# the search skips ahead in C: a tag or comment, markup after a token character, a run of 7
# single characters after a blank (a spaced run of 8 holds one), a fence line.
_TAG_HINT = re.compile(r"<[!/A-Za-z]")
_MARKUP_HINT = re.compile(rf"[`*~](?<={_TOKEN}[`*~])(?=[`*~]{{0,2}}{_TOKEN})")
_ESCAPE_HINT = re.compile(rf"\\(?<={_TOKEN}\\)(?=[_-])")
_SPACED_HINT = re.compile(rf"[ \t]{{1,3}}\S(?!\S)(?:[ \t]{{1,3}}\S(?!\S)){{{MIN_SPACED - 2}}}")
# The text's UTF-8 bytes for the spaced-run hint: a blank is a space, every other character
# one `x` (a lead byte; continuation bytes are dropped), other ASCII whitespace a line
# break. bytes.translate and find run in C, where the pattern above tries every blank.
_AS_BLANKS = bytes(
    0x20 if b in b" \t" else 0x0A if b < 0x80 and chr(b).isspace() else 0x78 for b in range(256)
)
_CONTINUATION = bytes(range(0x80, 0xC0))
# Every non-ASCII character `str.isspace` holds (tests/unit/test_secret_stream.py checks).
_WIDE_SPACES = "".join(
    map(chr, (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000))
)
_SPACED_RUN = b" x" * (MIN_SPACED - 1)
_FENCE_HINT = re.compile(rf"\n[ \t]*(?:---|\.\.\.)[ \t]*\n[ \t]*{_TOKEN}")
_TOKEN_CHAR = re.compile(_TOKEN)


@dataclass(frozen=True, slots=True)
class _Cut:
    """One deleting pass: the kept pieces' starts in the new text and in the old one."""

    new: list[int]
    old: list[int]

    def back(self, index: int) -> int:
        at = bisect.bisect_right(self.new, index) - 1
        return self.old[at] + index - self.new[at]


@dataclass(frozen=True, slots=True)
class JoinedView:
    """The view's text and the way back to offsets in the scanned text."""

    text: str
    cuts: tuple[_Cut, ...]
    folded: list[int] | None  # secret_normalize.visible's map, None when NFKC changed nothing

    def back(self, index: int) -> int:
        """The offset in the scanned text of view offset `index`."""
        for cut in reversed(self.cuts):
            index = cut.back(index)
        return back(self.folded, index)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The scanned text's span of the view's [start, end) (end > start)."""
        return self.back(start), self.back(end - 1) + 1


def needs_view(text: str) -> bool:
    """Whether the view may differ from the text with only its in-token line breaks joined
    (non-ASCII text aside, which the prefilter sends to the detector anyway)."""
    if "<" in text and _TAG_HINT.search(text):
        return True
    if ("`" in text or "*" in text or "~" in text) and _MARKUP_HINT.search(text):
        return True
    if "\\" in text and _ESCAPE_HINT.search(text):
        return True
    if _spaced_hint(text):
        return True
    return any(_token_ends_at(text, m.start()) for m in _FENCE_HINT.finditer(text))


def _spaced_hint(text: str) -> bool:
    """True where `_SPACED_HINT` matches (and a little more often)."""
    if not text.isascii() and any(space in text for space in _WIDE_SPACES):
        return _SPACED_HINT.search(text) is not None  # `\S` is not a byte's question there
    shape = text.encode("utf-8", "surrogatepass").translate(_AS_BLANKS, _CONTINUATION)
    shape = shape.replace(b"   ", b" ").replace(b"  ", b" ")  # 1 to 3 blanks apart (or more)
    return _SPACED_RUN in shape


def _token_ends_at(text: str, end: int) -> bool:
    """Whether the line ending at `end` ends with a token character (then blanks, maybe a
    `\\` continuation before them), as `_BREAK`'s look-behind asks."""
    at = end - 1
    while at >= 0 and text[at] in " \t":
        at -= 1
    if at >= 0 and text[at] == "\\":
        at -= 1
    return at >= 0 and _TOKEN_CHAR.match(text, at) is not None


def joined_view(text: str) -> JoinedView:
    """`text` as a reader reassembles it: NFKC without invisible characters, no HTML comments
    or tags, no markup inside a word, spaced letters closed up, in-token line breaks joined."""
    folded, where = visible(text)
    cuts: list[_Cut] = []
    current = folded
    for spans in (_comments_and_tags, _markup, _spaced, _breaks):
        found = spans(current)
        if found:
            current, cut = _delete(current, found)
            cuts.append(cut)
    return JoinedView(current, tuple(cuts), where)


def _comments_and_tags(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    if "<" not in text:
        return spans
    at = text.find("<!--")
    while at != -1:
        end = text.find("-->", at + 4)
        if end == -1:
            break  # unclosed: not a comment
        spans.append((at, end + 3))
        at = text.find("<!--", end + 3)
    starts = [start for start, _ in spans]
    tags = [m.span() for m in _TAG.finditer(text) if not _inside(spans, starts, m.start())]
    return sorted(spans + tags)


def _inside(spans: list[tuple[int, int]], starts: list[int], index: int) -> bool:
    at = bisect.bisect_right(starts, index) - 1
    return at >= 0 and index < spans[at][1]


def _markup(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _MARKUP.finditer(text)]


def _spaced(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    if not _spaced_hint(text):  # a run of MIN_SPACED holds the hint's match (found in C)
        return spans
    for run in _SPACED.finditer(text):
        if len(run.group().split()) >= MIN_SPACED:
            start = run.start()
            spans.extend((start + m.start(), start + m.end()) for m in _BLANKS.finditer(run.group()))
    return spans


def _breaks(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _BREAK.finditer(text)] if "\n" in text else []


def _delete(text: str, spans: list[tuple[int, int]]) -> tuple[str, _Cut]:
    """`text` without the sorted, disjoint `spans`, and the map back."""
    pieces: list[str] = []
    new: list[int] = [0]
    old: list[int] = [0]
    size = 0
    last = 0
    for start, end in spans:
        pieces.append(text[last:start])
        size += start - last
        last = end
        new.append(size)
        old.append(end)
    pieces.append(text[last:])
    return "".join(pieces), _Cut(new, old)
