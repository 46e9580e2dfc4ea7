"""The history of outside changes is written a watcher batch at a time: one fsync a batch.

A burst of outside edits (16 a second in bench_replicas) paid two fsyncs a file under the
brain's lock: the version's blob and the record. Now a batch's records are appended in one
write and fsynced once (History.append_many), and its blobs are written unsynced; the first
versions job (baseline.py) fsyncs its list once, not each note's blob. What may not change:
a crash never leaves anything half-written that reads back as valid. A child process
appending big batches is killed with SIGKILL mid-write, many times, and each time every
record read back is one the child wrote whole, the next append starts on a fresh line, and
every blob reads back as its exact bytes or as not kept.

Planted bugs, each seen to fail: the recorder appending each change on its own (`fsyncs`
counts 20, not 1); `BlobStore._write` reusing a blob of another size (a blob a crash cut
short is never written again: `get` stays None); `append_many` fsyncing nothing (the
fsync count is 0).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import multiprocessing.synchronize
import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brain.ingest.memory_files import content_hash
from brain.service.brain import Brain
from brain.tool import attach_memory_service
from brain.tool.history import baseline, blobs, log
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW

KILLS = 30
BATCH = 40  # records a batch: ~1 MB a write, so a kill can land inside one


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the real fsyncs of the history's modules (each still reaches the disk)."""
    calls: list[int] = []
    real: Callable[[int], None] = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    for module in (log, blobs, baseline):
        monkeypatch.setattr(module.os, "fsync", fsync)
    return calls


def test_a_batch_of_outside_changes_is_one_fsync_and_every_change_is_recorded(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    brain = Brain(workspace)
    brain.sync()
    service = MemoryService(workspace, brain, history=History(tmp_path / "h.jsonl"), clock=lambda: NOW)
    attach_memory_service(brain, service)
    rels = [f"memory/shared/burst-{i:02d}.md" for i in range(20)]
    for i, rel in enumerate(rels):
        (workspace / rel).write_text(f"---\ndescription: burst {i}\n---\n\nBody {i}.\n", encoding="utf-8")
    fsyncs = _counting(monkeypatch)
    brain.sync(rels)
    assert len(fsyncs) == 1  # the records of the 20 files, fsynced once
    records = service.history.all()
    assert sorted(r.path for r in records) == rels
    assert {(r.origin, r.command, r.before) for r in records} == {("external", "create", None)}
    ids = [r.id for r in records]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)  # each its own byte offset
    assert [r.id for r in History(tmp_path / "h.jsonl").all()] == ids  # as a reader finds them
    for rel, record in zip(sorted(rels), sorted(records, key=lambda r: r.path), strict=True):
        data = (workspace / rel).read_bytes()
        assert record.after == content_hash(data)
        assert service.blobs.get(record.after) == data  # kept, though unsynced


def _record(batch: int, index: int) -> dict[str, Any]:
    """A record whose path names a digest of the rest: one read back whole must match it."""
    after = hashlib.sha256(f"{batch}/{index}".encode()).hexdigest()
    filler = "x" * (20_000 + (batch * 31 + index * 7) % 5_000)
    return {"at": "2026-12-01T09:00:00.000000Z", "actor": "external", "agent": None, "via": "watch",
            "command": "put", "scope": filler, "path": f"memory/shared/{batch}-{index}-{after[:12]}.md",
            "before": None, "after": after, "origin": "external"}


def _appender(history: str, blob_dir: str, start: int, ready: multiprocessing.synchronize.Event) -> None:
    store = BlobStore(Path(blob_dir), 1 << 20)
    journal = History(Path(history))
    batch = start
    while True:
        batch += 1
        store.put(os.urandom(64) * (1 + batch % 3000), sync=False)
        journal.append_many([_record(batch, i) for i in range(BATCH)])
        ready.set()


def test_a_batch_killed_mid_write_leaves_no_half_record_and_no_wrong_blob(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    blob_dir = tmp_path / "blobs"
    fork = multiprocessing.get_context("fork")
    rng = random.Random(43)
    sizes: set[int] = set()
    for kill in range(KILLS):
        ready = fork.Event()
        child = fork.Process(target=_appender, args=(str(history), str(blob_dir), kill * 100_000, ready))
        child.start()
        assert ready.wait(60)
        time.sleep(rng.uniform(0.0, 0.03))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
        sizes.add(history.stat().st_size)
    raw = history.read_bytes()
    torn = [line for line in raw.split(b"\n") if line and not line.endswith(b"}")]
    print(f"kill test: {KILLS} kills, {len(torn)} torn lines left in the file")
    records = History(history).all()
    assert records
    for record in records:  # every record read back is one the child wrote whole
        batch, index, short = record.path.removeprefix("memory/shared/").removesuffix(".md").split("-")
        assert record == log.HistoryRecord(id=record.id, **_record(int(batch), int(index))), record.path
        assert short == (record.after or "")[:12]
    # The next append starts on a line of its own, and reads back.
    [last] = History(history).append_many([_record(10**9, 0)])
    assert History(history).all()[-1] == last
    # Every blob left reads back as its exact bytes, or not at all (a torn one is not shown).
    for path in blob_dir.glob("*/*"):
        if not path.name.startswith("."):
            data = BlobStore(blob_dir, 1 << 20).get(path.name)
            assert data is None or hashlib.sha256(data).hexdigest() == path.name
    assert len(sizes) > KILLS // 3  # the kills landed at different points


def test_a_blob_a_crash_cut_short_is_written_again(tmp_path: Path) -> None:
    """A power cut before an unsynced blob reached the disk leaves it short (or empty): it
    never reads back, and the next `put` of the same bytes writes it whole again."""
    store = BlobStore(tmp_path / "blobs", 1 << 20)
    data = b"the version an outside edit left\n" * 100
    digest = store.put(data, sync=False)
    assert digest is not None
    assert store.get(digest) == data
    path = tmp_path / "blobs" / digest[:2] / digest
    path.write_bytes(data[:100])  # what a power cut may leave
    assert store.get(digest) is None
    assert store.put(data) == digest
    assert store.get(digest) == data


def test_the_first_versions_are_fsynced_once_not_once_a_note(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    for i in range(30):
        old = workspace / f"memory/shared/old-{i:02d}.md"
        old.write_text(f"# Old {i}\n\nFrom before.\n", encoding="utf-8")
    brain = Brain(workspace)
    brain.sync()
    service = MemoryService(workspace, brain, history=History(tmp_path / "h.jsonl"), clock=lambda: NOW)
    now = {rel: state.hash for rel, state in brain.ingester.files.items() if state.hash}
    fsyncs = _counting(monkeypatch)
    kept = service.baselines.keep(service, now)
    assert kept >= 30
    assert len(fsyncs) == 1
    found = service.baselines.load()
    assert len(found) == kept
    for rel, digest in found.items():
        assert service.blobs.get(digest) == (workspace / rel).read_bytes()
    assert all(json.loads(line)["p"] in found for line in service.baselines.path.read_bytes().splitlines())
