"""A payload whose memory rows do not have the shape `encode` gives is refused by `decode`
(before anything is served from it), however it is wrong."""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from brain.service.brain import Brain
from brain.snapshot.columns import decode, encode
from brain.store.memory.rows import MEMORY_FIELDS
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
    # The memories' columns; their descriptions (a count, then chunks); the nested rows' count.
    return at + 3 + len(range(0, stream[at + 1], 512 * 16))


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


def test_descriptions_are_written_as_they_are_not_through_the_string_table(source: Brain) -> None:
    """A memory's description is its own text: in the string table (a dict entry and an int
    object each while it is written) it cost the write about 70 bytes a note for nothing."""
    stream = values(source)
    _, image = decoded(stream)
    table = set(stream[1])  # the count, then the table's strings (one chunk here)
    at = MEMORY_FIELDS.index("description")
    rows = [m if type(m) is tuple else tuple(getattr(m, f) for f in MEMORY_FIELDS) for m in image.memories]
    described = {m[at] for m in rows if m[at]}
    assert image.links is not None
    others = {v for m in rows for i, v in enumerate(m) if i != at and isinstance(v, str)}
    others |= {s for s in image.links.strings if isinstance(s, str)} | set(image.memory_ids)
    own = described - others  # the descriptions no other string of the graph says
    assert own
    assert not own & table


@pytest.mark.parametrize("wrong", [[5], [None], [b"bytes"]])
def test_a_description_column_of_the_wrong_type_or_length_is_refused(source: Brain, wrong: Any) -> None:
    stream = values(source)
    at = next(i for i, v in enumerate(stream) if isinstance(v, dict) and "ids" in v and "hash" in v)
    stream[at + 2] = stream[at + 2][:-1] + wrong
    with pytest.raises(ValueError, match="memory descriptions of the wrong length or type"):
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
