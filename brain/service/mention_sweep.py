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
from brain.parse.mention_seeds import ScopedVocabulary, Seed
from brain.parse.mentions import (
    MAX_MENTIONS,
    MAX_NAME_WORDS,
    MIN_NAME_CHARS,
    Mention,
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
#: The name properties beside `name:` (a `name:` equal to the file name adds no name).
ALIAS_PROPERTIES = frozenset(NAME_PROPERTIES) - {"name"}
#: A note a mention names on the deciding level: its id and what links it from the source.
Target = tuple[str, str]


class SweepNames:
    """Every note's names by squashed name, and what `Names.index(scope)` would answer for a
    source of each scope, asked name by name (`reach`)."""

    def __init__(self, notes: Iterable[MemoryNode], vocabulary: ScopedVocabulary) -> None:
        self.vocabulary = vocabulary
        self.entries: dict[str, list[Entry]] = {}
        self.scope_names: dict[str, list[str]] = {}  # scope -> its notes' names (`keys`)
        self._keys: dict[str, frozenset[str]] = {}
        uncovered: set[str] = set()
        entries, scope_names = self.entries, self.scope_names
        covers_of: dict[str, Callable[[tuple[str, ...], str], bool]] = {}
        for m in notes:
            scope, name, props = m.scope, m.name, m.properties
            names_here = scope_names.get(scope)
            if names_here is None:
                names_here = scope_names[scope] = []
                covers_of[scope] = vocabulary.for_scope(scope).index.named  # Vocabulary.covers
            names_here.append(name)
            # Most notes answer to their name alone, or to a `name:` that is the same text:
            # a name met twice for one note adds nothing (one target an id, the same words).
            names: tuple[str, ...] = (name,)
            if props and not props.keys().isdisjoint(NAME_PROPERTIES) and not (
                    props.get("name") == name and props.keys().isdisjoint(ALIAS_PROPERTIES)):
                names = tuple(names_of(m))  # else `name:` is the name, a repeat skipped below
            for k, each in enumerate(names):
                if k and each in names[:k]:
                    continue
                squashed, words = squash(each), name_words(each)
                if len(squashed) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
                    continue  # as NameIndex leaves them out
                found = entries.get(squashed)
                if found is None:
                    entries[squashed] = [(scope, words, m.id, name)]
                else:
                    found.append((scope, words, m.id, name))
                # Seeded with its scope's names and the shared ones: a shared name not
                # among the shared ones leaves every scope uncovered (below).
                if scope not in uncovered and not covers_of[scope](words, squashed):
                    uncovered.add(scope)
        # A scope whose reach holds a name no seed looked for: its notes are read again.
        self.uncovered = set(scope_names) if SHARED_SCOPE in uncovered else uncovered
        self._reaches: dict[str, ScopeReach] = {}

    def keys(self, scope: str) -> frozenset[str]:
        """The name keys of a scope's notes: asked only where a shared note is named."""
        found = self._keys.get(scope)
        if found is None:
            found = self._keys[scope] = frozenset(map(name_key, self.scope_names.get(scope, ())))
        return found

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
        self._deciding: dict[str, tuple[Target, ...]] = {}
        self._numbers: dict[str, frozenset[int]] = {}  # squashed -> its reached names' numbers
        self._index = names.vocabulary.for_scope(scope).index

    def deciding(self, squashed: str) -> tuple[Target, ...]:
        """`mention_at`'s deciding level of a name (its targets on the lowest level, by id),
        found once a sweep: it meets the same few thousand names again and again. As
        Names._entries builds them: the own scope's at level 0, else the shared ones at level
        1, by `shared/name` where an own note has that name."""
        found = self._deciding.get(squashed)
        if found is None:
            found = self._deciding[squashed] = self._deciding_of(squashed)
        return found

    def _deciding_of(self, squashed: str) -> tuple[Target, ...]:
        entries = self.names.entries.get(squashed, ())
        scope = self.scope
        by_id = {e[2]: e[3] for e in entries if e[0] == scope}
        if not by_id and scope != SHARED_SCOPE:
            own: frozenset[str] | None = None
            for e in entries:
                if e[0] == SHARED_SCOPE:
                    own = own if own is not None else self.names.keys(scope)
                    by_id[e[2]] = e[3] if name_key(e[3]) not in own else f"{SHARED_SCOPE}/{e[3]}"
        return tuple(sorted(by_id.items()))

    def mentions(self, seed: Seed, source_id: str, linked: Collection[str]) -> list[Mention]:
        """`seeded_mentions(seed_survivors(seed, vocabulary, self), ...)` (brain.parse.
        mention_seeds) in one pass for this scope's vocabulary: whether a source reaches a
        name is asked by the name's number there (the numbers each squashed name reaches
        found once a sweep), and each match that survives is decided by `deciding` at once."""
        out: list[Mention] = []
        after = matched = 0
        numbers, known = self._numbers, self._deciding
        for entry in seed:
            i = entry[0]
            if i < after:
                continue  # inside the last match
            squashed = entry[3]
            reached = numbers.get(squashed)
            if reached is None:
                reached = numbers[squashed] = self._numbers_of(squashed)
            if entry[2] not in reached:
                continue  # a name the source does not reach
            after = i + entry[1]
            matched += 1
            if entry[4]:  # prose: `mention_at`
                deciding = known.get(squashed)
                if deciding is None:
                    deciding = self.deciding(squashed)
                if len(deciding) == 1:
                    target, link = deciding[0]
                    if target != source_id and target not in linked:  # not itself, not linked
                        out.append(Mention(entry[5], entry[6], entry[7], target, link))
                        if len(out) >= MAX_MENTIONS:
                            break
                elif deciding and not any(t == source_id or t in linked for t, _link in deciding):
                    ids = tuple(t for t, _link in deciding)  # ambiguous: no link proposed
                    out.append(Mention(entry[5], entry[6], entry[7], None, None, ids))
                    if len(out) >= MAX_MENTIONS:
                        break
            if matched >= MAX_MENTIONS * 4:
                break
        return out

    def _numbers_of(self, squashed: str) -> frozenset[int]:
        """The numbers (in this scope's vocabulary) of the word tuples of the names the
        source reaches that squash to `squashed` (its scope's and the shared ones)."""
        scope, number = self.scope, self._index.number
        found = {e[1] for e in self.names.entries.get(squashed, ()) if e[0] == scope or e[0] == SHARED_SCOPE}
        return frozenset(k for words in found if (k := number(words)) is not None)


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
    by_id, uncovered = seeds.by_id, names.uncovered
    for start in range(0, len(notes), SWEEP_BATCH):
        # The notes to answer for: those with a seed of their content that holds a match, and
        # those read again (None). A note whose seed holds nothing is passed over here.
        decided: list[tuple[MemoryNode, Seed | None]] = []
        for memory in notes[start : start + SWEEP_BATCH]:
            kept = by_id.get(memory.id)
            if kept is None or kept[0] != memory.hash or memory.scope in uncovered:
                decided.append((memory, None))  # `MentionSeeds.seed`: not of this content
            elif kept[1]:
                decided.append((memory, kept[1]))
        links = store.link_targets([m.id for m, _seed in decided]) if decided else {}
        for memory, seed in decided:
            linked = links.get(memory.id, set())
            if seed is None:
                reference = reference if reference is not None else Names(store)
                found = note_mentions(store, root, memory, names=reference, linked=linked)
            else:
                found = names.reach(memory.scope).mentions(seed, memory.id, linked)
            if found:
                yield memory, found
