"""The first sync of a database that holds no graph yet: written in parts, switched in at once.

The ingester writes it part by part (brain/ingest/parts.py, as into the embedded store) onto
the set of labels no reader matches, then one transaction makes it the graph
(brain/store/neo4j/generations/rebuild.py). Parts are made small here (`PartWriter.size`) so a workspace
of 60 notes takes several; a reader polling all the while sees no graph or all of it.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.ingest import ingester as ingest
from brain.ingest import parse_helpers
from brain.ingest.parts import PartWriter
from brain.service.brain import Brain, GraphChange
from brain.store.base import LogPosition, WriteBatch
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore
from tests.contract.helpers import Workspace, note, reference_export
from tests.layout_specs import SPECS, LayoutSpec
from tests.neo4j.conftest import Login, StoreMaker, driver_for
from tests.neo4j.faults import Crash, Injector
from tests.neo4j.test_generations import LOOK, NOTES, count, looking_after_commits, raw_count, write_notes
from tests.unit.test_ingest_parts_layouts import in_parts, layout_workspace

pytestmark = pytest.mark.neo4j


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of 8 notes, handed back by the parse helpers 3 at a time (as in tests/unit)."""
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "2")
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parse_helpers, "CHUNK", 3)
    monkeypatch.setattr(ingest, "KEEP", 1)
    monkeypatch.setattr(PartWriter, "size", 8)


def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    ws.write("agents/bot.md", "---\nmemory: true\n---\n")
    write_notes(ws, "old")
    ws.write("memory/shared/anchored.md", note("anchored", "[[n59#Heading]] [[nowhere]]"))
    return ws


@contextlib.contextmanager
def counting_notes(reader: Neo4jStore) -> Iterator[Counter[int]]:
    """How many notes each look of a reader polling while the block runs found."""
    seen: Counter[int] = Counter()

    def once() -> None:
        seen[len(reader._read(LOOK)[0]["descriptions"])] += 1

    with looking_after_commits(once):  # after each commit, not without pause
        yield seen


def test_a_reader_sees_no_graph_then_all_of_it(
    tmp_path: Path, make_store: StoreMaker, neo4j_login: Login, small_parts: None
) -> None:
    ws = workspace(tmp_path)
    store = make_store()
    brain = Brain(ws.root, store)
    reader = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
    events: list[GraphChange] = []
    brain.subscribe(events.append)
    parts: list[int] = []
    written = PartWriter.commit

    def counting(self: PartWriter, batch: WriteBatch) -> None:
        if batch:
            parts.append(raw_count(store, "Memory"))  # nothing is written under the live labels
        told = len(events)
        written(self, batch)
        assert len(events) == told, "subscribers were told before the switch"

    with pytest.MonkeyPatch.context() as patch, counting_notes(reader) as seen:
        patch.setattr(PartWriter, "commit", counting)
        result = brain.sync()

    assert len(parts) > 5, "the first sync should be written in several parts"
    assert set(parts) == {0}
    assert store.rebuilds == 1
    assert set(seen) <= {0, NOTES + 1}  # no graph, or all of it
    assert seen[0] > 0  # the reader did look while the parts were written
    assert store.export() == reference_export(ws.root)
    assert result.parsed == NOTES + 1
    # The graph lives under the documented labels; nothing is left under the staged ones.
    assert raw_count(store, "Memory") == NOTES + 1
    assert raw_count(store, "BrainStagedMemory") == 0
    # The switch logged each part's changes (one entry a part); subscribers got them then.
    end, entries = reader.changes_after(LogPosition(None, 0), limit=1_000)
    assert end.seq == len(parts)
    added = sorted(e["id"] for e in entries if e["kind"] == "added")
    assert added == sorted(e.id for e in events if e.kind == "added")
    assert {f"memory:bot/n{i}" for i in range(NOTES)} | {"memory:shared/anchored", "agent:bot"} <= set(added)
    brain.close()
    reader.close()


