"""A memory's headings held flat (brain.model.Headings) read exactly as the tuple of
`Heading` they were built from: every sequence operation the readers use, equality both
ways, pickling, and anchors found over them."""

from __future__ import annotations

import pickle

import pytest

from brain.model import NO_HEADINGS, Anchors, Heading, Headings
from brain.parse.note import parse_note
from brain.parse.spans.anchors import anchor_target

TEXT = "# Top\n\n## The `date` *field*\n\ntext\n\n### Retry policy\n\n## Last\n"
AS_PARSED = parse_note(TEXT, "memory/shared/n.md").headings


@pytest.mark.parametrize("headings", [(), AS_PARSED[:1], AS_PARSED], ids=["none", "one", "four"])
def test_headings_read_as_the_tuple_they_hold(headings: tuple[Heading, ...]) -> None:
    held = Headings(headings)
    assert len(held) == len(headings)
    assert tuple(held) == headings
    assert held == headings
    assert headings == held
    assert list(held) == list(headings)
    assert bool(held) is bool(headings)
    for at in range(-len(headings), len(headings)):
        assert held[at] == headings[at]
    assert held[1:] == headings[1:]
    assert held[::-1] == headings[::-1]
    for heading in headings:
        assert held.index(heading) == headings.index(heading)
        assert heading in held
    with pytest.raises(IndexError):
        held[len(headings)]
    with pytest.raises(IndexError):
        held[-len(headings) - 1]
    again = pickle.loads(pickle.dumps(held))
    assert type(again) is Headings
    assert again == held
    assert hash(again) == hash(held) == hash(headings)


def test_a_source_as_written_survives() -> None:
    held = Headings(AS_PARSED)
    assert [h.written for h in held] == [h.written for h in AS_PARSED]
    assert any(h.source for h in held)


def test_headings_differ_where_a_field_differs() -> None:
    one = Headings([Heading("A", 2, 3)])
    assert one != Headings([Heading("A", 2, 4)])
    assert one != (Heading("A", 3, 3),)
    assert one != "A"
    assert NO_HEADINGS == ()


def test_flat_headings_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(ValueError, match="wrong length"):
        Headings.of_flat(("A", 2, 3))


ANCHORS = ["Top", "The date field", "The `date` *field*", "Top#Retry policy", "Nope"]


@pytest.mark.parametrize("anchor", ANCHORS)
def test_anchors_over_flat_headings_land_where_over_a_tuple(anchor: str) -> None:
    found = anchor_target(Anchors(Headings(AS_PARSED)), anchor)
    assert found == anchor_target(Anchors(AS_PARSED), anchor)
    assert (found is not None) is (anchor != "Nope")
