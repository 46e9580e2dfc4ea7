"""A snapshot's links kept as columns (brain/store/memory_link_columns.py): each source's rows
built on first read are the rows a full decode builds, counted without building any, and a
column that does not fit is refused when the snapshot is read."""

from __future__ import annotations

import shutil
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brain.service import Brain
from brain.store import memory_link_columns
from brain.store.memory import MemoryStore
from brain.store.memory_link_columns import LazyLinkRows, LinkColumns
from brain.store.memory_links import SET_AFTER
from tests.contract.helpers import answers, note, reference
from tests.unit.test_memory_compact import generated_workspace, restored


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Brain:
    root = tmp_path_factory.mktemp("columns") / "ws"
    generated_workspace(root, notes=120, seed=5)
    (root / "memory" / "shared" / "bad.md").write_text(note("bad", "[[nowhere]] [[also#gone]] [[nowhere]]"))
    # A hub: more links to one note (and asking one name) than an index keeps in an array.
    (root / "memory" / "shared" / "hub.md").write_text(note("hub"))
    for i in range(SET_AFTER + 20):
        (root / "memory" / "shared" / f"spoke-{i}.md").write_text(note(f"spoke {i}", "[[hub]]"))
    return reference(root)


def original_rows(brain: Brain) -> dict[str, list[Any]]:
    store = brain.store
    assert isinstance(store, MemoryStore)
    return dict(store._out.items())


def test_a_restore_holds_its_links_as_columns_until_read(source: Brain) -> None:
    store = restored(source)
    table = store._out
    assert isinstance(table, LazyLinkRows)
    assert all(isinstance(held, int) for held in dict.values(table))  # nothing built yet
    expected = original_rows(source)
    assert list(table) == list(expected)  # the same sources, in the same order
    for key in list(expected)[::3]:
        assert table[key] == expected[key]  # one source built on its own
        assert type(table[key]) is list
    assert sum(not isinstance(held, int) for held in dict.values(table)) == len(list(expected)[::3])
    assert table == expected  # the rest in bulk: the same rows
    assert all(type(held) is list for held in dict.values(table))


def test_rows_built_one_by_one_are_the_bulk_rows_field_by_field(source: Brain) -> None:
    table = restored(source)._out
    assert isinstance(table, LazyLinkRows)
    columns = table._columns
    assert columns is not None
    bulk = columns.all_rows()
    singles = [columns.rows(at) for at in range(len(columns.sources))]
    assert singles == bulk
    for one, many in zip(singles, bulk, strict=True):
        for a, b in zip(one, many, strict=True):
            assert [type(v) for v in a] == [type(v) for v in b]
            assert a[0] is b[0]  # ids shared with the string table
            assert a[2] is b[2]
    assert any(row[12] for rows in bulk for row in rows)  # candidates are covered


def test_many_single_reads_turn_into_one_bulk_build(source: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_link_columns, "BULK_AFTER", 3)
    table = restored(source)._out
    assert isinstance(table, LazyLinkRows)
    expected = original_rows(source)
    keys = list(expected)
    for key in keys[:3]:
        assert table.get(key) == expected[key]
    assert any(isinstance(held, int) for held in dict.values(table))
    assert table.get(keys[5]) == expected[keys[5]]  # the fourth: everything is built
    assert not any(isinstance(held, int) for held in dict.values(table))
    assert table._columns is None  # let go once built
    assert table.get("memory:nobody/none", ()) == ()


def test_stats_of_a_restore_come_from_the_columns_and_match(source: Brain) -> None:
    store = restored(source)
    assert store.stats() == source.store.stats()
    assert not store._indexed  # no index was built for it
    assert store.stats().unresolved > 0
    assert store.stats().broken > 0


def test_name_lookups_of_a_restore_build_the_name_index_alone(source: Brain) -> None:
    """A completion's first lookup (at 100,000 notes) waited for the link index too."""
    store = restored(source)
    original = source.store
    keys = ["hub", "bad", "spoke-3", "nothing", "bot"]
    assert store.name_entries(keys) == original.name_entries(keys)
    assert store.find_memory("shared", "hub") == original.find_memory("shared", "hub")
    assert store._names_indexed
    assert not store._indexed  # no link index for these
    assert store.links_with_keys(["hub"]) == original.links_with_keys(["hub"])
    assert store._indexed
    assert answers(store) == answers(original)


