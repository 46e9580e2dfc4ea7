"""The unlinked mentions of a whole workspace from a first sync's seeds (`brain check
--mentions`, `brain maintain --mentions`).

`workspace_mentions` (brain.service.mentions) reads every note again and builds each scope's
name index: half an ingest and more at 10,000 notes. A sync asked to seed
(brain/ingest/mention_seeds.py) leaves each note's matches of every name of the walk; what
is left here is what depends on who reads: for each source, which of those names it reaches
(its own scope, then `shared`: the levels of link resolution) and whom they name, and, only
for a note with a match that survives that, the notes it links (one store call a batch).

The names are looked up by name, not built into an index per scope (`SweepNames`): the same
answers as `Names` (tests/hostile/test_mention_sweep.py holds the sweeps equal), at the cost
of the names a sweep meets. A note without a seed of its current content, or of a scope that
reaches a name the vocabulary lacks, is read and detected as `workspace_mentions` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from brain.ingest.mention_seeds import MentionSeeds
from brain.model import SHARED_SCOPE, Kind, MemoryNode, name_key
from brain.parse.mention_seeds import ScopedVocabulary, SeedEntry, seed_survivors, seeded_mentions
from brain.parse.mentions import MAX_NAME_WORDS, MIN_NAME_CHARS, Mention, MentionTarget, name_words, squash
from brain.service.mentions import SWEEP_BATCH, Names, names_of, note_mentions, workspace_mentions
from brain.store.base import GraphStore, MemoryFilter

#: A name as a note answers to it: its scope, its words, the note's id and name.
Entry = tuple[str, tuple[str, ...], str, str]


class SweepNames:
    """Every note's names by squashed name, and what `Names.index(scope)` would answer for a
    source of each scope, asked name by name (`reach`)."""

    def __init__(self, notes: Iterable[MemoryNode], vocabulary: ScopedVocabulary) -> None:
        self.entries: dict[str, list[Entry]] = {}
        # squashed -> scope -> the word tuples of its names there: `named` in two lookups.
        self.words: dict[str, dict[str, set[tuple[str, ...]]]] = {}
        self.keys: dict[str, set[str]] = {}  # scope -> its notes' name keys
        uncovered: set[str] = set()
        for m in notes:
            self.keys.setdefault(m.scope, set()).add(name_key(m.name))
            for name in names_of(m):
                squashed, words = squash(name), name_words(name)
                if len(squashed) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
                    continue  # as NameIndex leaves them out
                self.entries.setdefault(squashed, []).append((m.scope, words, m.id, m.name))
                self.words.setdefault(squashed, {}).setdefault(m.scope, set()).add(words)
                # Seeded with its scope's names and the shared ones: a shared name not
                # among the shared ones leaves every scope uncovered (below).
                if not vocabulary.for_scope(m.scope).covers(words, squashed):
                    uncovered.add(m.scope)
        # A scope whose reach holds a name no seed looked for: its notes are read again.
        self.uncovered = set(self.keys) if SHARED_SCOPE in uncovered else uncovered
        self._reaches: dict[str, ScopeReach] = {}

    def reach(self, scope: str) -> ScopeReach:
        found = self._reaches.get(scope)
        if found is None:
            found = self._reaches[scope] = ScopeReach(self, scope)
        return found


class ScopeReach:
    """The names a source of one scope reaches (brain.parse.mention_seeds.Reachable)."""

    def __init__(self, names: SweepNames, scope: str) -> None:
        self.names = names
        self.scope = scope
        self._targets: dict[str, tuple[MentionTarget, ...]] = {}

    def named(self, words: tuple[str, ...], squashed: str) -> bool:
        scopes = self.names.words.get(squashed)
        if scopes is None:
            return False
        own, shared = scopes.get(self.scope), scopes.get(SHARED_SCOPE)
        return (own is not None and words in own) or (shared is not None and words in shared)

    def targets(self, squashed: str) -> tuple[MentionTarget, ...]:
        found = self._targets.get(squashed)
        if found is None:
            found = self._targets[squashed] = self._targets_of(squashed)
        return found

    def _targets_of(self, squashed: str) -> tuple[MentionTarget, ...]:
        """As Names._entries builds them: the own scope's at level 0, then the shared ones at
        level 1, by `shared/name` where an own note has that name."""
        entries = self.names.entries.get(squashed, ())
        by_id = {e[2]: MentionTarget(e[2], e[3], 0) for e in entries if e[0] == self.scope}
        if self.scope != SHARED_SCOPE:
            own = self.names.keys.get(self.scope, set())
            for e in entries:
                if e[0] == SHARED_SCOPE:
                    link = e[3] if name_key(e[3]) not in own else f"{SHARED_SCOPE}/{e[3]}"
                    by_id[e[2]] = MentionTarget(e[2], link, 1)
        return tuple(by_id.values())


def sweep_mentions(
    store: GraphStore, root: Path, memories: Iterable[MemoryNode] | None = None,
    seeds: MentionSeeds | None = None,
) -> Iterator[tuple[MemoryNode, list[Mention]]]:
    """`workspace_mentions`' answer (every note with unlinked mentions, in the order given),
    from `seeds` where they hold."""
    if seeds is None:
        yield from workspace_mentions(store, root, memories)
        return
    every = [m for m in store.list_memories(MemoryFilter(), bodies=False) if m.note_kind is Kind.MEMORY]
    names = SweepNames(every, seeds.vocabulary)
    notes = every if memories is None else [m for m in memories if m.note_kind is Kind.MEMORY]
    reference: Names | None = None  # built for the first note read again, if one is
    for start in range(0, len(notes), SWEEP_BATCH):
        batch = notes[start : start + SWEEP_BATCH]
        decided: list[tuple[MemoryNode, list[SeedEntry] | None]] = []
        for memory in batch:
            seed = seeds.seed(memory) if memory.scope not in names.uncovered else None
            survivors = None if seed is None else seed_survivors(
                seed, seeds.vocabulary.for_scope(memory.scope), names.reach(memory.scope))
            decided.append((memory, survivors))
        wanted = [m.id for m, survivors in decided if survivors is None or survivors]
        links = store.links_from(wanted) if wanted else {}
        for memory, survivors in decided:
            if survivors is not None and not survivors:
                continue
            linked = {link.target_id for link in links.get(memory.id, [])}
            if survivors is None:
                reference = reference if reference is not None else Names(store)
                found = note_mentions(store, root, memory, names=reference, linked=linked)
            else:
                found = seeded_mentions(survivors, names.reach(memory.scope), source_id=memory.id,
                                        linked=linked)
            if found:
                yield memory, found
