"""Query terms, the match expressions of both stores, and snippets with the matched words marked.

Both indexes split text the same way for the words people search with: letters and digits
make a word, everything else separates, case is ignored (brain's keyword index and Lucene's
standard analyzer agree on that). Queries are never passed through as query syntax: every term
is quoted or escaped, so `AND`, `*`, `:` or a stray quote in a search box mean nothing special.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence

MAX_QUERY_CHARS = 500
MAX_TERMS = 32
SNIPPET_CHARS = 160
MARK_OPEN, MARK_CLOSE = "**", "**"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Lucene's English stop words: dropped from queries (unless nothing else is left) so that
# "how do we refund" ranks by "refund", and both stores' analyzers see the same terms.
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
))


def title_of(name: str) -> str:
    """A note name as words: `deploy-checklist` and `deploy_checklist` both index as two words."""
    return name.replace("-", " ").replace("_", " ")


def index_words(text: str) -> list[str]:
    """Every word of a note's text, case-folded as queries are (brain's keyword index)."""
    return _WORD.findall(text.lower() if text.isascii() else text.casefold())


# Bytes that separate words in UTF-8 text: every ASCII byte but letters and digits. Bytes of
# non-ASCII letters are kept, and a chunk that has any is split again by the regex.
_ASCII_SEPARATORS = bytes(b if chr(b).isalnum() or b >= 0x80 else 0x20 for b in range(256))


def word_counts(text: str) -> dict[str, int]:
    """How often each word of `index_words(text)` occurs, about twice as fast: the text is split
    by bytes.translate and bytes.split and counted in C, and the distinct chunks are decoded in
    one go. Only a chunk with a non-ASCII separator in it (`a—b`) is split again by the regex."""
    lowered = text.lower() if text.isascii() else text.casefold()
    # surrogatepass: a lone surrogate (a YAML escape) is a separator here, as in the regex.
    chunks = Counter(lowered.encode("utf-8", "surrogatepass").translate(_ASCII_SEPARATORS).split())
    if not chunks:
        return {}
    words = b" ".join(chunks).decode("utf-8", "surrogatepass").split(" ")
    if lowered.isascii() or "".join(words).isalnum():
        return dict(zip(words, chunks.values(), strict=True))
    counts: dict[str, int] = {}
    for chunk, times in zip(words, chunks.values(), strict=True):
        for word in (chunk,) if chunk.isalnum() else _WORD.findall(chunk):
            counts[word] = counts.get(word, 0) + times
    return counts


def query_terms(query: str) -> list[str]:
    """The distinct lower-case words of a query, in order, within the budget."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(query[:MAX_QUERY_CHARS]):
        seen.setdefault(match.group(0).casefold(), None)
        if len(seen) >= MAX_TERMS:
            break
    content = [t for t in seen if t not in STOP_WORDS]
    return content or list(seen)


_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_expression(terms: Sequence[str]) -> str:
    return " OR ".join(_LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms)


@functools.lru_cache(maxsize=256)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    """The terms, each ending a word: the regex engine finds them, no word-by-word loop. No
    look-behind for the word's start (the caller checks it): one at every position of the text
    made the search 2.5x slower."""
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?:{alternatives})(?![^\W_])")


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or not text[at - 1].isalnum()  # isalnum() is the regex's [^\W_]


def _has_word(lowered: str, term: str) -> bool:
    """Whether `term` is a whole word of `lowered` (str.find: no regex to compile per term)."""
    at = lowered.find(term)
    while at >= 0:
        end = at + len(term)
        if _starts_word(lowered, at) and (end == len(lowered) or not lowered[end].isalnum()):
            return True
        at = lowered.find(term, at + 1)
    return False


def _term_spans(text: str, terms: Sequence[str], start: int = 0) -> Iterator[tuple[int, int]]:
    """Where the words of `text` equal to a term (case-folded) are, in order, from `start`.

    A 10 KB body has ~1,500 words: matching the terms with one regex is ~20x cheaper than
    splitting every word and folding its case, which made snippets most of a query's cost.
    The text is matched lower-cased (same offsets; a case-sensitive regex is several times
    faster than IGNORECASE). Case folding is more than lower-casing for a few letters (ß = ss,
    ﬁ = fi), so texts that have them, and non-ASCII terms, take the word-by-word path.
    """
    wanted = set(terms)
    if not wanted:
        return iter(())
    lowered = _lowered(text, wanted)
    if lowered is not None:
        found = _terms_pattern(tuple(sorted(wanted))).finditer(lowered, start)
        return (m.span() for m in found if _starts_word(lowered, m.start()))
    return (m.span() for m in _WORD.finditer(text, start) if m.group(0).casefold() in wanted)


def _lowered(text: str, terms: Collection[str]) -> str | None:
    """`text` lower-cased, if that is its case folding letter for letter (the offsets stay the
    same) and the terms are ASCII: then a case-sensitive regex finds the terms in it."""
    return _lowered_text(text) if all(t.isascii() for t in terms) else None


@functools.lru_cache(maxsize=32)
def _lowered_text(text: str) -> str | None:
    """Cached: a hit's body is looked at for its terms and then for its snippet."""
    lowered = text.lower()
    if text.isascii() or (len(lowered) == len(text) and text.casefold() == lowered):
        return lowered
    return None


def flat_text(text: str) -> str:
    """`text` with every run of white space one space, as snippets show it."""
    return " ".join(text.split())


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS, flat: bool = False) -> str:
    """A window of `text` around the first matched word, every matched word marked `**w**`.
    `flat`: `text` is already `flat_text`."""
    line = text if flat else flat_text(text)
    spans = _term_spans(line, terms)
    first = next(spans, None)
    if first is None:
        clipped = line[:width]
        return clipped + ("…" if len(line) > width else "")
    start = max(0, first[0] - width // 4)
    if start:
        space = line.rfind(" ", 0, start)
        start = space + 1 if space >= 0 and start - space < 20 else start
    end = min(len(line), start + width)
    out: list[str] = ["…" if start else ""]
    cursor = start
    for hit_start, hit_end in itertools.chain([first], spans):
        if hit_start >= end:
            break  # the rest are past the window: never look at them
        if hit_start < start or hit_end > end:
            continue
        out += [line[cursor:hit_start], MARK_OPEN, line[hit_start:hit_end], MARK_CLOSE]
        cursor = hit_end
    out.append(line[cursor:end])
    if end < len(line):
        out.append("…")
    return "".join(out)


def matched_terms(text: str, terms: Sequence[str]) -> list[str]:
    """The terms that are words of `text`, in the terms' order."""
    lowered = _lowered(text, terms)
    if lowered is not None:
        return [t for t in terms if _has_word(lowered, t)]
    present = {text[a:b].casefold() for a, b in _term_spans(text, terms)}
    return [t for t in terms if t in present]
