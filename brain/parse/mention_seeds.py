"""Unlinked mentions in two halves, so that a workspace sweep does not read every note again.

`find_mentions` (brain.parse.mentions) needs a note's body and the names the note may reach.
A first sync's parse helpers hold every body, but not the names: those are known only once
every note is parsed (a `name:` or an alias is in a note's frontmatter), and each scope
reaches its own. So the work is cut where the names come in:

- `seed_of`, in the parse helper, on the body it holds: every place whose words are one of
  the sync's names the note may reach (`ScopedVocabulary.for_scope`: the file names of the
  walk's notes of its scope and of `shared`),
  with whether it is prose (not code, a link, a URL or math: `_prose_only`, the reference's
  own test), and, for prose, its line, column and text. A note with no such place is `()`.
  The Rust twin (native/src/mention_prose.rs) finds the places and decides the prose of
  most of them in one pass; what it is not sure of goes to `_prose_only` (mistune) as before.
- `seeded_mentions`, in the ingesting process, once the names are known: the reference's
  own choices on the seed instead of the body (the longest name a word starts that the
  source reaches, a match's words not the start of another, the caps, then who it names).

The two give exactly `find_mentions`' answer wherever the names the source reaches are all
in the vocabulary (`Vocabulary.covers`); a caller checks that and reads the note otherwise
(an alias whose words no file name has). tests/unit/test_mention_seeds.py holds them equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Protocol

from brain.parse.mentions import (
    ASK,
    MAX_MENTIONS,
    MAX_NAME_WORDS,
    MIN_NAME_CHARS,
    NOT_PROSE,
    Listed,
    ListedTwin,
    Mention,
    MentionTarget,
    NameIndex,
    _native_listed,
    _prose_only,
    candidates,
    listed_native,
    mention_at,
    name_words,
    squash,
)

#: A candidate: (start, length: in characters, the vocabulary's number of its words, its text
#: squashed, whether it is prose, and for prose its line, column and text as written). The
#: start and length are all `seed_survivors` needs: candidates come in order, a word's
#: longest first, and one starting before the last match's end lies inside it.
SeedEntry = tuple[int, int, int, str, bool, int, int, str]
#: What a parse helper sends back for a note: its candidates in the reference's order.
Seed = tuple[SeedEntry, ...]
#: WIKILINK_SPAN_RE without its `!?`: a literal start, found eight times faster (a `!` left
#: before a blanked link is no word and no separator either).
LINK_CORE_RE = re.compile(r"\[\[[^\[\]\n]*\]\]")
#: Candidates a seed holds at most: a note past it (a hostile one) is read again instead.
SEED_MAX = 16 * MAX_MENTIONS

#: The Rust twin of the candidates and their prose, if the installed module has it (an older
#: build of the same ABI lacks it: the candidates' own twin and Python's prose then).
_native_seed: ListedTwin | None = _native_listed


class Vocabulary:
    """Every name a sync's notes may be mentioned by, looked up as `find_mentions` looks up
    a scope's names (a NameIndex of the names alone: `NameIndex.of_names`). It crosses into
    the parse helpers built (`__getstate__`): each helper built every scope's index again
    from the names, a tenth of a second of a 10,000-note first sync's CPU per helper, where
    reading the built one back takes a few milliseconds."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names: list[str] | None = sorted(set(names))
        self._won: dict[str, tuple[str, tuple[str, ...]]] | None = _winners(self._names)
        self.index = NameIndex.of_words({squashed: words for squashed, (_n, words) in self._won.items()})
        # A match is words and the separators between them (`squash`): it can start or end
        # inside a wikilink only if a name holds its `[[` or `]]`. With no such name, the
        # text of wikilinks (never prose) is blanked before the words are looked up.
        self.blank_links = not _bracketed(self._names)
        self._own: list[str] = []
        self._base: Vocabulary | None = None

    @property
    def names(self) -> list[str]:
        """Its names, sorted (those of an `extended` one worked out when asked)."""
        if self._names is None:
            assert self._base is not None
            self._names = sorted({*self._own, *self._base.names})
        return self._names

    def extended(self, names: Iterable[str]) -> Vocabulary:
        """`Vocabulary([*names, *self.names])`, this one's index extended (NameIndex.extended)
        rather than every name squashed and indexed again: a sync's scopes each reach the
        shared names, and building those once a scope was half of the vocabulary's cost. The
        names are numbered otherwise (this one's first): seeds and sweeps ask the same object,
        or its pickled copy. Where a name here would lose its words to one of `names` (they
        squash alike, `of_names` keeps the last's words), it is built whole."""
        own = sorted(set(names).difference(self.names))
        won = self._won if self._won is not None else _winners(self.names)
        added: dict[str, tuple[str, ...]] = {}
        for squashed, (name, words) in _winners(own).items():
            held = won.get(squashed)
            if held is None:
                added[squashed] = words
            elif held[1] != words and name > held[0]:
                return Vocabulary([*own, *self.names])
        new = Vocabulary.__new__(Vocabulary)
        new._names, new._won, new._own, new._base = None, None, own, self
        new.index = self.index.extended(added)
        new.blank_links = self.blank_links and not _bracketed(own)
        return new

    def __getstate__(self) -> _State:
        # An extended one's names are its own and its base's (pickled once for every scope).
        names = self.names if self._base is None else None
        return names, self.index, self.blank_links, self._own, self._base

    def __setstate__(self, state: _State) -> None:
        self._names, self.index, self.blank_links, self._own, self._base = state
        self._won = None

    def covers(self, words: tuple[str, ...], squashed: str) -> bool:
        """Whether a name of these words, squashed so, was looked for in every seed."""
        return self.index.named(words, squashed)


