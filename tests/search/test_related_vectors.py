"""Related notes' semantic half ranks by the note's own stored vector (the one search ranks
the note by), read from the vectors' cache: no run of the encoder for a note already
embedded (that run was most of a related query's time). A note changed since it was
embedded falls back to encoding its text, and finds the same neighbours."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from brain.search.embedding import embedding_text
from brain.service.mentions import body_and_line, related_to
from brain.store.base import MemoryFilter
from brain.store.visibility import EVERYTHING
from tests.search.helpers import example_brain, needs_model


def test_related_reads_the_notes_own_vector_instead_of_encoding_it(tmp_path: Path) -> None:
    needs_model()
    brain = example_brain()
    try:
        indexer = brain.search.indexer
        assert indexer.encoder is not None
        encoder = indexer.encoder
        runs: list[int] = []
        real = encoder.encode_texts

        def counted(texts: Sequence[str]) -> list[list[float]]:
            runs.append(len(texts))
            return real(texts)

        notes = brain.store.list_memories(MemoryFilter(), bodies=False)[:6]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(encoder, "encode_texts", counted)
            for memory in notes:
                body, _ = body_and_line(brain.root, memory)
                stored = indexer.note_vector(replace(memory, body=body))
                assert stored is not None, memory.id  # embedded at ingest: in the cache
                assert related_to(brain.search, brain.root, memory, reach=EVERYTHING, first=5)
        assert runs == []  # the encoder never ran: every note's vector came from the cache
        # A text the cache has never seen is encoded, as a query is.
        fresh = replace(notes[0], body="words no note of the example holds, zebra quasar")
        assert indexer.note_vector(fresh) is None
        assert embedding_text(fresh) != embedding_text(notes[0])
    finally:
        brain.close()
