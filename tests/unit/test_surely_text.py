"""`surely_text` (brain/parse/surely_text.py) says a match is text only where mistune reads it
as text: on a table of what may be open before a match (code spans and fences, indents, HTML,
autolinks, escapes, a link's text, destination or title, wikilinks followed by a destination)
and of what is closed before it, and on random chunks built from those pieces, each word's
start asked with every other marker in place, as `_prose_only` asks mistune. Where it decides,
`_prose_only` answers as mistune alone does. The table also says what it decides, so a rule
that never decided (correct, and as slow as before) fails too."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.parse import mentions
from brain.parse.mentions import _in_text, _prose_only
from brain.parse.surely_text import surely_text

WORD_START_RE = re.compile(r"(?<!\w)\w")

# (chunk with `@` where the match starts, whether surely_text decides it is text)
TABLE = [
    ("See [the docs](https://x.org/a?b=1&c=2) or here: @name.", True),
    ("Ask [[deploy-guide]] and [[a|b]] then @name.", True),
    ("Plain *emphasis* and _more_ around @name **too**.", True),
    ("@name first, then [a link](https://x.org) and `code`.", True),
    ("- a list item names @name.", True),
    ("> quoted @name.", True),
    ("[a link with @name](https://x.org)", False),
    ("[a](https://x.org \"a title with @name\")", False),
    ("[a](https://x.org/(b) @name)", False),
    ("[a](https://x.org \"t) @name\")", False),  # the title runs past its `)`
    ("[[odd]](https://x.org/@name)", False),
    ("[[odd]][ref] @name\n\n[ref]: https://x.org", False),
    ("Some `code @name` here.", False),
    ("A `closed` span, then @name.", False),  # decided by mistune: a span may not be closed
    ("<span>@name</span>", False),
    ("<https://x.org/@name>", False),
    ("\\[escaped @name](https://x.org)", False),
    ("```\n@name\n```", False),
    ("~~~\n@name\n~~~", False),
    ("    @name indented", False),
    ("\t@name tabbed", False),
    ("-     @name code in a list", False),
    ("[open bracket @name", False),
]


@pytest.mark.parametrize(("text", "decides"), TABLE)
def test_table(text: str, decides: bool) -> None:
    start = text.index("@")
    chunk = text.replace("@", "n", 1)
    assert surely_text(chunk, start) is decides
    if decides:
        assert 0 in _in_text(chunk, [(start, start + 1, "n")])


PIECES = ["name", "beta", " ", "  ", "    ", "\t", "\n", "[", "]", "(", ")", "[[", "]]", "](", "][", "]: ",
          "|", "`", "``", "```\n", "~~~\n", "<", ">", "<b>", "</b>", "*", "_", "!", "\\", "\"", "'", ":",
          "&amp;", "https://x.org/", "# ", "> ", "- ", "1. ", "[the docs](https://x.org)", "[[a-b]]",
          "[t](u)", "[t](u \"v\")", "===", "---", "$"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=30))
def test_random_chunks_against_mistune(pieces: list[str]) -> None:
    chunk = "".join(pieces).strip("\n")
    found = [(m.start(), m.start() + 1, "w") for m in WORD_START_RE.finditer(chunk)]
    if not found:
        return
    live = _in_text(chunk, found)
    for index, (start, _end, _name) in enumerate(found):
        if surely_text(chunk, start):
            assert index in live, (chunk, start)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*PIECES, "\n\n"]), min_size=1, max_size=40))
def test_prose_only_answers_as_mistune_alone(pieces: list[str]) -> None:
    body = "".join(pieces)
    found = [(m.start(), m.end(), "w") for m in re.finditer(r"\w+", body)]
    decided = _prose_only(body, found)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mentions, "surely_text", _never)  # every chunk to mistune
        assert decided == _prose_only(body, found)


def _never(_chunk: str, _start: int) -> bool:
    return False