def test_a_restart_on_the_graph_it_wrote_writes_nothing(
    tmp_path: Path, make_store: StoreMaker, small_parts: None
) -> None:
    ws = workspace(tmp_path)
    first = make_store()
    Brain(ws.root, first).sync()
    first.close()
    again = make_store()
    brain = Brain(ws.root, again)
    result = brain.sync()
    assert again.transactions == 0
    assert again.rebuilds == 0
    assert not result.batch
    assert again.export() == reference_export(ws.root)
    # An edit is one transaction on the live set (the documented labels, as always).
    ws.write("memory/bot/n1.md", note("edited 1", "[[n2]]"))
    brain.sync(["memory/bot/n1.md"])
    assert again.export() == reference_export(ws.root)
    assert count(again, "Memory") == NOTES + 1
    brain.close()


def test_a_first_sync_cut_short_leaves_no_graph_and_the_next_one_writes_it(
    tmp_path: Path, make_store: StoreMaker, small_parts: None
) -> None:
    ws = workspace(tmp_path)
    injector = Injector()
    writer = make_store(injector=injector)
    Brain(ws.root, writer).sync()
    whole = injector.runs  # statements the whole first sync runs
    writer.clear()
    brain = Brain(ws.root, writer)
    injector.fault, injector.at = "crash", injector.runs + whole // 2  # halfway through the parts
    with pytest.raises(Crash):
        brain.sync()
    assert writer.export().nodes == frozenset()  # readers see no graph, not part of one
    assert count(writer, "BrainStagedMemory") > 0  # the staged parts, unseen
    injector.fault = None
    brain.sync()
    assert writer.export() == reference_export(ws.root)
    assert count(writer, "BrainStagedMemory") == 0
    brain.close()


def test_the_change_log_entries_are_json_lists_of_changes(
    tmp_path: Path, make_store: StoreMaker, small_parts: None
) -> None:
    ws = workspace(tmp_path)
    store = make_store()
    brain = Brain(ws.root, store)
    brain.sync()
    raw = store._read("MATCH (c:BrainChange) RETURN c.changes AS changes ORDER BY c.seq")
    assert len(raw) > 1  # one entry a part
    for record in raw:
        changes = json.loads(record["changes"])
        assert changes
        assert all({"kind", "id", "scope", "fields", "at"} <= set(c) for c in changes)
    brain.close()


@pytest.mark.parametrize("example", ["workspace", "space", "mindlink", "lab"])
def test_every_layout_staged_in_parts_gives_the_embedded_graph(
    example: str, tmp_path: Path, make_store: StoreMaker, small_parts: None
) -> None:
    """Links to nodes of later parts (notes, daily notes, skills, files, workflows, agents)
    and names the walk foresaw wrongly all end as the embedded store's one batch has them."""
    root = tmp_path / example
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / example, root)
    store = make_store()
    brain = Brain(root, store)
    brain.sync()
    assert store.rebuilds == 1
    reference = Brain(root)
    reference.sync()
    assert store.export() == reference.store.export()  # no placeholder left either
    brain.close()


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_kind_of_link_across_parts_ends_as_one_batch_has_it(
    spec: LayoutSpec, tmp_path: Path, make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/unit/test_ingest_parts_layouts.py's workspace (links forwards and backwards
    across parts of 2 notes, to anchors, blocks, daily notes, tools, files, a binary `.md`
    the paths took for a note), staged into Neo4j: the embedded store's one batch."""
    layout_workspace(tmp_path / "ws", spec)
    reference = Brain(tmp_path / "ws", MemoryStore())
    reference.sync()
    written = in_parts(monkeypatch, 2)
    store = make_store()
    brain = Brain(tmp_path / "ws", store)
    brain.sync()
    assert len(written) >= 4
    assert store.rebuilds == 1
    assert store.export() == reference.store.export()
    assert sorted(map(str, brain.problems())) == sorted(map(str, reference.problems()))
    brain.close()


def test_an_empty_workspace_switches_nothing_in(tmp_path: Path, make_store: StoreMaker) -> None:
    """No note, no agent: nothing is staged, so nothing is switched in, at every start."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    for _ in range(2):
        store = make_store()
        brain = Brain(root, store)
        brain.sync()
        assert store.rebuilds == 0
        assert store.transactions == 0
        brain.close()
