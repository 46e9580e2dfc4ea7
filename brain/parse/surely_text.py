"""Whether mistune reads a match in a chunk as text, decided from the text before the match
where that is sure, so that `_prose_only` (brain.parse.mentions) runs mistune on fewer chunks.

A chunk with code or link syntax anywhere goes to mistune (brain.parse.chunks). In notes of the
real shape most such chunks hold one markdown link (`See [the docs](https://...)`) and names
mentioned before or after it: mistune was most of their seeds' cost. What makes a match not
text is opened before it: code (a backtick, `~~~`, an indent of four), HTML or an autolink
(`<`), an escape, a link's text or destination (`[`). A link closed before the match (a
wikilink not followed by `(`, `[` or `:`; `[text](destination)` of the plainest form) leaves
nothing open, whether mistune takes it as a link or not; emphasis only nests text. With none
of those before it, the match is text whatever follows. Pure; tests/unit/test_surely_text.py
holds it against mistune on a table and on random chunks.
"""

from __future__ import annotations

import re

from brain.parse.chunks import has_code_hint

#: Links closed where they stand: no bracket, line break, code, HTML or escape inside, and a
#: destination without spaces or parentheses (a title or nested parentheses may run on).
CLOSED_LINK_RE = re.compile(r"\[\[[^\[\]\n]*\]\](?![(\[:])|\[[^\[\]\n`<\\]*\]\([^\s()<>\\`]*\)")


def surely_text(chunk: str, start: int) -> bool:
    """True only where mistune, reading `chunk`, reads the character at `start` as text (a
    False decides nothing: mistune is asked)."""
    before = chunk[:start]
    if "[" in before:
        before = CLOSED_LINK_RE.sub("", before)  # no line break or hint is taken with them
        if "[" in before:
            return False  # an open bracket may close after the match: a link's text
    return not has_code_hint(before)
