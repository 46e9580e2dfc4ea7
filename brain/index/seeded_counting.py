"""A chunk's keyword counts and its notes' mention seeds from one word scan of each body.

A first sync asked to seed unlinked mentions (`brain check --mentions`: brain/ingest/
mention_seeds.py) had each parse helper cut every body into words twice: to count its
keywords (`count_block`) and to look its words up among the sync's names (the mention seed's
candidates, brain.parse.mention_seeds). The Rust twin does both on one scan of an ASCII body,
lower-cased once (native/src/seeded_count.rs); a body with another character, or a chunk
without the twin (BRAIN_NATIVE=0, an older build), is scanned twice as before, with the same
answers (tests/unit/test_native_seeded_count.py holds the one scan to the two).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brain.index.counting import count_block
from brain.index.postings import PostingsBlock, split_slow
from brain.parse.mention_seeds import Vocabulary
from brain.parse.mentions import Listed
from brain.parse.native import native

#: The twin (native/src/seeded_count.rs), if the installed module has it.
_twin: Callable[..., Any] | None = getattr(native, "count_block_seeded", None)


def count_and_seed(
    rows: Sequence[tuple[str, str, str]], vocabularies: Sequence[Vocabulary | None],
) -> tuple[PostingsBlock, list[list[Listed] | None]]:
    """`count_block(rows)`, and for each row with a vocabulary the candidates of its body (the
    third text) that `mention_seed_candidates` would give (`seed_of`'s `listed`), where the
    count's own scan found them; None where the seed is to be found on its own."""
    # Once a vocabulary, not a row: a chunk's rows share their scope's few vocabularies.
    known: dict[int, tuple[object, bool] | None] = {}
    seeding: list[tuple[object, bool] | None] = []
    for vocabulary in vocabularies:
        if id(vocabulary) not in known:
            known[id(vocabulary)] = _seeding(vocabulary)
        seeding.append(known[id(vocabulary)])
    if _twin is not None and any(s is not None for s in seeding):
        try:
            fields, listed = _twin([t for row in rows for t in row], split_slow, seeding)
            return PostingsBlock(*fields), listed
        except (UnicodeEncodeError, ValueError):
            pass  # a lone surrogate (a YAML escape) is not UTF-8, or a bug: two scans below
    return count_block(rows), [None] * len(rows)


def _seeding(vocabulary: Vocabulary | None) -> tuple[object, bool] | None:
    """What the twin needs of a vocabulary: its names' words and whether links are blanked."""
    if vocabulary is None or not len(vocabulary.index):
        return None  # no name: `seed_of` answers () at once
    table = vocabulary.index.native_table()
    return None if table is None else (table, vocabulary.blank_links)
