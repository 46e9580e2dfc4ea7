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

A dashboard asks for the maintenance report again and again, and shingling every note was
most of it (2,000 notes: 7 of 8 s on a loaded machine, for notes that had not changed). So a
note's shingles and signature are kept by the hash of its text, sorted in an array (4 bytes a
shingle), bounded by their count (docs/security.md): a text seen before costs a look-up.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import zlib
from collections import OrderedDict
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
MAX_KEPT_SHINGLES = 8 * 1024 * 1024  # of every kept text, together (32 MB as uint32)

Shingled = tuple[np.ndarray, list[bytes]]  # (sorted unique shingles, signature)
_kept: OrderedDict[bytes, Shingled] = OrderedDict()
_kept_size = 0
_kept_lock = threading.Lock()
computed = 0  # texts shingled (not found kept), for tests


def shingles(body: str) -> frozenset[int]:
    """The text's word shingles, as CRC-32 numbers; a text shorter than a shingle is one."""
    words = _WORD.findall(body.casefold())
    count = max(1, min(len(words) - SHINGLE + 1, MAX_SHINGLES))
    return frozenset(zlib.crc32(" ".join(words[i:i + SHINGLE]).encode()) for i in range(count))


def similarity(a: frozenset[int], b: frozenset[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _similarity(a: np.ndarray, b: np.ndarray) -> float:
    """`similarity` of two sorted arrays of unique shingles."""
    common = np.intersect1d(a, b, assume_unique=True).size
    union = a.size + b.size - common
    return common / union if union else 1.0


def shingled(body: str) -> Shingled:
    """The text's shingles and signature, kept by the hash of the text."""
    global _kept_size, computed
    key = hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _kept_lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    each = shingles(body)
    made = (np.array(sorted(each), dtype=np.uint32), _signature(each))
    with _kept_lock:
        computed += 1
        if key not in _kept:
            _kept[key] = made
            _kept_size += made[0].size
            while _kept and _kept_size > MAX_KEPT_SHINGLES:
                _kept_size -= _kept.popitem(last=False)[1][0].size
    return made


def _signature(shingled: frozenset[int]) -> list[bytes]:
    """The note's MinHash signature, one key a band."""
    values = np.fromiter(shingled, dtype=np.uint64, count=len(shingled))
    # (a x + b) mod p with a, b, x below 2**32: the product stays below 2**64.
    mins = ((_A[:, None] * values[None, :] + _B[:, None]) % _PRIME).min(axis=1)
    return [mins[i * ROWS:(i + 1) * ROWS].tobytes() for i in range(BANDS)]


def similar_pairs(notes: list[MemoryNode]) -> Iterator[tuple[MemoryNode, MemoryNode, float]]:
    """Pairs of notes whose texts share at least SIMILAR of their shingles, each pair once."""
    texts = [shingled(m.body) for m in notes]
    buckets: dict[tuple[int, bytes], list[int]] = {}
    for index, (_, signature) in enumerate(texts):
        for band, key in enumerate(signature):
            buckets.setdefault((band, key), []).append(index)
    seen: set[tuple[int, int]] = set()
    for members in buckets.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                score = _similarity(texts[i][0], texts[j][0])
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
