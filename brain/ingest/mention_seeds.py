"""A first sync's mention seeds, kept for the sweep that follows it (`brain check --mentions`).

A sweep of unlinked mentions used to read, decode and split every note again and run the
detector on it: half an ingest and more (bench/bench_mentions.py). The parse helpers hold
each body already, so an ingester asked to (`Ingester.seed_mentions`, before its first
sync) sends them the names of every note the walk found, by scope (brain.parse.
mention_seeds.ScopedVocabulary: a note is seeded with its scope's and the shared ones) and
keeps what they find (`MentionSeeds`); the sweep (brain.service.mention_sweep) then only
decides, per source, which of a note's matches it reaches.

A seed is used only for the content it was made from (the note's hash): a note changed
since, one past its budget, or one of a scope that reaches a name outside the vocabulary
(an alias no file name has) is read by the sweep as before. Only a first sync seeds: a
rescan's few notes cost the sweep little, and its names may have changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from brain.model import SHARED_SCOPE, Kind, MemoryNode
from brain.parse.mention_seeds import ScopedVocabulary, Seed
from brain.workspace import FileRole


@dataclass(slots=True)
class MentionSeeds:
    vocabulary: ScopedVocabulary
    by_id: dict[str, tuple[str, Seed]] = field(default_factory=dict)  # id -> (hash, seed)

    def seed(self, memory: MemoryNode) -> Seed | None:
        """The note's seed, if it was made from the content the store holds now."""
        kept = self.by_id.get(memory.id)
        return kept[1] if kept is not None and kept[0] == memory.hash else None

    def __len__(self) -> int:
        return len(self.by_id)


def walk_vocabulary(rels: Iterable[str], classify: Callable[[str], FileRole]) -> ScopedVocabulary:
    """The names of every memory note a walk found (each its file's name), by scope."""
    names: dict[str, list[str]] = {}
    memory = Kind.MEMORY
    for role in map(classify, rels):
        if role.node_kind is memory and role.kind == "memory":
            found = names.get(role.scope)
            if found is None:
                names[role.scope] = [role.name]
            else:
                found.append(role.name)
    return ScopedVocabulary(names, SHARED_SCOPE)
