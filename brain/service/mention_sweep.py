"""The unlinked mentions of a whole workspace from a first sync's seeds (`brain check
--mentions`, `brain maintain --mentions`).

`workspace_mentions` (brain.service.mentions) reads every note again and builds each scope's
name index: half an ingest and more at 10,000 notes. A sync asked to seed
(brain/ingest/mention_seeds.py) leaves each note's matches of every name of the walk; what
is left here is what depends on who reads: for each source, which of those names it reaches
(its own scope, then `shared`: the levels of link resolution) and whom they name, and, only
for a note with a match that survives that, the ids it links (`link_targets`: ids only, no
Link built; one store call a batch).

The names are looked up by name, not built into an index per scope (`SweepNames`): the same
answers as `Names` (tests/hostile/test_mention_sweep.py holds the sweeps equal), at the cost
of the names a sweep meets. A note without a seed of its current content, or of a scope that
reaches a name the vocabulary lacks, is read and detected as `workspace_mentions` does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from brain.ingest.mention_seeds import MentionSeeds
from brain.model import SHARED_SCOPE, Kind, MemoryNode, name_key
from brain.parse.mention_seeds import ScopedVocabulary, Seed, SeedEntry
from brain.parse.mentions import (
    MAX_MENTIONS,
    MAX_NAME_WORDS,
    MIN_NAME_CHARS,
    Mention,
    MentionTarget,
    name_words,
    squash,
)
from brain.service.mentions import (
    NAME_PROPERTIES,
    SWEEP_BATCH,
    Names,
    names_of,
    note_mentions,
    workspace_mentions,
)
from brain.store.base import GraphStore, MemoryFilter

#: A name as a note answers to it: its scope, its words, the note's id and name.
Entry = tuple[str, tuple[str, ...], str, str]


class SweepNames:
    """Every note's names by squashed name, and what `Names.index(scope)` would answer for a
    source of each scope, asked name by name (`reach`)."""

    def __init__(self, notes: Iterable[MemoryNode], vocabulary: ScopedVocabulary) -> None:
        self.vocabulary = vocabulary
        self.entries: dict[str, list[Entry]] = {}
        # squashed -> scope -> the word tuples of its names there: `named` in two lookups.
        self.words: dict[str, dict[str, set[tuple[str, ...]]]] = {}
        self.keys: dict[str, set[str]] = {}  # scope -> its notes' name keys
        uncovered: set[str] = set()
        entries, words_by = self.entries, self.words
        covers_of: dict[str, Callable[[tuple[str, ...], str], bool]] = {}
        for m in notes:
            scope = m.scope
            keys = self.keys.get(scope)
            if keys is None:
                keys = self.keys[scope] = set()
                covers_of[scope] = vocabulary.for_scope(scope).covers
            keys.add(name_key(m.name))
            covers = covers_of[scope]
            props = m.properties
            # Most notes answer to their name alone, or to a `name:` that is the same text:
            # a name met twice for one note adds nothing (one target an id, the same words).
            more = any(key in props for key in NAME_PROPERTIES)
            names = tuple(names_of(m)) if more else (m.name,)
            for k, name in enumerate(names):
                if k and name in names[:k]:
                    continue
                squashed, words = squash(name), name_words(name)
                if len(squashed) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
                    continue  # as NameIndex leaves them out
                entries.setdefault(squashed, []).append((scope, words, m.id, m.name))
                by_scope = words_by.get(squashed)
                if by_scope is None:
                    words_by[squashed] = {scope: {words}}
                else:
                    by_scope.setdefault(scope, set()).add(words)
                # Seeded with its scope's names and the shared ones: a shared name not
                # among the shared ones leaves every scope uncovered (below).
                if scope not in uncovered and not covers(words, squashed):
                    uncovered.add(scope)
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
        self._deciding: dict[str, tuple[MentionTarget, ...]] = {}
        self._deciding_ids: dict[str, frozenset[str]] = {}
        self._numbers: dict[str, frozenset[int]] = {}  # squashed -> its reached names' numbers
        self._index = names.vocabulary.for_scope(scope).index

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

    def deciding(self, squashed: str) -> tuple[MentionTarget, ...]:
        """`mention_at`'s deciding level of a name (its targets on the lowest level, by id),
        found once a sweep: it meets the same few thousand names again and again."""
        found = self._deciding.get(squashed)
        if found is None:
            targets = self.targets(squashed)
            level = min((t.level for t in targets), default=0)
            found = self._deciding[squashed] = tuple(
                sorted((t for t in targets if t.level == level), key=lambda t: t.id))
        return found

    def names_another(self, survivors: list[SeedEntry], source_id: str) -> bool:
        """Whether a survivor's deciding level names no note but others than the source:
        `mention_at` drops a name whose deciding level holds the source, linked or not, so
        a note whose every survivor is its own name reports nothing, and its links (most of
        a sweep's cost) are not asked for."""
        known = self._deciding_ids
        for entry in survivors:
            ids = known.get(entry[3])
            if ids is None:
                ids = known[entry[3]] = frozenset(t.id for t in self.deciding(entry[3]))
            if source_id not in ids:
                return True
        return False

    def survivors(self, seed: Seed) -> list[SeedEntry]:
        """`seed_survivors(seed, vocabulary, self)` (brain.parse.mention_seeds) for this
        scope's vocabulary: whether a source reaches a name is asked by the name's number
        in that vocabulary, the numbers each squashed name reaches found once a sweep."""
        kept: list[SeedEntry] = []
        after = matched = 0
        numbers = self._numbers
        for entry in seed:
            i = entry[0]
            if i < after:
                continue
            reached = numbers.get(entry[3])
            if reached is None:
                reached = numbers[entry[3]] = self._numbers_of(entry[3])
            if entry[2] not in reached:
                continue
            after = i + entry[1]
            matched += 1
            if entry[4]:
                kept.append(entry)
            if matched >= MAX_MENTIONS * 4:
                break
        return kept

    def _numbers_of(self, squashed: str) -> frozenset[int]:
        """The numbers (in this scope's vocabulary) of the word tuples `named` accepts with
        `squashed`: `named(words_of(k), squashed)` holds exactly for these k."""
        scopes = self.names.words.get(squashed)
        if scopes is None:
            return frozenset()
        found = (*scopes.get(self.scope, ()), *scopes.get(SHARED_SCOPE, ()))
        return frozenset(k for words in found if (k := self._index.number(words)) is not None)

    def mentions(self, survivors: list[SeedEntry], source_id: str, linked: Collection[str]) -> list[Mention]:
        """`seeded_mentions`' answer (`mention_at` on each survivor), from `deciding`."""
        out: list[Mention] = []
        known = self._deciding
        for _i, _n, _k, squashed, _prose, line, column, text in survivors:
            deciding = known.get(squashed)
            if deciding is None:
                deciding = self.deciding(squashed)
            if len(deciding) == 1:
                target = deciding[0]
                if target.id == source_id or target.id in linked:
                    continue  # the note itself, or a note it links already
                out.append(Mention(line, column, text, target.id, target.link))
            elif not deciding or any(t.id == source_id or t.id in linked for t in deciding):
                continue  # no note, the note itself, or a note it links already
            else:
                out.append(Mention(line, column, text, None, None, tuple(t.id for t in deciding)))
            if len(out) >= MAX_MENTIONS:
                break
        return out

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
            scope = memory.scope
            seed = seeds.seed(memory) if scope not in names.uncovered else None
            reach = names.reach(scope)
            survivors = None if seed is None else reach.survivors(seed) if seed else []
            if survivors and not reach.names_another(survivors, memory.id):
                survivors = []  # only its own name: nothing to report, no links to ask for
            decided.append((memory, survivors))
        wanted = [m.id for m, survivors in decided if survivors is None or survivors]
        links = store.link_targets(wanted) if wanted else {}
        for memory, survivors in decided:
            if survivors is not None and not survivors:
                continue
            linked = links.get(memory.id, set())
            if survivors is None:
                reference = reference if reference is not None else Names(store)
                found = note_mentions(store, root, memory, names=reference, linked=linked)
            else:
                found = names.reach(memory.scope).mentions(survivors, memory.id, linked)
            if found:
                yield memory, found
