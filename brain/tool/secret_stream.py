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

from brain.tool.secret_normalize import back, visible

_TOKEN = r"[\w+/=-]"  # a character a key or token is made of (base64 and URL-safe base64)
# HTML comments are cut by str.find (an unclosed `<!--` must not make a lazy `.*?` rescan the
# rest of the text from every opener); tags by a bounded pattern.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:[ \t][^<>\n]{0,200})?/?>")
# Emphasis, code marks, strike-through and backslash escapes inside a token (`ghp_A1**b2**`).
_MARKUP = re.compile(rf"(?<={_TOKEN})(?:[`*~]{{1,3}}|\\(?=[_*`~-]))(?={_TOKEN})")
# A run of single characters each set apart by one to three blanks: `g h p _ A 1 ...`.
_SPACED = re.compile(r"(?<!\S)\S(?!\S)(?:[ \t]{1,3}\S(?!\S))+")
MIN_SPACED = 8  # characters in a run before it is read as one word (prose has `a b c` lists)
_BLANKS = re.compile(r"[ \t]+")
# A line break inside a token: a word ends one line (maybe with a `\` continuation) and the
# next line (maybe after a `---` or `...` fence line: frontmatter and body are one text, and
# an indent) goes on with one. Not when the next line starts a key (`name:` / `name=`: YAML,
# INI, code), or a known token's prefix or a secret keyword: joining it to the line before
# would hide its start from the patterns' `\b`.
_BREAK = re.compile(
    rf"(?<={_TOKEN})\\?[ \t]*\n(?:[ \t]*(?:---|\.\.\.)[ \t]*\n)?[ \t]*(?={_TOKEN})"
    rf"(?!{_TOKEN}{{0,200}}[ \t]*[:=])"
    r"(?!(?i:gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk[-_]|rk_|akia|asia|abia|acca|aiza|hf_|"
    r"npm_|pypi-|sg\.|eyj|password|passwd|pwd|passphrase|secret|client|api|access|auth|bearer|"
    r"private|token|aws))"
)
# What makes the view differ from the text with its in-token line breaks taken out (the
# ingest gate's own join): markup, tags, comments, spaced letters, a fence between two words.
_REWRITES = re.compile(
    rf"<[!/A-Za-z]|{_TOKEN}(?:[`*~]|\\[_*`~-]){_TOKEN}|"
    rf"(?<!\S)\S(?!\S)(?:[ \t]{{1,3}}\S(?!\S)){{{MIN_SPACED - 1}}}|"
    rf"{_TOKEN}\\?[ \t]*\n[ \t]*(?:---|\.\.\.)[ \t]*\n[ \t]*{_TOKEN}"
)


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
    return _REWRITES.search(text) is not None


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
