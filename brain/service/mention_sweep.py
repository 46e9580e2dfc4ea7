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

from brain.gcpause import gc_paused
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

#: A name as a note answers to it, under its scope and squashed name: its words, the note's
#: id and name (`SweepNames.entries`).
Entry = tuple[tuple[str, ...], str, str]
#: The name properties beside `name:` (a `name:` equal to the file name adds no name).
ALIAS_PROPERTIES = frozenset(NAME_PROPERTIES) - {"name"}
#: A note a mention names on the deciding level: its id and what links it from the source.
Target = tuple[str, str]
#: What a source of one scope needs of a squashed name: the numbers (in its scope's
#: vocabulary) of the words of the names it reaches that squash so, and the deciding level.
Known = tuple[frozenset[int], tuple[Target, ...]]
#: A name as SweepNames keeps it: its note's place (the note's name), or the place and the
#: name (`name:` or an alias); a list where a scope's notes have more of one squashed name.
Held = int | tuple[int, str] | list[int | tuple[int, str]]
_SEP = "\x00"  # between a scope and a squashed name in one key: no scope holds a NUL
_NO_LINKS: frozenset[str] = frozenset()


class SweepNames:
    """Every note's names by scope and squashed name, and what `Names.index(scope)` would
    answer for a source of each scope, asked name by name (`reach`). Kept by (scope,
    squashed name): a source reaches its own scope's and the shared ones, so what it asks of
    a name is two lookups, not a pass over every scope's notes of that name. A name is kept
    as its note's place among `notes` (with the name, where it is not the file name): a
    tuple and a list a note were most of what a sweep allocated, and a cyclic collection
    passed over them again and again."""

    def __init__(self, notes: Iterable[MemoryNode], vocabulary: ScopedVocabulary) -> None:
        self.vocabulary = vocabulary
        self.notes = notes = list(notes)
        self._held: dict[str, Held] = {}  # `scope NUL squashed` -> its notes' names
        self.scope_names: dict[str, list[str]] = {}  # scope -> its notes' names (`keys`)
        self._keys: dict[str, frozenset[str]] = {}
        uncovered: set[str] = set()
        held, scope_names = self._held, self.scope_names
        covers_of: dict[str, Callable[[tuple[str, ...], str], bool]] = {}
        names_here: list[str] = []
        covers: Callable[[tuple[str, ...], str], bool] = _covered
        last_scope: str | None = None
        for at, m in enumerate(notes):
            scope, name, props = m.scope, m.name, m.properties
            if scope is not last_scope:  # notes come grouped by scope (id order), mostly
                last_scope = scope
                found_names = scope_names.get(scope)
                if found_names is None:
                    found_names = scope_names[scope] = []
                    covers_of[scope] = vocabulary.for_scope(scope).index.named  # Vocabulary.covers
                names_here = found_names
                covers = _covered if scope in uncovered else covers_of[scope]
            names_here.append(name)
            # Most notes answer to their name alone, or to a `name:` that is the same text:
            # a name met twice for one note adds nothing (one target an id, the same words).
            if props and not props.keys().isdisjoint(NAME_PROPERTIES) and not (
                    props.get("name") == name and props.keys().isdisjoint(ALIAS_PROPERTIES)):
                names: tuple[str, ...] = tuple(dict.fromkeys(names_of(m)))  # a repeat skipped
            else:
                names = (name,)
            for each in names:
                squashed, words = squash(each), name_words(each)
                if len(squashed) < MIN_NAME_CHARS or not words or len(words) > MAX_NAME_WORDS:
                    continue  # as NameIndex leaves them out
                key = scope + _SEP + squashed
                value: int | tuple[int, str] = at if each == name else (at, each)
                found = held.get(key)
                if found is None:
                    held[key] = value
                elif type(found) is list:
                    found.append(value)
                else:
                    held[key] = [found, value]  # type: ignore[list-item]
                # Seeded with its scope's names and the shared ones: a shared name not
                # among the shared ones leaves every scope uncovered (below).
                if not covers(words, squashed):
                    uncovered.add(scope)
                    covers = _covered
        # A scope whose reach holds a name no seed looked for: its notes are read again.
        self.uncovered = set(scope_names) if SHARED_SCOPE in uncovered else uncovered
        self._reaches: dict[str, ScopeReach] = {}
        self._shared: dict[str, list[Entry]] = {}  # every scope's sources ask the shared names

    def shared_entries(self, squashed: str) -> list[Entry]:
        """`entries(SHARED_SCOPE, squashed)`, found once for every scope that asks."""
        found = self._shared.get(squashed)
        if found is None:
            found = self._shared[squashed] = self.entries(SHARED_SCOPE, squashed)
        return found

    def entries(self, scope: str, squashed: str) -> list[Entry]:
        """The names of `scope`'s notes that squash so, in the notes' order, as entries."""
        found = self._held.get(scope + _SEP + squashed)
        if found is None:
            return []
        notes, out = self.notes, []
        for each in found if isinstance(found, list) else (found,):
            if isinstance(each, int):
                m = notes[each]
                out.append((name_words(m.name), m.id, m.name))
            else:
                m = notes[each[0]]
                out.append((name_words(each[1]), m.id, m.name))
        return out

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


def _covered(_words: tuple[str, ...], _squashed: str) -> bool:
    return True  # a scope found uncovered already: nothing more to learn of its names