def test_stats_after_a_write_are_the_written_graphs(source: Brain, tmp_path: Path) -> None:
    """Counts from the columns describe the restore only: after a write they are not used."""
    root = tmp_path / "ws"
    shutil.copytree(source.ingester.root, root)
    twin = Brain(root, restored(source))
    twin.ingester.restore(source.ingester.state())
    twin.stats()  # counted from the columns first
    (root / "memory" / "shared" / "nowhere.md").write_text(note("now it is here"))
    (root / "memory" / "shared" / "bad.md").write_text(note("bad", "[[gone-too]]"))
    twin.sync(["memory/shared/nowhere.md", "memory/shared/bad.md"])
    expected = reference(root).store
    assert twin.store.stats() == expected.stats()
    assert answers(twin.store) == answers(expected)


def columns(**change: Any) -> LinkColumns:
    table = np.empty(4, dtype=object)
    table[:] = [None, "memory:a/x", "t", "unresolved:t"]
    fields: dict[str, Any] = {
        "sources": ["memory:a/x"], "counts": array("I", [2]), "ordinal": array("I", [0, 1]),
        "strings": {name: array("I", [3, 2]) for name in memory_link_columns.STRING_COLUMNS},
        "status": bytes([1, 0]), "embed": bytes([0, 1]), "line": array("q", [1, 2]),
        "column": array("q", [0, 4]), "candidates": {1: array("I", [2]).tobytes()},
    }
    fields.update(change)
    return LinkColumns(table, table.tolist(), **fields)


def test_columns_count_statuses_and_unresolved_targets() -> None:
    found = columns()
    assert found.rows(0) == found.all_rows()[0]
    assert found.rows(0)[1][12] == ("t",)
    assert found.rows(0)[0][9] is False
    statuses, unresolved = found.counts()
    assert list(statuses.values())[:2] == [1, 1]
    assert sum(statuses.values()) == 2
    assert unresolved == 1


@pytest.mark.parametrize(("change", "error"), [
    ({"counts": array("I", [3])}, "wrong length"),
    ({"sources": ["a", "b"]}, "counts of the wrong length"),
    ({"line": array("q", [1])}, "wrong length"),
    ({"status": bytes([0, 99])}, "unknown status"),
    ({"strings": {n: array("I", [3, 4]) for n in memory_link_columns.STRING_COLUMNS}}, "out of the table"),
    ({"strings": {"raw": array("I", [1, 1])}}, "missing"),
    ({"candidates": {2: array("I", [2]).tobytes()}}, "not there"),
    ({"candidates": {1: array("I", [4]).tobytes()}}, "out of the table"),
    ({"candidates": {1: b"\0\0\0"}}, "not packed indexes"),
])
def test_columns_that_do_not_fit_are_refused(change: dict[str, Any], error: str) -> None:
    with pytest.raises((ValueError, IndexError), match=error):
        columns(**change)


def test_the_indexes_built_from_the_columns_are_the_rows_indexes(source: Brain) -> None:
    """A restore's first index build reads the columns (no row built): the same incoming
    links, links by key and Unresolved nodes, in the same order, as a build over the rows."""
    from_columns = restored(source)
    from_columns._ensure_indexes()
    table = from_columns._out
    assert isinstance(table, LazyLinkRows)
    assert all(isinstance(held, int) for held in dict.values(table))  # no row was built
    from_rows = restored(source)
    from_rows._out.build_all()  # type: ignore[attr-defined]
    from_rows._ensure_indexes()
    assert isinstance(from_columns._links.incoming["memory:shared/hub"], set)  # the hub's
    for name in ("incoming", "by_key", "unresolved"):
        built, expected = getattr(from_columns._links, name), getattr(from_rows._links, name)
        assert built == expected
        assert list(built) == list(expected)
    assert answers(from_columns) == answers(source.store)
