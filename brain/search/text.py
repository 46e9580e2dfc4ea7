"""Query terms, the match expressions of both stores, and snippets with the matched words marked.

Both indexes split text the same way for the words people search with: letters and digits
make a word, everything else separates, case is ignored (SQLite FTS5 `unicode61` and Lucene's
standard analyzer agree on that). Queries are never passed through as query syntax: every
term is quoted, so `AND`, `*`, `:` or a stray quote in a search box mean nothing special.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

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


def query_terms(query: str) -> list[str]:
    """The distinct lower-case words of a query, in order, within the budget."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(query[:MAX_QUERY_CHARS]):
        seen.setdefault(match.group(0).casefold(), None)
        if len(seen) >= MAX_TERMS:
            break
    content = [t for t in seen if t not in STOP_WORDS]
    return content or list(seen)


def fts5_expression(terms: Sequence[str]) -> str:
    """Any of the terms (BM25 ranks notes with more and rarer terms first)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_expression(terms: Sequence[str]) -> str:
    return " OR ".join(_LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms)


@functools.lru_cache(maxsize=256)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    """The terms as whole words, any case: the regex engine finds them, no word-by-word loop."""
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{alternatives})(?![^\W_])", re.IGNORECASE)


def _term_matches(text: str, terms: Sequence[str]) -> Iterator[re.Match[str]]:
    """The words of `text` equal to a term (case-folded), in order.

    A 10 KB body has ~1,500 words: matching the terms with one regex is ~20x cheaper than
    splitting every word and folding its case, which made snippets most of a query's cost.
    Case folding is more than IGNORECASE for a few letters (ß = ss, ﬁ = fi), so texts that
    have them, and non-ASCII terms, take the word-by-word path.
    """
    wanted = set(terms)
    if not wanted:
        return iter(())
    if all(t.isascii() for t in wanted) and (text.isascii() or text.casefold() == text.lower()):
        found = _terms_pattern(tuple(sorted(wanted))).finditer(text)
    else:
        found = _WORD.finditer(text)
    return (m for m in found if m.group(0).casefold() in wanted)


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """A window of `text` around the first matched word, every matched word marked `**w**`."""
    flat = " ".join(text.split())
    hits = list(_term_matches(flat, terms))
    if not hits:
        clipped = flat[:width]
        return clipped + ("…" if len(flat) > width else "")
    start = max(0, hits[0].start() - width // 4)
    if start:
        space = flat.rfind(" ", 0, start)
        start = space + 1 if space >= 0 and start - space < 20 else start
    end = min(len(flat), start + width)
    out: list[str] = ["…" if start else ""]
    cursor = start
    for m in hits:
        if m.start() < start or m.end() > end:
            continue
        out += [flat[cursor : m.start()], MARK_OPEN, m.group(0), MARK_CLOSE]
        cursor = m.end()
    out.append(flat[cursor:end])
    if end < len(flat):
        out.append("…")
    return "".join(out)


def matched_terms(text: str, terms: Sequence[str]) -> list[str]:
    present = {m.group(0).casefold() for m in _term_matches(text, terms)}
    return [t for t in terms if t in present]