class ScopeReach:
    """The names a source of one scope reaches (brain.parse.mention_seeds.Reachable)."""

    def __init__(self, names: SweepNames, scope: str) -> None:
        self.names = names
        self.scope = scope
        self._known: dict[str, Known] = {}
        self._index = names.vocabulary.for_scope(scope).index

    def deciding(self, squashed: str) -> tuple[Target, ...]:
        """`mention_at`'s deciding level of a name (its targets on the lowest level, by id)."""
        return self.known(squashed)[1]

    def known(self, squashed: str) -> Known:
        """What this scope's sources need of a name, found once a sweep (it meets the same
        few thousand names again and again): the numbers of the words of the names it
        reaches that squash so (its scope's and the shared ones), and the deciding level, as
        Names._entries builds it: the own scope's at level 0, else the shared ones at level
        1, by `shared/name` where an own note has that name."""
        found = self._known.get(squashed)
        if found is None:
            found = self._known[squashed] = self._known_of(squashed)
        return found

    def _known_of(self, squashed: str) -> Known:
        scope, names = self.scope, self.names
        own = names.entries(scope, squashed)
        shared = names.shared_entries(squashed) if scope != SHARED_SCOPE else []
        number = self._index.number
        if len(own) == 1 and not shared:  # most names: one note of the source's own scope
            words, target, name = own[0]
            k = number(words)
            return (frozenset() if k is None else frozenset((k,))), ((target, name),)
        numbers = frozenset(k for words in {e[0] for e in (*own, *shared)}
                            if (k := number(words)) is not None)
        if own:
            by_id = {e[1]: e[2] for e in own}
        else:
            keys = self.names.keys(scope) if shared else frozenset()
            by_id = {e[1]: e[2] if name_key(e[2]) not in keys else f"{SHARED_SCOPE}/{e[2]}" for e in shared}
        return numbers, tuple(sorted(by_id.items()))

    def mentions(self, seed: Seed, source_id: str, linked: Collection[str]) -> list[Mention]:
        """`seeded_mentions(seed_survivors(seed, vocabulary, self), ...)` (brain.parse.
        mention_seeds) in one pass for this scope's vocabulary: whether a source reaches a
        name is asked by the name's number there, and each match that survives is decided
        by the name's deciding level at once (`known`)."""
        out: list[Mention] = []
        after = matched = 0
        cache = self._known
        for i, n, k, squashed, prose, line, column, text in seed:
            if i < after:
                continue  # inside the last match
            known = cache.get(squashed)
            if known is None:
                known = self.known(squashed)
            if k not in known[0]:
                continue  # a name the source does not reach
            after = i + n
            matched += 1
            if prose:  # `mention_at`
                deciding = known[1]
                if len(deciding) == 1:
                    target, link = deciding[0]
                    if target != source_id and target not in linked:  # not itself, not linked
                        out.append(Mention(line, column, text, target, link))
                        if len(out) >= MAX_MENTIONS:
                            break
                elif deciding and not any(t == source_id or t in linked for t, _link in deciding):
                    ids = tuple(t for t, _link in deciding)  # ambiguous: no link proposed
                    out.append(Mention(line, column, text, None, None, ids))
                    if len(out) >= MAX_MENTIONS:
                        break
            if matched >= MAX_MENTIONS * 4:
                break
        return out


def sweep_mentions(
    store: GraphStore, root: Path, memories: Iterable[MemoryNode] | None = None,
    seeds: MentionSeeds | None = None,
) -> Iterator[tuple[MemoryNode, list[Mention]]]:
    """`workspace_mentions`' answer (every note with unlinked mentions, in the order given),
    from `seeds` where they hold."""
    if seeds is None:
        yield from workspace_mentions(store, root, memories)
        return
    # No cyclic collection while a sweep allocates (its names, seeds' answers: no cycles):
    # after a first sync's `gc.freeze` every few thousand allocations made a full one, which
    # rescanned the notes read here again and again (a fifth of a 10,000-note sweep). Not
    # while the caller holds a batch: its own garbage is collected as before.
    with gc_paused(settle=False):
        every = [m for m in store.list_memories(MemoryFilter(), bodies=False) if m.note_kind is Kind.MEMORY]
        names = SweepNames(every, seeds.vocabulary)
    notes = every if memories is None else [m for m in memories if m.note_kind is Kind.MEMORY]
    reference: Names | None = None  # built for the first note read again, if one is
    for start in range(0, len(notes), SWEEP_BATCH):
        batch = notes[start : start + SWEEP_BATCH]
        with gc_paused(settle=False):
            answered, reference = _batch(store, root, batch, seeds, names, reference)
        yield from answered


def _batch(
    store: GraphStore, root: Path, batch: list[MemoryNode], seeds: MentionSeeds, names: SweepNames,
    reference: Names | None,
) -> tuple[list[tuple[MemoryNode, list[Mention]]], Names | None]:
    """One batch's notes with their unlinked mentions, and the reference names if built."""
    # The notes to answer for: those with a seed of their content that holds a match, and
    # those read again (None). A note whose seed holds nothing is passed over here.
    by_id, uncovered = seeds.by_id, names.uncovered
    decided: list[tuple[MemoryNode, Seed | None]] = []
    for memory in batch:
        kept = by_id.get(memory.id)
        if kept is None or kept[0] != memory.hash or memory.scope in uncovered:
            decided.append((memory, None))  # `MentionSeeds.seed`: not of this content
        elif kept[1]:
            decided.append((memory, kept[1]))
    links = store.link_targets([m.id for m, _seed in decided]) if decided else {}
    out: list[tuple[MemoryNode, list[Mention]]] = []
    reaches: dict[str, ScopeReach] = {}
    for memory, seed in decided:
        if seed is None:
            reference = reference if reference is not None else Names(store)
            found = note_mentions(store, root, memory, names=reference, linked=links.get(memory.id, set()))
        else:
            reach = reaches.get(memory.scope)
            if reach is None:
                reach = reaches[memory.scope] = names.reach(memory.scope)
            found = reach.mentions(seed, memory.id, links.get(memory.id, _NO_LINKS))
        if found:
            out.append((memory, found))
    return out, reference
