"""A brain keeps the mentions it computed (brain.service.mentions.MentionCache) and uses
them again only while they are right: an edit recomputes the edited note alone, a new or
renamed note recomputes the notes that may reach its name, on both stores. And a workspace
sweep (`brain check --mentions`, maintain) answers what note-by-note asks answer."""

from __future__ import annotations

from pathlib import Path

from brain.service.brain import Brain
from brain.service.mentions import brain_mentions, note_mentions, workspace_mentions
from brain.store.base import GraphStore, MemoryFilter
from tests.hostile.test_mentions_related import workspace

TOKIO = "memory/alice/tokio-runtime.md"
LINKED = "memory/alice/linked-note.md"
STEALING = "memory:alice/work-stealing scheduler"


def texts(brain: Brain, rel: str) -> list[tuple[int, int, str, str | None]]:
    memory = brain.memory_at(rel)
    assert memory is not None
    return [(m.line, m.column, m.text, m.target) for m in brain_mentions(brain, memory)]


def test_kept_answers_follow_edits_names_and_renames(tmp_path: Path, store: GraphStore) -> None:
    root = workspace(tmp_path / "ws")
    brain = Brain(root, store)
    try:
        brain.sync()
        assert texts(brain, TOKIO) == [(4, 24, "Rust Async", "memory:alice/rust-async")]
        linked = brain.memory_at(LINKED)
        assert linked is not None
        kept = brain_mentions(brain, linked)
        assert brain_mentions(brain, linked) is kept  # asked again: the kept answer

        # A new note whose name the tokio note says: the names changed, so it is found.
        new = root / "memory/alice/work-stealing scheduler.md"
        new.write_text("how stealing works\n", encoding="utf-8")
        brain.sync()
        assert texts(brain, TOKIO) == [
            (4, 24, "Rust Async", "memory:alice/rust-async"),
            (4, 46, "work-stealing scheduler", STEALING),
        ]

        # The tokio note links rust-async now: that mention goes, the other stays.
        tokio = root / TOKIO
        tokio.write_text(tokio.read_text(encoding="utf-8").replace("Rust Async", "[[rust-async|Rust Async]]"),
                         encoding="utf-8")
        brain.sync()
        assert texts(brain, TOKIO) == [(4, 61, "work-stealing scheduler", STEALING)]

        # Renamed: the old name is no mention any more.
        new.rename(root / "memory/alice/steal-guide.md")
        brain.sync()
        assert texts(brain, TOKIO) == []

        # The sweep says what the asks say, note by note.
        swept = {m.path: [(x.line, x.column, x.text) for x in found]
                 for m, found in workspace_mentions(store, root)}
        for memory in store.list_memories(MemoryFilter(), bodies=False):
            one = [(x.line, x.column, x.text) for x in note_mentions(store, root, memory)]
            assert swept.get(memory.path, []) == one, memory.path
    finally:
        brain.close()
