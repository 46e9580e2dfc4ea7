"""Unlinked mentions: prose in a note that names a note it can reach without linking it. Pure.

Obsidian calls these "unlinked mentions". brain finds them with its own scope rules: the
caller builds a `NameIndex` of the notes a source may reach (its own scope, then `shared`,
the levels of link resolution in brain.resolve), and `find_mentions` reads one body.

The scan is linear in the body: the body is cut into words once, and each word looks up the
names that start with it (a dict from first word to names, longest first), so 10,000 names
cost no more than ten (never a regex alternation of every name). A match is whole words,
case-insensitive, and the text between its first and last word must equal the name with
case ignored and runs of spaces, `-` and `_` read as one space (a note `deploy-checklist`
is mentioned as "deploy checklist"; "deploy, checklist" is not it).

What is not prose never counts, as for links (brain.parse.note): code spans, fenced and
indented code and raw HTML (mistune decides, with markers, as brain.parse.spans.empty_links does),
the text and address of markdown links, wikilinks, bare URLs and math. The frontmatter is
never read: the caller passes the body and its first line.

A name two notes on the deciding level share is reported as ambiguous, with both candidates,
and proposes nothing: guessing would link the wrong note.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Any

from brain.parse.chunks import body_chunks, has_code_hint
from brain.parse.mistune_ast import tokens as markdown_tokens
from brain.parse.native import native
from brain.parse.spans.math import math_ranges
from brain.parse.surely_text import surely_text

WORD_RE = re.compile(r"\w+")
SPLIT_RE = re.compile(r"(\w+)")
SPACES_RE = re.compile(r"[\s_-]+")  # `deploy-checklist` is mentioned as "deploy checklist"
WIKILINK_SPAN_RE = re.compile(r"!?\[\[[^\[\]\n]*\]\]")
URL_RE = re.compile(r"(?:\b[a-zA-Z][a-zA-Z0-9+.-]*://|\bwww\.)\S+")
MARKER_RE = re.compile("\ue008(\\d+)\ue009")
NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
MIN_NAME_CHARS = 3  # `a`, `it`, `go`: a note named so would be "mentioned" everywhere
MAX_MENTIONS = 200  # per note: enough to act on, a bound on what a hostile note costs
MAX_NAME_WORDS = 12


# The Rust twin (brain.parse.native), if the installed module has it: an older build of the
# same ABI lacks it and is still used for the rest.
_native_table: Callable[[list[tuple[str, ...]]], object] | None = getattr(native, "MentionWords", None)
_native_candidates: Callable[[str, str, object], list[tuple[int, int, int, int, int]]] = getattr(
    native, "mention_candidates", lambda *_: [])


#: The Rust twin of the candidates with their prose (native/src/mention_prose.rs), if built: a
#: candidate (start, length, start, end, name number) and NOT_PROSE, PROSE or ASK
#: (`_prose_only` decides). Its first two fields are what orders candidates and skips one
#: inside the last match (`i < after`, `after = i + n`): where `candidates` gives a word index
#: and a word count, a twin that does not cut every word of the body gives the start and
#: length in characters, which decide the same (brain.parse.mention_seeds `_listed_py`).
Listed = tuple[int, int, int, int, int, int]
NOT_PROSE, PROSE, ASK = 0, 1, 2
ListedTwin = Callable[[str, str | None, str, object, bool], list[Listed] | None]
_native_listed: ListedTwin | None = getattr(native, "mention_seed_candidates", None)


def listed_native(
    body: str, index: NameIndex, blank_links: bool, twin: ListedTwin | None,
) -> list[Listed] | None:
    """The candidates and their prose by the Rust twin (native/src/mention_prose.rs), which
    decides the prose of most in the same pass; None where it is not built (or turned off:
    BRAIN_NATIVE=0), or where lower-casing changes the body's length (`candidates` then
    reads it word by word). The twin lower-cases the body itself where it knows Python's
    answer for each of its characters (ASCII, Latin-1, CJK, punctuation, emoji), else it is
    lower-cased here and sent again. `blank_links`: the words of wikilinks are no candidates."""
    table = index.native_table()
    if twin is None or table is None:
        return None
    found = twin(body, None, "", table, blank_links)
    if found is not None:
        return found
    lowered = body.lower()
    if len(lowered) != len(body):
        return None
    extra = "".join(c for c in set(NON_ASCII_RE.findall(lowered)) if _is_word_char(c))
    return twin(body, lowered, extra, table, blank_links)


def native_table_available() -> bool:
    return _native_table is not None


@dataclass(frozen=True, slots=True)
class MentionTarget:
    """A note a mention may link: its id, what goes between `[[` and `]]` to reach it from
    the source (its name, or `shared/name` where an own note has that name), and its level
    (0: the source's own scope, 1: `shared`), the order link resolution tries them in."""

    id: str
    link: str
    level: int


@dataclass(frozen=True, slots=True)
class Mention:
    """One unlinked mention: where (1-based line, 1-based column in code points), the text as
    written, and the note it names; `target` is None and `candidates` lists the notes when
    the name is ambiguous."""

    line: int
    column: int
    text: str
    target: str | None
    link: str | None
    candidates: tuple[str, ...] = ()

    @property
    def replacement(self) -> str | None:
        """The wikilink that links this mention, keeping the text as written."""
        if self.link is None:
            return None
        return f"[[{self.link}]]" if self.text == self.link else f"[[{self.link}|{self.text}]]"


@lru_cache(maxsize=65536)  # a sweep asks each note's names again as its seeds' vocabulary did
def name_words(name: str) -> tuple[str, ...]:
    # As the body's words (`_words`); one copy of each word: a vocabulary's 20,000 word tuples
    # cross into each parse helper pickled, every copy of a word written out again.
    return tuple(sys.intern(w.lower()) for w in WORD_RE.findall(name))


@lru_cache(maxsize=65536)  # a sweep squashes the same few thousand names' spans again and again
def squash(text: str) -> str:
    return SPACES_RE.sub(" ", text.strip()).casefold()


class NameIndex:
    """Names -> the notes they name, looked up by first word (see the module docstring)."""

    _targets: dict[str, tuple[MentionTarget, ...]]
    _count: int
    _lengths: dict[str, list[int]]  # first word -> its names' word counts, longest first
    _words: list[tuple[str, ...]]  # by number: what the Rust twin answers with
    _names: list[frozenset[str]]  # by number: the squashed names of those words

    def __init__(self, names: Iterable[tuple[str, MentionTarget]]) -> None:
        by_name: dict[str, dict[str, MentionTarget]] = {}
        words_of: dict[str, tuple[str, ...]] = {}
        for name, target in names:
            squashed, words = squash(name), name_words(name)
            if len(squashed) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
                continue
            by_name.setdefault(squashed, {})[target.id] = target
            words_of[squashed] = words
        self.__dict__.update(NameIndex.of_words(words_of).__dict__)  # its words, numbered so
        self._targets = {k: tuple(v.values()) for k, v in by_name.items()}

    @classmethod
    def of_names(cls, names: Iterable[str]) -> NameIndex:
        """The index of names that are their own targets (a seed's vocabulary): the same
        words, numbers and names as `NameIndex((n, MentionTarget(n, n, 0)) for n in names)`
        without the targets, which a seed never asks for (`targets` answers ())."""
        found = ((squash(name), name_words(name)) for name in names)  # a squashed name's last wins
        return cls.of_words({q: w for q, w in found
                             if len(q) >= MIN_NAME_CHARS and 0 < len(w) <= MAX_NAME_WORDS})

    @staticmethod
    def of_words(words_of: dict[str, tuple[str, ...]]) -> NameIndex:
        """`of_names` of the names whose words (`name_words`) are these, by squashed name: the
        empty index extended (one way to number words: in the order first met)."""
        return _EMPTY.extended(words_of)

    def extended(self, words_of: dict[str, tuple[str, ...]]) -> NameIndex:
        """This index (of names alone) with more whose squashed names are not here: the names
        of `of_words({**mine, **words_of})`, numbered after these, what is unchanged shared
        (each scope of a sync is its names and the shared ones: mention_seeds.Vocabulary)."""
        new = NameIndex.__new__(NameIndex)
        lengths, words, names = dict(self._lengths), list(self._words), list(self._names)
        numbers = dict(self._numbers)
        by_words: dict[tuple[str, ...], list[str]] = {}
        for squashed, these in words_of.items():
            by_words.setdefault(these, []).append(squashed)
        for these in [w for w in by_words if w in numbers]:  # word tuples here: more names
            k = numbers[these]
            names[k] = names[k].union(by_words[these])
        fresh = [w for w in by_words if w not in numbers]  # numbered after these, in C
        numbers.update(zip(fresh, range(len(words), len(words) + len(fresh)), strict=True))
        words += fresh
        names += map(frozenset, map(by_words.__getitem__, fresh))
        grown: dict[str, set[int]] = {}
        for these in fresh:
            grown.setdefault(these[0], set()).add(len(these))
        for first, counts in grown.items():  # new lists: this index's are shared
            held = lengths.get(first)
            lengths[first] = sorted(counts.union(held) if held else counts, reverse=True)
        new._targets, new._count = {}, self._count + len(words_of)
        new._lengths, new._words, new._names = lengths, words, names
        new.first_words, new._numbers, new._native = frozenset(lengths), numbers, None
        return new

    def _derive(self) -> None:
        """What the words and lengths give at once (not pickled: `__getstate__`)."""
        self.first_words = frozenset(self._lengths)
        self._numbers = {words: k for k, words in enumerate(self._words)}
        self._native: object = None

    def __getstate__(self) -> dict[str, object]:
        # What a parse helper receives built (brain.parse.mention_seeds.Vocabulary): every
        # field but the Rust twin's table, which is built again on first use over there.
        # Nor what the words give back at once (`_numbers`, `first_words`): less to read.
        state = dict(self.__dict__)
        for derived in ("_native", "_numbers", "first_words"):
            del state[derived]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._derive()

    def __len__(self) -> int:
        return self._count

    def lengths(self, word: str) -> list[int] | None:
        return self._lengths.get(word)

    def number(self, words: tuple[str, ...]) -> int | None:
        return self._numbers.get(words)

    def names_of(self, number: int) -> frozenset[str]:
        return self._names[number]

    @property
    def names_by_number(self) -> list[frozenset[str]]:
        """`names_of` of every number, as a list (a seed asks it once a candidate)."""
        return self._names

    def native_table(self) -> object | None:
        """The Rust twin's copy of the words (built on first use), None without the twin."""
        if _native_table is None:
            return None
        if self._native is None:
            self._native = _native_table(self._words)  # tuples cross as lists do
        return self._native

    def targets(self, squashed: str) -> tuple[MentionTarget, ...]:
        return self._targets.get(squashed, ())

    def named(self, words: tuple[str, ...], squashed: str) -> bool:
        """Whether a text of these words, squashed so, is one of the names (as
        `find_mentions` decides a candidate: brain.parse.mention_seeds asks the same)."""
        k = self._numbers.get(words)
        return k is not None and squashed in self._names[k]

    def words_of(self, number: int) -> tuple[str, ...]:
        return self._words[number]


def _empty_index() -> NameIndex:
    empty = NameIndex.__new__(NameIndex)
    empty._targets, empty._count, empty._lengths, empty._words, empty._names = {}, 0, {}, [], []
    empty._derive()
    return empty


_EMPTY = _empty_index()  # never changed: `extended` copies what it extends


def find_mentions(
    body: str, body_line: int, index: NameIndex, *, source_id: str,
    linked: Collection[str] = (),
) -> list[Mention]:
    """The unlinked mentions in `body` (first line `body_line`), in order. Mentions of the
    source itself and of notes it already links (`linked`: target ids) are left out."""
    if not len(index):
        return []
    # The Rust twin lists the candidates with, for most, whether they are prose; else all
    # are asked of `_prose_only` (mistune), the reference.
    listed = listed_native(body, index, False, _native_listed)
    rows = listed if listed is not None else [(*c, ASK) for c in candidates(body, index)]
    matched: list[tuple[int, int, str, int]] = []  # start, end, squashed name, prose state
    after = 0  # a match's words are not the start of another
    for i, n, start, end, k, state in rows:
        if i < after:
            continue  # inside the last match, or a shorter try of a word that matched
        span = body[start:end]
        if "\n" in span:
            continue
        squashed = squash(span)
        if squashed in index.names_of(k):
            matched.append((start, end, squashed, state))
            after = i + n
            if len(matched) >= MAX_MENTIONS * 4:
                break
    found = [(s, e, q) for s, e, q, _state in matched]
    if not found or not _any_reported(found, index, source_id, linked):
        return []  # e.g. only the text of its own links: no need to read the markdown
    asked = [(s, e, q) for s, e, q, state in matched if state == ASK]
    prose = {(s, e) for s, e, _ in _prose_only(body, asked)} if asked else set()
    found = [(s, e, q) for s, e, q, state in matched if state == PROSE or (state == ASK and (s, e) in prose)]
    out: list[Mention] = []
    for start, end, squashed in found:
        mention = _mention(body, start, end, index.targets(squashed), source_id, linked, body_line)
        if mention is not None:
            out.append(mention)
            if len(out) >= MAX_MENTIONS:
                break
    return out


def _any_reported(
    found: list[tuple[int, int, str]], index: NameIndex, source_id: str, linked: Collection[str],
) -> bool:
    """Whether any match names a note `_mention` reports (not the source, not linked): most
    matches of a sweep are the words of the note's own links, and a note with only those
    needs no markdown parse. All matches still go to `_prose_only` when one counts, so what
    it decides stays what it decided before."""
    for name in {squashed for _s, _e, squashed in found}:
        targets = index.targets(squashed=name)
        level = min(t.level for t in targets)
        if not any(t.id == source_id or t.id in linked for t in targets if t.level == level):
            return True
    return False


def _words(body: str) -> tuple[list[str], list[int], list[int]]:
    """The body's words, lower-cased, with their offsets: one split and one running sum, both
    in C (a match object per word was most of the scan). `str.lower` keeps offsets but for a
    few characters (`İ`); a body with one is cut word by word."""
    lowered = body.lower()
    if len(lowered) != len(body):
        found = [(m.start(), m.end(), m.group().lower()) for m in WORD_RE.finditer(body)]
        return [w for _, _, w in found], [a for a, _, _ in found], [b for _, b, _ in found]
    parts = SPLIT_RE.split(lowered)  # separator, word, separator, ..., separator
    offsets = list(accumulate(map(len, parts)))
    return parts[1::2], offsets[0::2][:-1], offsets[1::2]


def candidates(body: str, index: NameIndex) -> list[tuple[int, int, int, int, int]]:
    """Every (word index, word count, start, end, name number) where the body's words are a
    name's words, in order, a word's longest first; `find_mentions` keeps the first of a word
    whose text squashes to the name. Rust's twin (native/src/mentions.rs) where it is built:
    Python's `\\w` on this much text was most of a workspace sweep."""
    lowered = body.lower()
    table = index.native_table()
    if table is None or len(lowered) != len(body):
        return candidates_py(body, index)
    extra = "" if lowered.isascii() else "".join(
        c for c in set(NON_ASCII_RE.findall(lowered)) if _is_word_char(c))
    return _native_candidates(lowered, extra, table)


def candidates_py(body: str, index: NameIndex) -> list[tuple[int, int, int, int, int]]:
    """`candidates` in Python: the reference of the Rust twin, and its fallback."""
    words, starts, ends = _words(body)
    out: list[tuple[int, int, int, int, int]] = []
    for i in [k for k, w in enumerate(words) if w in index.first_words]:
        for n in index.lengths(words[i]) or ():
            if i + n > len(words):
                continue
            k = index.number(tuple(words[i : i + n]))
            if k is not None:
                out.append((i, n, starts[i], ends[i + n - 1], k))
    return out


@lru_cache(maxsize=4096)
def _is_word_char(char: str) -> bool:
    return WORD_RE.fullmatch(char) is not None


def _mention(
    body: str, start: int, end: int, targets: tuple[MentionTarget, ...], source_id: str,
    linked: Collection[str], body_line: int,
) -> Mention | None:
    if not targets:
        return None
    # Counted in C for the few reported, not a match object for every line of every body.
    line, column = body_line + body.count("\n", 0, start), start - body.rfind("\n", 0, start)
    return mention_at(line, column, body[start:end], targets, source_id, linked)


def mention_at(
    line: int, column: int, text: str, targets: tuple[MentionTarget, ...], source_id: str,
    linked: Collection[str],
) -> Mention | None:
    """The mention of `targets` written `text` at (line, column), or None when the deciding
    level names the source itself or a note it links (brain.parse.mention_seeds asks too)."""
    if not targets:
        return None
    level = min(t.level for t in targets)
    deciding = sorted((t for t in targets if t.level == level), key=lambda t: t.id)
    if any(t.id == source_id or t.id in linked for t in deciding):
        return None  # the note itself, or a note it links already
    if len(deciding) > 1:
        return Mention(line, column, text, None, None, tuple(t.id for t in deciding))
    return Mention(line, column, text, deciding[0].id, deciding[0].link)


def _prose_only(body: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The matches that are prose: not in a wikilink, URL or math, and (by mistune) not in
    code, HTML or a markdown link."""
    skip = _merged(_line_spans(body, found) + math_ranges(body))
    starts = [s for s, _ in skip]
    kept = [f for f in found if not _inside(skip, starts, f[0], f[1])]
    if not kept or not _needs_ast(body):
        return kept
    # Each chunk (brain.parse.chunks: they end at blank lines outside fences) alone; by mistune
    # only where code or link syntax may be open before a match (brain.parse.surely_text).
    out: list[tuple[int, int, str]] = []
    k = 0
    for start, end in body_chunks(body):
        mine: list[tuple[int, int, str]] = []
        while k < len(kept) and kept[k][0] < end:
            mine.append(kept[k])
            k += 1
        if not mine:
            continue
        chunk = body[start:end]
        if not _needs_ast(chunk):
            out += mine
            continue
        shifted = [(s - start, e - start, n) for s, e, n in mine]
        live = None if all(surely_text(chunk, s) for s, _e, _n in shifted) else _in_text(chunk, shifted)
        out += [f for index, f in enumerate(mine) if live is None or index in live]
    return out


def _line_spans(body: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """The wikilinks and URLs of the lines that hold a match: neither spans a line (their
    patterns stop at `\\n`), so reading those lines alone finds what reading the body finds
    there, and a sweep does not read every line twice."""
    out: list[tuple[int, int]] = []
    line_end = -1
    for start, _end, _name in found:
        if start < line_end:
            continue  # this line was read
        line_start = body.rfind("\n", 0, start) + 1
        line_end = body.find("\n", start)
        if line_end < 0:
            line_end = len(body)
        # Most lines have neither: a substring test (in C) spares both regular expressions.
        if body.find("[[", line_start, line_end) >= 0:
            out += [(m.start(), m.end()) for m in WIKILINK_SPAN_RE.finditer(body, line_start, line_end)]
        if body.find("://", line_start, line_end) >= 0 or body.find("www.", line_start, line_end) >= 0:
            out += [(m.start(), m.end()) for m in URL_RE.finditer(body, line_start, line_end)]
    return out


def _needs_ast(text: str) -> bool:
    """Whether `text` has any code, HTML or markdown link syntax (wikilinks, URLs and math
    are cut out before; `[x]:` definitions are a code hint): without, every word is text."""
    return has_code_hint(text) or "][" in text


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, overlapping ones joined (a URL inside a wikilink is one span)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _inside(spans: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether [start, end) touches one of the disjoint sorted `spans`."""
    k = bisect_right(starts, end - 1) - 1
    return k >= 0 and spans[k][1] > start


def _in_text(body: str, found: list[tuple[int, int, str]]) -> set[int]:
    """Indexes of the matches whose first character mistune reads as plain text."""
    pieces: list[str] = []
    last = 0
    for index, (start, _end, _name) in enumerate(found):
        pieces += [body[last:start], f"\ue008{index}\ue009"]
        last = start
    pieces.append(body[last:])
    live: set[int] = set()
    for token in markdown_tokens("".join(pieces)):
        _walk(token, live)
    return live


def _walk(token: Any, live: set[int]) -> None:
    if not isinstance(token, dict):
        return
    kind = token.get("type")
    if kind in ("link", "image"):
        return  # a link's text already links somewhere
    if kind == "text":
        live.update(int(i) for i in MARKER_RE.findall(str(token.get("raw", ""))))
        return
    for child in token.get("children") or ():
        _walk(child, live)
