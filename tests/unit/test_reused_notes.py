"""Notes parsed once by their content (brain/ingest/reused_notes.py) are the notes a parse gives,
and only for the very content, path and rules they were parsed from.

A table of files goes through a builder that reuses, one after another: each result must equal
a fresh parse of that file (`shipped` with no reuse). The table repeats content at another
time, at another path, and changes a blob by one byte, so a key that leaves out any of what
decides the parse gives one file another's parse. Planted bugs, each seen to fail this test:
the key with the content's length for its sha256 (a changed blob of the same size answered
with the old parse), the key without the path and scope, and the modification time not put
back (the first parse's `modified_at`).
"""

from __future__ import annotations

import pytest

from brain.ingest.memory_files import MemoryFile, shipped
from brain.ingest.parse_helpers import MemoryBuilder
from brain.ingest.reused_notes import ReusedNotes, note_key
from brain.layouts import RuleContext
from brain.store.linking import NoteChange

PLAN = b"---\ndescription: the plan\ntype: project\n---\n# Plan\n\n[[glossary]] [[later#Soon]] [[gone]]\n"
PLAN_EDITED = PLAN.replace(b"[[gone]]", b"[[gone]] [[new]]")
PLAN_SWAPPED = PLAN.replace(b"[[gone]]", b"[[went]]")  # as long as the first: only its bytes differ
KEY = b"token: sk-abcdefghijklmnopqrstuvwxyz0123456789\n[[plan]]\n"

# rel, scope, name, bytes, mtime: in the order built (the reuse is what the earlier rows parsed)
FILES: list[MemoryFile] = [
    ("memory/writer/plan.md", "writer", "plan", PLAN, 100.0),
    ("memory/writer/plan.md", "writer", "plan", PLAN, 200.0),  # the same blob, later: reused
    ("memory/writer/plan.md", "writer", "plan", PLAN_EDITED, 300.0),  # a changed blob: parsed
    ("memory/writer/plan.md", "writer", "plan", PLAN_SWAPPED, 300.0),
    ("memory/reviewer/plan.md", "reviewer", "plan", PLAN, 100.0),  # the same blob, another path
    ("memory/shared/plan.md", "shared", "plan", PLAN, 100.0),
    ("memory/writer/key.md", "writer", "key", KEY, 50.0),  # a secret's problem names its path
    ("memory/reviewer/key.md", "reviewer", "key", KEY, 50.0),
    ("memory/writer/plan.md", "writer", "plan", PLAN, 400.0),  # back to the first blob
    ("memory/writer/plan.md", "writer", "plan", PLAN_EDITED, 300.0),
]
RULES = ("latchai", RuleContext())


def _fresh(file: MemoryFile, bare: bool) -> NoteChange:
    (found,) = shipped([file], RULES, False, bare)
    assert isinstance(found, NoteChange)
    return found


@pytest.mark.parametrize("bare", [True, False], ids=["bare", "with-body"])
@pytest.mark.parametrize("one_by_one", [True, False], ids=["one-by-one", "together"])
def test_a_reused_note_is_what_a_fresh_parse_of_that_file_gives(bare: bool, one_by_one: bool) -> None:
    reuse = ReusedNotes()
    builder = MemoryBuilder(RULES, bare=bare)
    builder.reuse = reuse
    if one_by_one:
        got = []
        for file in FILES:
            builder.add(file)
            got += builder.finish()
    else:  # all at once, twice: the second time, every one is reused
        builder.extend(FILES)
        builder.finish()
        builder.extend(FILES)
        got = builder.finish()
    expected = [_fresh(file, bare) for file in FILES]
    for file, note, fresh in zip(FILES, got, expected, strict=True):
        assert isinstance(note, NoteChange)
        assert (note.memory, note.links) == (fresh.memory, fresh.links), file[:2]
        assert note.memory.modified_at == file[4]
    assert reuse.hits >= 3  # (the table did reuse: what it compared was kept parses)


def test_a_changed_blob_a_path_or_rules_are_other_keys() -> None:
    base = note_key(PLAN, "memory/writer/plan.md", "writer", "plan", RULES, True)
    assert base == note_key(bytes(PLAN), "memory/writer/plan.md", "writer", "plan", RULES, True)
    others = [
        note_key(PLAN_EDITED, "memory/writer/plan.md", "writer", "plan", RULES, True),
        note_key(PLAN_SWAPPED, "memory/writer/plan.md", "writer", "plan", RULES, True),
        note_key(PLAN, "memory/reviewer/plan.md", "reviewer", "plan", RULES, True),
        note_key(PLAN, "memory/writer/plan.md", "writer", "plan", ("mindlink", RuleContext()), True),
        note_key(PLAN, "memory/writer/plan.md", "writer", "plan", RULES, False),
    ]
    assert all(other != base for other in others)


def test_the_kept_notes_are_bounded_by_their_bytes_least_recently_used_out() -> None:
    reuse = ReusedNotes(limit=2 * len(PLAN) + 1)
    keys = [note_key(PLAN, f"memory/writer/p{i}.md", "writer", f"p{i}", RULES, True) for i in range(3)]
    note = _fresh(FILES[0], True)
    reuse.put(keys[0], note)
    reuse.put(keys[1], note)
    assert reuse.get(keys[0], 1.0) is not None  # used: the other is the older now
    reuse.put(keys[2], note)
    assert len(reuse) == 2
    assert reuse.get(keys[1], 1.0) is None
    assert reuse.get(keys[0], 1.0) is not None
    assert reuse.get(keys[2], 1.0) is not None
    huge = ReusedNotes(limit=len(PLAN) - 1)
    huge.put(keys[0], note)  # bigger than the whole bound: not kept
    assert len(huge) == 0
