"""near-duplicate: notes of one scope that say the same thing under another description.

`duplicates` deletes exact copies (the same description, type, properties and text). Two
notes whose text is the same, or nearly, but whose descriptions differ are not copies: one
description may be better, or each may say something the other lacks, and only a person or
the consolidation model can tell. So they are reported with the merge to make, and never
applied on their own.

"Nearly the same" is the share of word shingles (four words in a row, case ignored) the two
texts have in common, their Jaccard similarity, at least `SIMILAR`. Comparing every pair
would cost a scope of 10,000 notes 50 million comparisons, so candidates come from MinHash
signatures cut into bands (notes that agree on one band are compared); the exact similarity
then decides. The hashes are fixed, so a run finds the same pairs every time.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator

import numpy as np

from brain.maintain.finders.snapshot import Snapshot
from brain.maintain.findings import Finding, Proposal, vpath
from brain.model import MemoryNode

SIMILAR = 0.8  # of the two texts' shingles, shared
SHINGLE = 4  # words
BANDS, ROWS = 8, 4  # a pair at 0.8 is a candidate with probability 1 - (1 - 0.8**4)**8 = 0.985
MAX_SHINGLES = 4096  # of a note's text: a long note is compared by its beginning
_PRIME = (1 << 61) - 1
_RANDOM = np.random.default_rng(20261206)  # fixed: the same signatures every run
_A = _RANDOM.integers(1, 1 << 31, size=BANDS * ROWS, dtype=np.uint64)
_B = _RANDOM.integers(0, 1 << 31, size=BANDS * ROWS, dtype=np.uint64)
_WORD = re.compile(r"\w+")


def shingles(body: str) -> frozenset[int]:
    """The text's word shingles, as CRC-32 numbers; a text shorter than a shingle is one."""
    words = _WORD.findall(body.casefold())
    count = max(1, min(len(words) - SHINGLE + 1, MAX_SHINGLES))
    return frozenset(zlib.crc32(" ".join(words[i:i + SHINGLE]).encode()) for i in range(count))


def similarity(a: frozenset[int], b: frozenset[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _signature(shingled: frozenset[int]) -> list[bytes]:
    """The note's MinHash signature, one key a band."""
    values = np.fromiter(shingled, dtype=np.uint64, count=len(shingled))
    # (a x + b) mod p with a, b, x below 2**32: the product stays below 2**64.
    mins = ((_A[:, None] * values[None, :] + _B[:, None]) % _PRIME).min(axis=1)
    return [mins[i * ROWS:(i + 1) * ROWS].tobytes() for i in range(BANDS)]


def similar_pairs(notes: list[MemoryNode]) -> Iterator[tuple[MemoryNode, MemoryNode, float]]:
    """Pairs of notes whose texts share at least SIMILAR of their shingles, each pair once."""
    shingled = [shingles(m.body) for m in notes]
    buckets: dict[tuple[int, bytes], list[int]] = {}
    for index, each in enumerate(shingled):
        for band, key in enumerate(_signature(each)):
            buckets.setdefault((band, key), []).append(index)
    seen: set[tuple[int, int]] = set()
    for members in buckets.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                score = similarity(shingled[i], shingled[j])
                if score >= SIMILAR:
                    yield notes[i], notes[j], score


def copy_key(memory: MemoryNode) -> tuple[str, str | None, str, str]:
    """Notes with the same key are exact copies (`duplicates`): description, type, the text
    with trailing whitespace ignored, and the other frontmatter keys."""
    body = "\n".join(map(str.rstrip, memory.body.strip().split("\n")))
    properties = json.dumps(dict(memory.properties), sort_keys=True, default=str)
    return memory.description, memory.type, body, properties


def near_duplicates(snap: Snapshot) -> Iterator[Finding]:
    """Notes of one scope with the same or nearly the same text and another description:
    propose to merge the older into the newer, never applied on its own."""
    for scope in snap.scopes():
        notes = [m for m in snap.by_scope.get(scope, []) if m.path not in snap.going and m.body.strip()]
        for a, b, score in similar_pairs(notes):
            if copy_key(a) == copy_key(b):  # an exact copy: `duplicates` reports it
                continue
            keep, older = (a, b) if (a.modified_at, a.name) >= (b.modified_at, b.name) else (b, a)
            same = "the same text" if score == 1.0 else f"{score:.0%} of its text"
            yield Finding(
                "near-duplicate", older.path, scope,
                f"says {same} as memory/{scope}/{keep.name}.md, which is newer, under another "
                f"description (`{older.description}` against `{keep.description}`): merge what "
                f"this one adds into {keep.name}.md, then delete this one",
                Proposal(scope, "delete", {"path": vpath(older)}, older.hash),
                safe=False,
            )
