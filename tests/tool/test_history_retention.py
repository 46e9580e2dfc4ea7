"""History retention (brain/tool/history/retention.py): bounded by count and age per note, safe to run."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import pytest

from brain.config.messages import ConfigError
from brain.config.operator import HistoryConfig, SettingsError, load_settings
from brain.config.workspace import parse_config
from brain.service.brain import Brain
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import History, HistoryRecord
from brain.tool.history.retention import kept_digests
from brain.tool.service import MemoryService

DAY = 86_400.0
NOW = 1_800_000_000.0


def record(i: int, path: str, before: str | None, after: str | None, days_ago: float = 1000,
           new_path: str | None = None) -> HistoryRecord:
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(NOW - days_ago * DAY))
    return HistoryRecord(id=i, at=at, actor="admin", agent=None, via="python", command="put",
                         scope="shared", path=path, before=before, after=after, new_path=new_path)


def test_the_newest_versions_of_each_note_are_kept() -> None:
    records = [record(i, "memory/shared/a.md", f"a{i}", f"a{i + 1}") for i in range(5)]
    records += [record(9, "memory/shared/b.md", None, "b1")]
    keep = kept_digests(records, HistoryConfig(keep_versions=2, keep_days=0), NOW)
    assert keep == {"a3", "a4", "a5", "b1"}


def test_young_versions_are_kept_whatever_their_count() -> None:
    records = [record(i, "memory/shared/a.md", f"a{i}", f"a{i + 1}", days_ago=10 - i) for i in range(5)]
    keep = kept_digests(records, HistoryConfig(keep_versions=1, keep_days=8), NOW)
    assert keep == {"a2", "a3", "a4", "a5"}  # written 8, 7 and 6 days ago, and the newest


def test_a_rename_counts_for_both_paths() -> None:
    records = [
        record(1, "memory/shared/old.md", None, "v1"),
        record(2, "memory/shared/old.md", "v1", "v1", new_path="memory/shared/new.md"),
        record(3, "memory/shared/old.md", None, "other"),
        record(4, "memory/shared/old.md", "other", "other2"),
    ]
    keep = kept_digests(records, HistoryConfig(keep_versions=1, keep_days=0), NOW)
    assert keep == {"v1", "other", "other2"}  # new.md's newest entry is the rename


def test_the_policy_is_the_operators_and_checked(tmp_path: Path) -> None:
    env = {"BRAIN_HISTORY_KEEP_VERSIONS": "3", "BRAIN_HISTORY_KEEP_DAYS": "0"}
    assert load_settings(env).history == HistoryConfig(keep_versions=3, keep_days=0)
    problem = r"BRAIN_HISTORY_KEEP_VERSIONS: \[history\] keep_versions must be from 1"
    with pytest.raises(SettingsError, match=problem):
        load_settings({"BRAIN_HISTORY_KEEP_VERSIONS": "0"})
    # A workspace cannot shrink (or grow) the history's budget: brain.toml [history] is refused.
    with pytest.raises(ConfigError, match=r"\[history\] keep_versions is an operator setting"):
        parse_config(b"[history]\nkeep_versions = 1\n", Path("brain.toml"))


def make_service(workspace: Path, tmp_path: Path, env: dict[str, str]) -> MemoryService:
    brain = Brain(workspace, settings=load_settings(env))
    brain.sync()
    return MemoryService(workspace, brain, history=History(tmp_path / "h" / "history.jsonl"))


def test_writes_prune_what_no_kept_entry_needs(workspace: Path, tmp_path: Path) -> None:
    service = make_service(
        workspace, tmp_path, {"BRAIN_HISTORY_KEEP_VERSIONS": "2", "BRAIN_HISTORY_KEEP_DAYS": "0"}
    )
    retention = service.retention()
    assert retention is not None
    retention.grace = 0  # every blob here is seconds old
    tool = MemoryTool(service)
    assert tool.create("writer", "/memories/log.md", "v0\n").ok
    for i in range(1, 6):
        assert tool.str_replace("writer", "/memories/log.md", f"v{i - 1}", f"v{i}").ok
    report = service.prune_history()
    assert report is not None
    records = [r for r in service.history.all() if r.path == "memory/writer/log.md"]
    kept = [(service.blobs.text(r.before), service.blobs.text(r.after)) for r in records]
    assert kept == [
        (None, None), (None, None), (None, None),  # older than the newest two
        (None, "v3\n"),  # v3 stays: a kept entry needs it
        ("v3\n", "v4\n"), ("v4\n", "v5\n"),
    ]
    assert report.removed == 3  # v0, v1, v2
    assert service.blobs.text(records[-1].after) == "v5\n"
    # The automatic prune after a write is due again only after its interval.
    assert not retention.due()


def test_young_blobs_survive_a_prune_so_a_write_in_flight_keeps_its_blob(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs", max_bytes=100)
    digest = store.put(b"kept before its entry was appended")
    assert digest is not None
    report = store.prune(keep=set(), grace_seconds=3600)
    assert (report.removed, report.kept) == (0, 1)
    assert store.get(digest) is not None
    path = tmp_path / "blobs" / digest[:2] / digest
    os.utime(path, (time.time() - 7200, time.time() - 7200))
    assert store.prune(keep=set(), grace_seconds=3600).removed == 1
    assert store.get(digest) is None
    assert not (tmp_path / "blobs" / digest[:2]).exists()  # empty fan-out folders go too


def test_a_reused_blob_is_never_deleted_under_its_writer(tmp_path: Path) -> None:
    """A writer reusing an old blob (the same version again) races a prune that wants it gone:
    after `put` returns, the blob must be there (the lock and the refreshed time see to it)."""
    store = BlobStore(tmp_path / "blobs", max_bytes=100)
    data = b"the same version, written again"
    digest = store.put(data)
    assert digest is not None
    path = tmp_path / "blobs" / digest[:2] / digest
    stop = threading.Event()
    pruned = 0

    def prune_forever() -> None:
        nonlocal pruned
        while not stop.is_set():
            pruned += store.prune(keep=set(), grace_seconds=5).removed

    pruner = threading.Thread(target=prune_forever)
    pruner.start()
    try:
        for _ in range(300):
            old = time.time() - 60
            with contextlib.suppress(FileNotFoundError):
                os.utime(path, (old, old))  # the blob looks abandoned to the pruner
            assert store.put(data) == digest
            assert store.get(digest) == data
    finally:
        stop.set()
        pruner.join()
    assert pruned > 0  # the pruner did delete the abandoned-looking blob in between


def test_invalid_operator_settings_pause_retention(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAIN_HISTORY_KEEP_VERSIONS", "many")
    brain = Brain(workspace)  # no settings given: the environment's, read on first use
    brain.sync()
    service = MemoryService(workspace, brain, history=History(tmp_path / "h" / "history.jsonl"))
    tool = MemoryTool(service)
    assert tool.create("writer", "/memories/a.md", "one\n").ok
    assert service.retention() is None
    assert service.prune_history() is None
    assert service.blobs.text(service.history.all()[-1].after) == "one\n"