#: What a Vocabulary pickles: its names (None where they are its own and its base's), index,
#: whether links are blanked, its own names and its base.
_State = tuple[list[str] | None, NameIndex, bool, list[str], Vocabulary | None]


def _bracketed(names: list[str]) -> bool:
    """Whether a name holds `[` or `]` (one search of their text, not one a name)."""
    text = "\n".join(names)
    return "[" in text or "]" in text


def _winners(names: list[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each squashed name's last name in `names` with its words: the words `NameIndex.of_names`
    keeps for it (the names NameIndex leaves out are not here)."""
    found = zip(map(squash, names), names, map(name_words, names), strict=True)
    return {squashed: (name, words) for squashed, name, words in found
            if len(squashed) >= MIN_NAME_CHARS and words and len(words) <= MAX_NAME_WORDS}


class ScopedVocabulary:
    """A sync's names by the scope of their notes. A note of one scope reaches its own
    scope's names and `shared`'s (the levels of link resolution), so it is seeded with those
    alone (`for_scope`): the names of other scopes would only add matches to test for prose
    that no sweep reports. It crosses into the parse helpers with every scope's vocabulary
    built (`__getstate__`): the ingesting process builds them all in any case, for the chunks
    it parses itself and for the sweep. Each is the shared one's, extended."""

    def __init__(self, names: dict[str, list[str]], shared: str = "shared") -> None:
        self.names = names
        self.shared = shared
        self._scopes: dict[str, Vocabulary] = {}

    def __getstate__(self) -> tuple[dict[str, list[str]], str, dict[str, Vocabulary]]:
        for scope in self.names:
            self.for_scope(scope)
        return self.names, self.shared, self._scopes

    def __setstate__(self, state: tuple[dict[str, list[str]], str, dict[str, Vocabulary]]) -> None:
        self.names, self.shared, self._scopes = state

    def for_scope(self, scope: str) -> Vocabulary:
        """The names a note of `scope` is seeded with: its scope's and the shared ones."""
        found = self._scopes.get(scope)
        if found is None:
            base = self._scopes.get(self.shared)
            if base is None:
                base = self._scopes[self.shared] = Vocabulary(self.names.get(self.shared, []))
            own = self.names.get(scope) if scope != self.shared else None
            found = self._scopes[scope] = base.extended(own) if own else base
        return found


class Reachable(Protocol):
    """The names one source may reach (a NameIndex is one): as `find_mentions` asks them."""

    def named(self, words: tuple[str, ...], squashed: str) -> bool: ...

    def targets(self, squashed: str) -> tuple[MentionTarget, ...]: ...


def seed_of(
    body: str, body_line: int, vocabulary: Vocabulary, listed: list[Listed] | None = None,
) -> Seed | None:
    """A note's seed (the module docstring); None past SEED_MAX candidates. `listed`: the
    body's candidates as `_listed_native` finds them, where a scan shared with the keyword
    count found them already (brain.index.seeded_counting)."""
    index = vocabulary.index
    if not len(index):
        return ()
    if listed is None:
        listed = _listed_native(body, vocabulary)
    if listed is None:
        listed = _listed_py(body, vocabulary)
    if not listed:
        return ()
    # One pass, in order: each candidate whose text squashes to one of its number's names,
    # with its line and column where it may be prose. Lines are counted once (starts ascend).
    # What the twin left undecided (ASK) is taken as prose here, then asked below.
    names = index.names_by_number
    out: list[SeedEntry] = []
    asked: list[tuple[int, int, str]] = []
    asked_at: list[int] = []
    line, at = body_line, 0
    for i, n, start, end, k, state in listed:
        span = body[start:end]
        if "\n" in span:
            continue  # as find_mentions: a name never spans lines
        squashed = squash(span)
        if squashed not in names[k]:
            continue
        if state == NOT_PROSE:
            out.append((i, n, k, squashed, False, 0, 0, ""))
        else:
            if state == ASK:
                asked.append((start, end, squashed))
                asked_at.append(len(out))
            line += body.count("\n", at, start)
            at = start
            out.append((i, n, k, squashed, True, line, start - body.rfind("\n", 0, start), span))
        if len(out) > SEED_MAX:
            return None
    if asked:
        # Which are prose, by the reference's own test on all of them at once (all of a
        # chunk's, as the reference reads them: see native/src/mention_prose.rs).
        prose = {(s, e) for s, e, _ in _prose_only(body, asked)}
        for (start, end, _squashed), j in zip(asked, asked_at, strict=True):
            if (start, end) not in prose:
                i, n, k, squashed = out[j][:4]
                out[j] = (i, n, k, squashed, False, 0, 0, "")
    return tuple(out)


def _listed_native(body: str, vocabulary: Vocabulary) -> list[Listed] | None:
    """The candidates and their prose by the Rust twin (brain.parse.mentions.listed_native),
    the words of wikilinks left out where no name holds a bracket."""
    return listed_native(body, vocabulary.index, vocabulary.blank_links, _native_seed)


def _listed_py(body: str, vocabulary: Vocabulary) -> list[Listed]:
    """`_listed_native` in Python, every candidate's prose left to `_prose_only`: the
    reference of the twin, and its fallback."""
    # Most matches are the words of the note's own links: blanked (same length, so the same
    # offsets), they are not looked up, squashed or tested for prose. Each candidate's word
    # index and count become its start and length: words are disjoint and ascend, so the
    # first word of a later candidate is inside the last match (its index under the match's
    # index plus count) exactly when it starts before the match's end (`seed_survivors`).
    scanned = LINK_CORE_RE.sub(_blank, body) if vocabulary.blank_links and "[[" in body else body
    found = candidates(scanned, vocabulary.index)
    return [(start, end - start, start, end, k, ASK) for _i, _n, start, end, k in found]


def _blank(link: re.Match[str]) -> str:
    return "\x00" * (link.end() - link.start())  # no word, no separator: nothing spans it


def seed_survivors(seed: Seed, vocabulary: Vocabulary, names: Reachable) -> list[SeedEntry]:
    """The seed's matches `find_mentions` keeps for a source reaching `names`, before it
    asks whom they name: the first name of a word the source reaches, not inside the last
    match (its prose or not), at most MAX_MENTIONS * 4, and of those the prose ones."""
    kept: list[SeedEntry] = []
    after = matched = 0
    words_of = vocabulary.index.words_of
    for entry in seed:
        i = entry[0]
        if i < after or not names.named(words_of(entry[2]), entry[3]):
            continue
        after = i + entry[1]
        matched += 1
        if entry[4]:
            kept.append(entry)
        if matched >= MAX_MENTIONS * 4:
            break
    return kept


def seeded_mentions(
    survivors: list[SeedEntry], names: Reachable, *, source_id: str, linked: Collection[str],
) -> list[Mention]:
    """`find_mentions`' answer from `seed_survivors`: each names whom it names."""
    out: list[Mention] = []
    for _i, _n, _k, squashed, _prose, line, column, text in survivors:
        mention = mention_at(line, column, text, names.targets(squashed), source_id, linked)
        if mention is not None:
            out.append(mention)
            if len(out) >= MAX_MENTIONS:
                break
    return out


def mentions_from_seed(
    seed: Seed, vocabulary: Vocabulary, names: Reachable, *, source_id: str,
    linked: Callable[[], Collection[str]],
) -> list[Mention]:
    """Both steps for one note; `linked` is asked only when some match survives."""
    survivors = seed_survivors(seed, vocabulary, names)
    if not survivors:
        return []
    return seeded_mentions(survivors, names, source_id=source_id, linked=linked())
