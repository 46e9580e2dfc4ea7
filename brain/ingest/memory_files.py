"""Memory files to graph changes: one file (`build_memory`), or a batch on every core.

A first ingest of a large workspace spends most of its time here, so a big batch goes to
helper processes (brain.ingest.parse_helpers). Everything here is pure but for its arguments, so
the helpers give exactly the results this process would.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from brain import safefs
from brain.budgets import note_budget
from brain.index.text import title_of
from brain.layouts import RuleContext, get_layout
from brain.layouts.secrets import secret_problems
from brain.model import NO_HEADINGS, Headings, JSONValue, MemoryNode, WikiLink, new_wikilink
from brain.parse.mention_seeds import ScopedVocabulary, Seed, seed_of
from brain.parse.note import decode, parse_note
from brain.parse.note_budget import too_large
from brain.store.linking import NoteChange
from brain.store.memory.rows import PATH, held_fields, held_values
from brain.workspace import read_bytes

if TYPE_CHECKING:  # numpy is not imported for a type
    from brain.index.postings import KeywordRow, PostingsBlock
    from brain.parse.mentions import Listed


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


#: rel, scope, name, the file's bytes or its path (str: read by whoever builds it), mtime.
#: A first ingest hands paths: the parse helpers read the files on their own core instead
#: of this process reading and piping them (its CPU at 100,000 notes: 22.5 -> 20.6 s).
MemoryFile = tuple[str, str, str, bytes | str, float]
#: The layout (by name: it crosses into helper processes) and what its rules depend on.
NoteRules = tuple[str, RuleContext]


#: The hash a file state holds until the note handed over by path comes back parsed.
PENDING_HASH = "pending"


@dataclass(frozen=True, slots=True)
class Unread:
    """A memory file given by path that could not be read (`build_file`'s answer for it)."""

    rel: str
    reason: str


def build_file(file: MemoryFile, rules: NoteRules | None = None) -> NoteChange | Unread:
    """`build_memory` of a MemoryFile, reading it first if it was given by path."""
    built = _built(file, rules, bare=False)
    return built if isinstance(built, Unread) else NoteChange(built[0], built[1])


def shipped(
    files: Sequence[MemoryFile], rules: NoteRules | None, keywords: bool, bare: bool,
    vocabulary: ScopedVocabulary | None = None, seeds: dict[str, tuple[str, Seed]] | None = None,
) -> list[NoteChange | Unread]:
    """A chunk's files built as they leave their parser: with their keyword counts if
    `keywords`, and if `bare`, each note read from its file (given by path) without its body,
    which the store reads back from that file (brain/ingest/note_bodies.py). At 100,000 notes that
    is 400 MB of text a first sync no longer pickles, unpickles and drops. Each note is built
    that way at once: a copy without the body, then one with the counts, were a tenth of a
    parse helper's CPU.

    Given a `vocabulary`, each note's mention seed (brain.parse.mention_seeds) goes into
    `seeds` by note id, with its hash: found on the body in hand, which a sweep of unlinked
    mentions would otherwise read and split again, and on the words the keyword count cuts
    out of it (brain.index.seeded_counting: one scan of the body for both)."""
    built = [_built(f, rules, bare) for f in files]
    if vocabulary is not None and seeds is not None:
        return _seeded(built, vocabulary, seeds, keywords)
    return _counted(built) if keywords else [
        b if isinstance(b, Unread) else NoteChange(b[0], b[1]) for b in built]


def build_memory(
    rel: str, scope: str, name: str, raw: bytes, mtime: float, rules: NoteRules | None = None
) -> NoteChange:
    """A note node and its wikilinks from a file's bytes. Pure but for its arguments.

    `rules` name the layout (default latchai): it gives the note's kind and its own rule
    problems; the `secret` rule holds in every layout.
    """
    memory, links, _, _ = _note(rel, scope, name, raw, mtime, rules, bare=False)
    return NoteChange(memory, links)


#: A note as built: its memory (without its body if built bare), its links, its body and the
#: line the body starts on.
Built = tuple[MemoryNode, tuple[WikiLink, ...], str, int]


def _built(file: MemoryFile, rules: NoteRules | None, bare: bool) -> Built | Unread:
    """`_note` of a MemoryFile, read first if it was given by path (bare only then)."""
    rel, scope, name, raw, mtime = file
    if isinstance(raw, str):
        small = _read_within_budget(raw)  # nearly every note: one open, one read
        if isinstance(small, OSError):  # as read_bytes reports it (the same open)
            return Unread(rel, str(small.strerror or small))
        if small is not None:
            return _note(rel, scope, name, small, mtime, rules, bare)
        over = _over_budget(raw)  # a stat first: a note past its budget is never read whole
        if over is not None:
            if isinstance(over, OSError):
                return Unread(rel, str(over.strerror or over))
            return _unread(rel, scope, name, over, mtime, rules, bare)
        read = read_bytes(raw)
        if isinstance(read, OSError):
            return Unread(rel, str(read.strerror or read))
        return _note(rel, scope, name, read, mtime, rules, bare)
    return _note(rel, scope, name, raw, mtime, rules, bare=False)


def _read_within_budget(path: str) -> bytes | OSError | None:
    """The bytes of the regular file at `path`, read through the descriptor that stat it;
    None when it is past the note budget (`_over_budget` hashes it). They opened each note
    twice: a tenth of a parse helper's CPU (issue 43). Opened as read_bytes opens (safefs:
    no link followed, a FIFO refused, not waited on: `_over_budget`'s plain open, first,
    waited on a FIFO put where the walk saw a file)."""
    try:
        fd = safefs.open_regular(path)
    except OSError as exc:
        return exc
    try:
        if os.fstat(fd).st_size > note_budget().max_bytes:
            return None
        pieces = []
        while piece := os.read(fd, 1 << 16):  # to the end, as read_bytes reads
            pieces.append(piece)
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)


