"""The embedded store's links as columns (brain/store/memory/links/table.py): a table gives what
a plain dict of rows would give after any writes, packs without changing an answer, an
image taken before later writes keeps its moment, a restore adopts a snapshot's columns, and
a column that does not fit is refused when the snapshot is read."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.store.base import WriteBatch
from brain.store.memory.links import table as memory_link_table
from brain.store.memory.links.image import STATUSES, STRING_COLUMNS, LinkImage
from brain.store.memory.links.index import SET_AFTER, LinkIndex
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import LinkRow
from brain.store.memory.store import MemoryStore
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


def original_rows(brain: Brain) -> dict[str, list[LinkRow]]:
    store = brain.store
    assert isinstance(store, MemoryStore)
    return dict(store._out.items())


def test_a_restore_reads_the_rows_it_was_written_with(source: Brain) -> None:
    table = restored(source)._out
    expected = original_rows(source)
    assert [s for s, _ in table.items()] == list(expected)  # the same sources, in order
    assert table == expected
    assert any(row[12] for rows in expected.values() for row in rows)  # candidates covered
    for key, rows in expected.items():
        one = table.get(key)
        assert one == rows
        assert [[type(v) for v in row] for row in one] == [[type(v) for v in row] for row in rows]
        for row in rows:
            assert table.row(key, row[1]) == row
    assert table.get("memory:nobody/none") == []


def test_rows_share_their_strings(source: Brain) -> None:
    store = restored(source)
    rows = [row for _, held in store._out.items() for row in held]
    by_target: dict[str, set[int]] = {}
    for row in rows:
        by_target.setdefault(row[2], set()).add(id(row[2]))
    assert all(len(copies) == 1 for copies in by_target.values())
    memory_ids = {id(m) for m in store._memories}
    assert any(id(row[2]) in memory_ids for row in rows)  # a target id is its memory's id


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


# ---------------------------------------------------------------- against a plain dict


def some_rows(rng: random.Random, source: str, targets: list[str]) -> list[LinkRow]:
    rows: list[LinkRow] = []
    for ordinal in range(rng.choice([0, 1, 1, 2, 3, 7])):
        target = rng.choice(targets)
        status = rng.choice(STATUSES)
        rows.append((
            source, ordinal, target, status, rng.choice([None, f"[[{target} ]]"]), target,
            target.rsplit(":", 1)[-1], rng.choice([None, "a label"]), rng.choice([None, "part"]),
            rng.random() < 0.2, rng.choice([rng.randrange(1, 90), 2**32 - 1]), rng.randrange(1, 40),
            ("memory:a/x", "memory:b/x") if status is LinkStatus.AMBIGUOUS else (),
        ))
    return rows


def check_same(table: LinkTable, expected: dict[str, list[LinkRow]]) -> None:
    assert list(table.items()) == list(expected.items())
    assert len(table) == len(expected)
    for source, rows in expected.items():
        assert table.get(source) == rows
        assert table.problem_rows(source) == [r for r in rows if r[3] is not LinkStatus.RESOLVED]
        for row in rows:
            assert table.row(source, row[1]) == row
    everything = [row for rows in expected.values() for row in rows]
    assert table.counts() == {s: sum(1 for r in everything if r[3] is s) for s in STATUSES}
    assert table.with_problems() == {
        s for s, rows in expected.items() if any(r[3] is not LinkStatus.RESOLVED for r in rows)
    }
    assert table.unresolved_count() == len({r[2] for r in everything if r[2].startswith("unresolved:")})
    built, reference_index = LinkIndex(), LinkIndex()
    table.index_into(built)
    reference_index.build(expected.values())
    for name in ("incoming", "by_key", "unresolved"):
        assert getattr(built, name) == getattr(reference_index, name)
        assert list(getattr(built, name)) == list(getattr(reference_index, name))


@pytest.mark.parametrize("seed", range(6))
def test_any_writes_give_what_a_dict_of_rows_gives(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_link_table, "PACK_AFTER", 8)  # pack often
    rng = random.Random(seed)
    sources = [f"memory:a/n{i}" for i in range(30)]
    targets = [*sources[:10], "unresolved:gone", "unresolved:later", "workflow:w"]
    table, expected = LinkTable(), {}
    for step in range(120):
        roll = rng.random()
        if roll < 0.6:  # a batch: a few sources written again
            batch = {s: some_rows(rng, s, targets) for s in rng.sample(sources, rng.randrange(1, 6))}
            for s in batch:
                expected.pop(s, None)
            expected.update(batch)
            table.put_many(batch.items())
        elif roll < 0.8:
            victim = rng.choice(sources)
            assert table.pop(victim) == expected.pop(victim, [])
        elif roll < 0.9:  # statuses alone set in place, in a few sources
            held = [s for s, rows in expected.items() if rows]
            changed = []
            for victim in rng.sample(held, min(len(held), 3)):
                at = rng.randrange(len(expected[victim]))
                status = rng.choice(STATUSES)
                row = expected[victim][at] = (*expected[victim][at][:3], status, *expected[victim][at][4:])
                assert table.status_only(row)
                assert not table.status_only((*row[:2], "memory:a/elsewhere", *row[3:]))
                changed.append((victim, at, status))
            table.set_statuses(changed)
        else:  # a relink: one row changed in place, the source written again
            held = [s for s, rows in expected.items() if rows]
            if not held:
                continue
            victim = rng.choice(held)
            rows = table.get(victim)
            at = rng.randrange(len(rows))
            rows[at] = (*rows[at][:2], "memory:a/n1", LinkStatus.RESOLVED, *rows[at][4:])
            expected.pop(victim)
            expected[victim] = rows
            table.put_many([(victim, rows)])
        if step % 10 == 0:
            check_same(table, expected)
    check_same(table, expected)
    packed = LinkTable(table.image().packed())
    check_same(packed, expected)
    assert len(packed.image().strings) == len(set(packed.image().strings))


def test_an_image_keeps_its_moment_through_later_writes_and_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_link_table, "PACK_AFTER", 2)
    rng = random.Random(1)
    sources = [f"memory:a/n{i}" for i in range(12)]
    table = LinkTable()
    table.put_many((s, some_rows(rng, s, sources)) for s in sources)
    image = table.image()
    then = dict(table.items())
    for _ in range(40):  # grows every column (copies), packs (new columns), sets statuses
        table.put_many((s, some_rows(rng, s, sources)) for s in rng.sample(sources, 4))
        table.pop(rng.choice(sources))
        held = [s for s, _ in table.items() if table.get(s)]
        table.set_statuses([(s, 0, rng.choice(STATUSES)) for s in held[:3]])
    assert dict(image.items()) == then
    assert LinkTable(image) == then


def test_statuses_set_in_place_leave_an_image_taken_before_as_it_was() -> None:
    rng = random.Random(2)
    sources = [f"memory:a/n{i}" for i in range(6)]
    table = LinkTable()
    rows = {s: some_rows(rng, s, sources) for s in sources}
    sources = [s for s in sources if rows[s]]  # those with a link
    table.put_many(rows.items())
    image = table.image()
    then = dict(table.items())
    assert sources
    flipped = [(s, 0, LinkStatus.BROKEN if then[s][0][3] is LinkStatus.RESOLVED else LinkStatus.RESOLVED)
               for s in sources]
    table.set_statuses(flipped)
    assert dict(image.items()) == then
    assert LinkTable(image) == then
    assert [table.get(s)[0][3] for s in sources] == [status for *_, status in flipped]


@pytest.mark.parametrize("status_first", [True, False])
def test_relinks_of_a_status_and_a_target_in_one_source_in_either_order(
    tmp_path: Path, status_first: bool,
) -> None:
    """A link whose status alone changed is set where it is; one source may have that and
    a link written again (its whole block appended) in the same batch, in any order."""
    shared = tmp_path / "memory" / "shared"
    shared.mkdir(parents=True)
    (shared / "a.md").write_text(note("a", "[[b#Top]] [[c]] [[b#Top]]"))
    (shared / "b.md").write_text(note("b", "# Bottom"))
    (shared / "c.md").write_text(note("c"))
    store = reference(tmp_path).store
    assert isinstance(store, MemoryStore)
    links = store.links_from(["memory:shared/a"])["memory:shared/a"]
    assert [link.status for link in links] == [
        LinkStatus.MISSING_ANCHOR, LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR]
    found = links[0]._replace(status=LinkStatus.RESOLVED)
    retargeted = links[1]._replace(target_id="unresolved:c", status=LinkStatus.BROKEN)
    store.write(WriteBatch(relinks=[found, retargeted] if status_first else [retargeted, found]))
    assert store.links_from(["memory:shared/a"])["memory:shared/a"] == [found, retargeted, links[2]]
    assert store.links_to(["unresolved:c", "memory:shared/c"]) == {
        "unresolved:c": [retargeted], "memory:shared/c": []}
    counts = store._out.counts()
    wanted = (LinkStatus.RESOLVED, LinkStatus.BROKEN, LinkStatus.MISSING_ANCHOR)
    assert [counts[status] for status in wanted] == [1, 1, 1]


def test_a_store_written_many_times_holds_no_more_than_packing_allows(source: Brain) -> None:
    store = restored(source)
    table = store._out
    live = sum(table.counts().values())
    for _ in range(6):  # every source written again: each time all its links die once
        table.put_many(list(table.items()))
    assert table._dead <= max(live // memory_link_table.DEAD_SHARE, memory_link_table.PACK_AFTER)
    assert table == original_rows(source)


# ---------------------------------------------------------------- refused columns


def image(**change: Any) -> LinkImage:
    fields: dict[str, Any] = {
        "strings": [None, "memory:a/x", "t", "unresolved:t"], "sources": ["memory:a/x"],
        "counts": np.array([2]), "candidates": {1: ("t",)},
        "columns": {
            **{name: np.array([3, 2], np.uint32) for name in STRING_COLUMNS},
            "ordinal": np.array([0, 1], np.uint32), "status": np.array([1, 0], np.uint8),
            "embed": np.array([0, 1], np.uint8), "line": np.array([1, 2]), "column": np.array([0, 4]),
        },
    }
    columns = fields["columns"]
    columns.update(change.pop("columns", {}))
    fields.update(change)
    return LinkImage.checked(**fields)


def test_a_checked_image_builds_its_rows() -> None:
    table = LinkTable(image())
    (row0, row1), = [rows for _, rows in table.items()]
    assert row1[12] == ("t",)
    assert row0[9] is False
    assert row1[9] is True
    assert row0[3] is STATUSES[1]
    assert table.counts()[STATUSES[0]] == table.counts()[STATUSES[1]] == 1
    assert table.unresolved_count() == 1


@pytest.mark.parametrize(("change", "error"), [
    ({"counts": np.array([3])}, "wrong length"),
    ({"sources": ["a", "b"]}, "counts of the wrong length"),
    ({"columns": {"line": np.array([1])}}, "wrong length"),
    ({"columns": {"status": np.array([0, 99], np.uint8)}}, "unknown status"),
    ({"columns": {"raw": np.array([3, 4], np.uint32)}}, "out of the table"),
    ({"candidates": {2: ("t",)}}, "not there"),
])
def test_columns_that_do_not_fit_are_refused(change: dict[str, Any], error: str) -> None:
    with pytest.raises((ValueError, IndexError), match=error):
        image(**change)


def test_a_missing_column_is_refused() -> None:
    columns = dict(image().columns)
    del columns["raw"]
    with pytest.raises(ValueError, match="missing"):
        LinkImage.checked([None, "t"], ["memory:a/x"], np.array([2]), columns, {})


def test_the_indexes_built_from_the_columns_are_the_rows_indexes(source: Brain) -> None:
    """A restore's first index build reads the columns (no row built): the same incoming
    links, links by key and Unresolved nodes, in the same order, as a build over the rows."""
    from_columns = restored(source)
    from_columns._ensure_indexes()
    from_rows = LinkIndex()
    from_rows.build(original_rows(source).values())
    assert isinstance(from_columns._links.incoming["memory:shared/hub"], set)  # the hub's
    for name in ("incoming", "by_key", "unresolved"):
        built, expected = getattr(from_columns._links, name), getattr(from_rows, name)
        assert built == expected
        assert list(built) == list(expected)
    assert answers(from_columns) == answers(source.store)


def test_links_put_as_links_are_held_as_their_rows() -> None:
    """A first sync's write hands the table its `Link`s (`put_many(links=True)`: the text
    kept only where it is not written the plain way, worked out column by column); the
    table holds exactly what the rows `link_row` makes would give it."""
    from brain.model import Link
    from brain.store.memory.rows import link_row

    rng = random.Random(43)
    written: list[tuple[str, list[Link]]] = []
    for s in range(40):
        links = []
        for ordinal in range(rng.randrange(6)):
            target = rng.choice(["a", "B c", "x/y", "é", ""])
            anchor = rng.choice([None, "H", "^b", ""])
            label = rng.choice([None, "L", ""])
            embed = rng.random() < 0.2
            plain = ("![[" if embed else "[[") + target + ("" if anchor is None else "#" + anchor) \
                + ("" if label is None else "|" + label) + "]]"
            raw = rng.choice([plain, plain, f"[[ {target} ]]", plain.replace("|", "\\|")])
            links.append(Link(f"memory:a/s{s}", ordinal, f"memory:a/{target}", rng.choice(STATUSES),
                              raw, target, target.lower(), label, anchor, embed, ordinal + 1, 3,
                              ("memory:b/x",) if ordinal == 2 else ()))
        written.append((f"memory:a/s{s}", links))
    by_rows, by_links = LinkTable(), LinkTable()
    by_rows.put_many((source, [link_row(link) for link in links]) for source, links in written)
    by_links.put_many(written, links=True)
    assert dict(by_links.items()) == dict(by_rows.items())
    assert any(row[4] is not None for _, rows in by_links.items() for row in rows)  # kept texts
    assert any(row[4] is None for _, rows in by_links.items() for row in rows)  # plain ones
    assert by_links.counts() == by_rows.counts()
