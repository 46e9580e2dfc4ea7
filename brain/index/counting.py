"""A chunk's keyword counts, by the native scanner where it is installed, else by numpy.

Apart from brain/index/postings.py, which both counters import, so that neither imports the
other: the numpy counter is the native one's reference and fallback, and a parse helper that
counts natively never imports numpy (50 ms of its start).
"""

from __future__ import annotations

from collections.abc import Iterable

from brain.index.postings import PostingsBlock, split_slow
from brain.parse.native import native


def count_block(notes: Iterable[tuple[str, str, str]]) -> PostingsBlock:
    """The `PostingsBlock` of notes given as (name words, description, body), counted as
    `note_counts` counts each (tested equal): by the native scanner where it is installed
    (brain/parse/native.py), else by numpy (brain/index/postings_numpy.py)."""
    rows = list(notes)
    if native is not None:
        try:
            return PostingsBlock(*native.count_block([t for row in rows for t in row], split_slow))
        except (UnicodeEncodeError, ValueError):
            pass  # a lone surrogate (a YAML escape) is not UTF-8, or a bug: counted below
    # numpy, imported only here: a parse helper counts natively, and starts 50 ms sooner
    # without it.
    from brain.index.postings_numpy import count_rows

    return count_rows(rows)
