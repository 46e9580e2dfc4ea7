"""Which change-log entries another process's health counters follow (brain/store/neo4j/
health.py `followed`). The log is read from the database, where anyone with write access
may have put a node of another shape: a garbled or foreign entry must make the counters
count again (None), never fail the dashboard's question or follow the wrong notes."""

from __future__ import annotations

from typing import Any

import pytest

from brain.store.neo4j.health.counters import FOLLOW_MOST, followed


def entry(writes: Any, txns: Any = 1, sources: Any = ("memory:a/x",)) -> dict[str, Any]:
    listed = list(sources) if isinstance(sources, tuple) else sources
    return {"writes": writes, "txns": txns, "sources": listed}


def test_entries_that_chain_give_the_notes_they_changed() -> None:
    log = [entry(11, 1, ("memory:a/x",)), entry(14, 3, ("memory:a/y", "memory:a/x"))]
    assert followed(10, log, 14) == {"memory:a/x", "memory:a/y"}
    assert followed(10, [], 10) == set()


@pytest.mark.parametrize(("log", "now"), [
    ([entry(12)], 12),  # a gap: one write before it is not in the log
    ([entry(11)], 12),  # a write after it is not in the log
    ([entry(11, sources=None)], 11),  # a write of too many notes to name
    ([entry("11")], 11),  # garbled: a count as text
    ([entry(11.0)], 11),  # a float
    ([entry(True, 0)], 11),  # a boolean is no count
    ([entry(11, "1")], 11),
    ([entry(11, 0)], 10),  # no transaction: not brain's entry
    ([entry(11, 1, "memory:a/x")], 11),  # a string is not a list of notes (its letters were followed)
    ([entry(11, 1, [3, None])], 11),
    ([{"writes": 11}], 11),  # fields missing (an older brain's entry, or a foreign node)
    (["not a map"], 11),
    ([entry(11, 1, [f"memory:a/n{n}" for n in range(FOLLOW_MOST + 1)])], 11),
])
def test_an_entry_not_accounting_for_every_write_is_counted_again(log: list[Any], now: int) -> None:
    assert followed(10, log, now) is None


def test_a_position_without_a_count_never_chains() -> None:
    """A workspace node whose write count is not a number reads as -1 (health.py `_where`)."""
    assert followed(-1, [entry(0, 1)], -1) is None
    assert followed(-1, [], -1) == set()  # nothing moved: the counters stay as they are