def _over_budget(path: str) -> tuple[str, int] | OSError | None:
    """(hash, size) of the file at `path` when it is past the note budget, hashed in pieces."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size <= note_budget().max_bytes:
                return None
            return hashlib.file_digest(fh, "sha256").hexdigest(), size
    except OSError as exc:
        return exc


def _unread(
    rel: str, scope: str, name: str, over: tuple[str, int], mtime: float, rules: NoteRules | None,
    bare: bool,
) -> Built:
    """A note past its size budget: a node with its path, size and hash, and the problem."""
    digest, size = over
    role = get_layout(rules[0] if rules is not None else "latchai").classify(rel)
    note_type: str | None = None
    properties: Mapping[str, JSONValue] = {}
    if bare:
        scope, name, note_type, properties = held_fields(scope, name, note_type, properties)
    memory = MemoryNode(
        scope=scope, name=name, path=rel, description="", type=note_type, hash=digest, size=size,
        modified_at=mtime, body="", headings=NO_HEADINGS, properties=properties,
        problems=(too_large(rel, size, note_budget()),), note_kind=role.node_kind,
    )
    return memory, (), "", 1


def _note(
    rel: str, scope: str, name: str, raw: bytes, mtime: float, rules: NoteRules | None, bare: bool,
) -> Built:
    if len(raw) > note_budget().max_bytes:  # not decoded, parsed or scanned for secrets
        return _unread(rel, scope, name, (content_hash(raw), len(raw)), mtime, rules, bare)
    text, problems = decode(raw, rel)
    note = parse_note(text, rel)
    layout = get_layout(rules[0] if rules is not None else "latchai")
    role = layout.classify(rel)
    context = rules[1] if rules is not None else RuleContext()
    problems.extend(secret_problems(rel, text))
    problems.extend(layout.note_rules(rel, role, text, note, context))
    note_type, properties = note.type, note.properties
    if bare:  # a first sync's note: built as the store holds it (not copied there to be so)
        scope, name, note_type, properties = held_fields(scope, name, note_type, properties)
    memory = MemoryNode(
        scope=scope,
        name=name,
        path=rel,
        description=note.description,
        type=note_type,
        hash=content_hash(raw),
        size=len(raw),
        modified_at=mtime,
        body="" if bare else note.body,
        headings=Headings(note.headings) if note.headings else NO_HEADINGS,
        properties=properties,
        problems=tuple(problems) + note.problems,
        blocks=note.blocks,
        note_kind=role.node_kind,
        triggers=layout.note_triggers(rel, role, note),
    )
    return memory, note.links, note.body, note.body_line


_chunk = threading.local()  # the paths of the chunk whose results this thread loads


@contextlib.contextmanager
def chunk_paths(rels: Sequence[str]) -> Iterator[None]:
    """While results are loaded on this thread: the paths their chunk was sent with, which
    `walked_memory` puts into the notes (brain/ingest/worker.py's ResultPickler)."""
    _chunk.rels = rels
    try:
        yield
    finally:
        _chunk.rels = ()


def walked_memory(name_is_key: bool, *values: Any) -> MemoryNode:
    """A MemoryNode whose path was sent as its file's place in the chunk; `name_is_key`: its
    name is its own key (`leaf_key`), as the helper found."""
    held = list(values)
    held[PATH] = _chunk.rels[held[PATH]]
    held_values(held, name_is_key)
    return MemoryNode(*held)


def note_change(memory: MemoryNode, flat: tuple[Any, ...], keywords: KeywordRow | None) -> NoteChange:
    """A note's result from its pickle (brain.ingest.worker.ResultPickler): its links' values
    one after another, each link built in C."""
    links = tuple(map(new_wikilink, zip(*[iter(flat)] * _LINK_FIELDS, strict=True))) if flat else ()
    return tuple.__new__(NoteChange, (memory, links, keywords))


_LINK_FIELDS = len(WikiLink._fields)


def _seeded(
    built: Sequence[Built | Unread], vocabulary: ScopedVocabulary, seeds: dict[str, tuple[str, Seed]],
    keywords: bool,
) -> list[NoteChange | Unread]:
    """`shipped`'s answer with each note's mention seed put into `seeds`; counted, the
    words of a body are found once for both (brain.index.seeded_counting)."""
    from brain.index.seeded_counting import count_and_seed  # only where a chunk is seeded

    notes = [b for b in built if not isinstance(b, Unread)]
    budget = note_budget().max_bytes  # a note past its budget was not read: the sweep decides it alone
    vocabularies = [vocabulary.for_scope(m.scope) if m.size <= budget else None for m, _, _, _ in notes]
    block = None
    listed: list[list[Listed] | None] = [None] * len(notes)
    if keywords:
        block, listed = count_and_seed([_row(b) for b in notes], vocabularies)
    for b, words, found in zip(notes, vocabularies, listed, strict=True):
        if words is not None:
            seed = seed_of(b[2], b[3], words, found)
            if seed is not None:
                seeds[b[0].id] = (b[0].hash, seed)
    return _counted(built, block) if keywords else [
        b if isinstance(b, Unread) else NoteChange(b[0], b[1]) for b in built]


def _row(built: Built) -> tuple[str, str, str]:
    """A note's texts as the keyword count takes them: name words, description, body."""
    return title_of(built[0].name), built[0].description, built[2]


def _counted(
    built: Sequence[Built | Unread], block: PostingsBlock | None = None,
) -> list[NoteChange | Unread]:
    notes = [b for b in built if not isinstance(b, Unread)]
    if block is None:
        from brain.index.counting import count_block  # only where a chunk is counted

        block = count_block(_row(b) for b in notes)
    rows = iter(range(len(notes)))  # each note's place in the block, in order
    return [
        b if isinstance(b, Unread) else NoteChange(b[0], b[1], (block, next(rows))) for b in built
    ]
