"""A workspace's embedded store holds no body it can read back from the note's file.

Every way a body leaves the store gives the text the note's parse gave; an editor's unsaved
buffer is held (it is not on disk); a file changed since its read gives its new body; a file
swapped for a link, a FIFO or nothing gives no body at all, and never blocks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from brain.ingest.memory_files import build_memory
from brain.ingest.note_bodies import read_regular
from brain.model import MemoryNode
from brain.parse.note import body_of
from brain.service.brain import Brain
from brain.store.base import MemoryFilter, SearchWhere
from brain.store.memory.bodies import ON_DISK
from brain.store.memory.store import MemoryStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"


@pytest.mark.parametrize("raw", [
    b"---\ndescription: d\ntype: user\n---\n# Title\n\nText [[x]].\n",
    b"\xef\xbb\xbf---\r\ndescription: bom and crlf\r\n---\r\nbody\r\nline\r\n",
    b"no frontmatter at all\n",
    b"---\ndescription: only frontmatter\n---\n",
    b"---\ndescription: never closed\nbody?\n",
    b"---\n---\n\n\nafter blank lines\n",
    b"bad \xff utf-8 \x00 and a nul\n",
    b"",
])
def test_body_of_is_the_body_a_parse_gives(raw: bytes) -> None:
    parsed = build_memory("memory/shared/n.md", "shared", "n", raw, 0.0)
    assert body_of(raw, "memory/shared/n.md") == parsed.memory.body


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    root = tmp_path / "ws"
    for sub in ("memory", "agents", "workflows", "chats", "work-items"):
        shutil.copytree(EXAMPLE / sub, root / sub)
    return root


def memories(store: MemoryStore) -> dict[str, MemoryNode]:
    return {m.id: m for m in store.list_memories(MemoryFilter())}


def parsed_from_disk(root: Path, memory: MemoryNode) -> str:
    raw = (root / memory.path).read_bytes()
    return build_memory(memory.path, memory.scope, memory.name, raw, 0.0).memory.body


def test_bodies_of_a_synced_workspace_are_read_back_from_the_files(workspace: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    found = memories(store)
    assert len(found) >= 5
    assert any(m.body for m in found.values())
    for node_id, memory in found.items():
        assert memory.body == parsed_from_disk(workspace, memory)
        assert store._bodies.held.get(node_id, ON_DISK) == ON_DISK  # no text held
        assert store.get_nodes([node_id])[node_id] == memory
        assert store.memory_by_path(memory.path) == memory


def test_an_unsaved_buffer_is_held_and_its_file_read_again_once_dropped(workspace: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    memory = next(m for m in memories(store).values() if m.scope == "shared")
    on_disk = (workspace / memory.path).read_text()
    brain.ingester.set_overlay(memory.path, on_disk + "\nUnsaved line.\n")
    held = store.memory_by_path(memory.path)
    assert held is not None
    assert held.body.endswith("Unsaved line.\n")
    assert store._bodies.held[memory.id] not in (ON_DISK, None)  # held compressed
    brain.ingester.set_overlay(memory.path, None)
    back = store.memory_by_path(memory.path)
    assert back is not None
    assert back.body == memory.body
    assert store._bodies.held[memory.id] == ON_DISK


def test_a_file_changed_since_its_read_gives_its_new_body(workspace: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    memory = next(m for m in memories(brain.store).values() if m.body)  # type: ignore[arg-type]
    path = workspace / memory.path
    path.write_text("---\ndescription: rewritten\n---\nThe new text.\n")
    now = brain.store.memory_by_path(memory.path)
    assert now is not None
    assert now.body == "The new text.\n"
    assert now.hash == memory.hash  # the rest is the note as read, until the next sync
    path.unlink()
    gone = brain.store.memory_by_path(memory.path)
    assert gone is not None
    assert gone.body == ""


def test_a_note_swapped_for_a_link_or_a_fifo_gives_no_body(workspace: Path, tmp_path: Path) -> None:
    brain = Brain(workspace)
    brain.sync()
    found = [m for m in memories(brain.store).values() if m.body]  # type: ignore[arg-type]
    secret = tmp_path / "secret.txt"
    secret.write_text("api_key = the-secret\n")
    linked, fifo = found[0], found[1]
    (workspace / linked.path).unlink()
    (workspace / linked.path).symlink_to(secret)
    (workspace / fifo.path).unlink()
    os.mkfifo(workspace / fifo.path)  # opening it to read would block without O_NONBLOCK
    nodes = brain.store.get_nodes([linked.id, fifo.id])
    assert nodes[linked.id].body == ""
    assert nodes[fifo.id].body == ""


def test_a_link_anywhere_on_the_path_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "memory").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "n.md").write_bytes(b"outside\n")
    (root / "memory" / "shared").symlink_to(elsewhere)
    (root / "memory" / "real").mkdir()
    (root / "memory" / "real" / "n.md").write_bytes(b"inside\n")
    assert read_regular(root, "memory/shared/n.md") is None
    assert read_regular(root, "memory/real/n.md") == b"inside\n"
    assert read_regular(root, "memory/real") is None  # a folder
    assert read_regular(root, "memory/real/gone.md") is None
    assert read_regular(root, "memory/real/../real/n.md") is None  # not the note's own path


def test_a_warm_start_holds_no_body_and_reads_them_back(workspace: Path) -> None:
    cold = Brain(workspace, cache=True)
    cold.sync()
    expected = memories(cold.store)  # type: ignore[arg-type]
    cold.close()
    warm = Brain(workspace, cache=True)
    assert warm.open_snapshot()
    store = warm.store
    assert isinstance(store, MemoryStore)
    assert set(store._bodies.held.values()) <= {ON_DISK}
    assert memories(store) == expected
    warm.close()


@pytest.mark.parametrize(("new_text", "body_listed"), [
    ("The new text.\n", True),        # the body itself changed
    (None, False),                    # nothing changed: no change at all, or no body field
])
def test_a_change_read_back_from_disk_still_names_the_body(
    workspace: Path, new_text: str | None, body_listed: bool
) -> None:
    # The old body is read back from the file, which already holds the new one when the
    # change is worked out: the change must still name the body, or readers keep a stale one.
    brain = Brain(workspace)
    brain.sync()
    memory = next(m for m in memories(brain.store).values() if m.body)  # type: ignore[arg-type]
    changes: list[str] = []
    brain.subscribe(lambda c: changes.extend(c.fields) if c.id == memory.id else None)
    path = workspace / memory.path
    if new_text is not None:
        head = path.read_bytes().split(b"\n---\n", 1)[0]
        path.write_bytes(head + b"\n---\n" + new_text.encode())
    brain.sync()
    assert ("body" in changes) is body_listed
    assert (brain.store.memory_by_path(memory.path) or memory).body == (new_text or memory.body)


@pytest.mark.parametrize("workers", ["1", "2"], ids=["serial", "helpers"])
def test_a_first_sync_gets_no_body_from_its_parsers(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    # The store reads every body back from its file, so the parsers send none on (400 MB at
    # 100,000 notes): the notes handed to the store are bare, its answers are not, and its
    # keyword index has the words of the bodies, counted before they were dropped.
    from brain.ingest import parse_helpers
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", workers)
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    (workspace / "memory" / "shared" / "zebra.md").write_text(
        "---\ndescription: a note\n---\nOnly this body says quixotically.\n")
    brain = Brain(workspace)
    handed: list[MemoryNode] = []
    brain.ingester.listeners.append(lambda batch, _before: handed.extend(batch.memories))
    brain.sync()
    assert handed
    assert all(m.body == "" for m in handed)
    stored = memories(brain.store)  # type: ignore[arg-type]
    assert stored["memory:shared/zebra"].body == "Only this body says quixotically.\n"
    assert all(m.body == parsed_from_disk(workspace, m) for m in stored.values())
    hits = brain.store.keyword_search(["quixotically"], SearchWhere(), 5)  # type: ignore[attr-defined]
    assert [hit[0] for hit in hits] == ["memory:shared/zebra"]
