"""A payload whose memory rows do not have the shape `encode` gives is refused by `decode`
(before anything is served from it), however it is wrong."""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from brain.service.brain import Brain
from brain.snapshot.columns import decode, encode
from brain.store.memory.store import MemoryStore
from tests.unit.test_link_table import source as source  # fixture


def values(brain: Brain) -> list[Any]:
    store = brain.store
    assert isinstance(store, MemoryStore)
    return [msgpack.unpackb(msgpack.packb(v, use_bin_type=True), raw=False, strict_map_key=True)
            for v in encode(brain.ingester.state(), store.contents())]


def decoded(stream: list[Any]) -> Any:
    return decode(iter(stream).__next__)


def first_nested_chunk(stream: list[Any]) -> int:
    at = next(i for i, v in enumerate(stream) if isinstance(v, dict) and "ids" in v and "hash" in v)
    return at + 2  # the memories' columns, their count, then the nested rows in chunks


def test_an_untouched_payload_decodes(source: Brain) -> None:
    _, image = decoded(values(source))
    assert len(image.memories) == len(image.memory_ids) > 0


@pytest.mark.parametrize("row", [[1, 2], "abcde", 5, None, {"a": 1}])
def test_a_memory_row_of_the_wrong_shape_is_refused(source: Brain, row: Any) -> None:
    stream = values(source)
    at = first_nested_chunk(stream)
    stream[at][0] = row
    with pytest.raises(ValueError, match="nested memory fields of the wrong shape"):
        decoded(stream)


def test_a_missing_memory_row_is_refused(source: Brain) -> None:
    stream = values(source)
    at = first_nested_chunk(stream)
    stream[at - 1] -= 1  # one row fewer than memories
    stream[at].pop()
    with pytest.raises(ValueError, match="wrong shape"):
        decoded(stream)


def test_a_named_tuple_is_a_row_of_its_fields_and_one_of_another_width_is_refused() -> None:
    """`FileState` is a named tuple: the codec sends it as its fields, builds it back as
    itself, refuses a row of another width, and the schema names its fields (a change to
    them makes old snapshots stale)."""
    from brain.ingest.state import FileState, IngestState
    from brain.snapshot import rows

    state = FileState(12, 34, "hash", None)
    coded = rows.codec(FileState)
    assert coded is not None
    to_plain, from_plain = coded
    assert to_plain(state) == [12, 34, "hash", None]
    back = from_plain([12, 34, "hash", None])
    assert back == state
    assert type(back) is FileState
    with pytest.raises(ValueError, match="FileState needs 4 fields"):
        from_plain([12, 34, "hash"])
    assert "brain.ingest.state.FileState(size:" in rows.schema(IngestState)
