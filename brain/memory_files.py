"""Memory files to graph changes: one file (`build_memory`), or a batch on every core.

A first ingest of a large workspace spends most of its time here, so a big batch goes to
helper processes (brain.parse_helpers). Everything here is pure but for its arguments, so
the helpers give exactly the results this process would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from brain.layouts import RuleContext, get_layout
from brain.layouts.secrets import secret_problems
from brain.model import MemoryNode
from brain.parse import decode, parse_note
from brain.search.text import title_of
from brain.store.linking import NoteChange


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


MemoryFile = tuple[str, str, str, bytes, float]  # rel, scope, name, bytes, mtime
#: The layout (by name: it crosses into helper processes) and what its rules depend on.
NoteRules = tuple[str, RuleContext]


def build_memories(files: Sequence[MemoryFile], rules: NoteRules | None = None) -> list[NoteChange]:
    """build_memory over many files; a big batch (a first ingest) on helper processes."""
    from brain.parse_helpers import MemoryBuilder  # it imports this module

    builder = MemoryBuilder(rules)
    builder.extend(files)
    return builder.finish()


def build_memory(
    rel: str, scope: str, name: str, raw: bytes, mtime: float, rules: NoteRules | None = None
) -> NoteChange:
    """A note node and its wikilinks from a file's bytes. Pure but for its arguments.

    `rules` name the layout (default latchai): it gives the note's kind and its own rule
    problems; the `secret` rule holds in every layout.
    """
    text, problems = decode(raw, rel)
    note = parse_note(text, rel)
    layout = get_layout(rules[0] if rules is not None else "latchai")
    role = layout.classify(rel)
    context = rules[1] if rules is not None else RuleContext()
    problems.extend(secret_problems(rel, text))
    problems.extend(layout.note_rules(rel, role, text, note, context))
    memory = MemoryNode(
        scope=scope,
        name=name,
        path=rel,
        description=note.description,
        type=note.type,
        hash=content_hash(raw),
        size=len(raw),
        modified_at=mtime,
        body=note.body,
        headings=note.headings,
        properties=note.properties,
        problems=tuple(problems) + note.problems,
        blocks=note.blocks,
        note_kind=role.node_kind,
        triggers=layout.note_triggers(rel, role, note),
    )
    return NoteChange(memory, note.links)


def with_keywords(changes: Sequence[NoteChange]) -> list[NoteChange]:
    """The notes with their keyword counts, counted together into one block (a parse helper's
    chunk): the ingesting process's keyword index then takes numbers, not text."""
    from brain.search.postings import count_block  # numpy: only in helpers asked to count

    block = count_block(
        (title_of(c.memory.name), c.memory.description, c.memory.body) for c in changes)
    return [NoteChange(c.memory, c.links, (block, row)) for row, c in enumerate(changes)]
