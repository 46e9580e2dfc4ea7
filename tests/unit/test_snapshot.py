"""The startup snapshot: a warm start is the same graph as a full ingest, or it is not used."""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import struct
import tempfile
import time
from array import array
from collections.abc import Callable
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest

from bench.workload import generate
from brain.cli.main import build_parser, main
from brain.service.brain import Brain
from brain.snapshot.cachepaths import snapshot_path
from brain.snapshot.columns import _Lookup
from brain.snapshot.image import MAGIC
from brain.snapshot.keeper import SnapshotKeeper
from brain.store.base import GraphExport, SearchWhere
from tests.contract.helpers import answers, note, reference

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
OLD = 1_700_000_000  # an mtime far in the past: not "racily clean"


@pytest.fixture(autouse=True)
def snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "snapshots"
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(folder))
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


def make_workspace(root: Path) -> Path:
    generate(root, notes=240, agents=4, seed=7)
    shutil.copytree(EXAMPLE / "memory", root / "memory", dirs_exist_ok=True)
    for sub in ("agents", "workflows", "chats", "work-items"):
        shutil.copytree(EXAMPLE / sub, root / sub, dirs_exist_ok=True)
    (root / "memory" / "shared" / "bad.md").write_bytes(b"---\ndescription: [unclosed\n---\n[[nowhere]]\n")
    for path in root.rglob("*"):
        os.utime(path, ns=(OLD * 10**9, OLD * 10**9))
    return root


@functools.cache
def pristine() -> tuple[GraphExport, list[tuple[str, float]]]:
    """The graph and the search of a full ingest of the `workspace` fixture's files, made once
    a worker for the broken-snapshot cases: each breaks only its snapshot and leaves these files
    as they are, and the graph does not depend on the folder's path (two copies at different
    paths export and search equal). Each case did this full ingest of the same files again."""
    with tempfile.TemporaryDirectory(prefix="brain-pristine-") as folder:
        brain = reference(make_workspace(Path(folder) / "ws"))
        try:
            return brain.store.export(), search(brain)
        finally:
            brain.close()


def keeper(brain: Brain) -> SnapshotKeeper:
    assert brain.snapshots is not None
    return brain.snapshots


def started(root: Path) -> Brain:
    brain = Brain(root, cache=True)
    brain.sync()
    return brain


def cold_then_warm(root: Path) -> Brain:
    started(root).close()
    return started(root)


def search(brain: Brain) -> list[tuple[str, float]]:
    return brain.store.keyword_search(["release", "retry"], SearchWhere(), 20)  # type: ignore[attr-defined]


def test_warm_start_is_the_graph_problems_and_search_of_a_full_ingest(workspace: Path) -> None:
    first = started(workspace)
    assert not keeper(first).loaded
    first.close()
    assert snapshot_path(workspace).exists()

    warm = Brain(workspace, cache=True)
    result = warm.sync()
    expected = reference(workspace)
    assert keeper(warm).loaded, keeper(warm).status
    assert result.read == 0  # nothing changed: the rescan only stats
    assert warm.store.export() == expected.store.export()
    assert warm.problems() == expected.problems()
    assert answers(warm.store) == answers(expected.store)
    assert search(warm) == search(expected) != []


def test_a_file_changed_while_brain_was_down_is_read(workspace: Path) -> None:
    started(workspace).close()
    changed = workspace / "memory" / "shared" / "bad.md"
    changed.write_text(note("fixed now", "[[also-nowhere]]"))
    os.utime(changed, ns=(OLD * 10**9, (OLD + 5) * 10**9))
    added = workspace / "memory" / "shared" / "brand-new.md"
    added.write_text(note("new while down", "about release retry retry retry"))
    os.utime(added, ns=(OLD * 10**9, OLD * 10**9))
    gone = next((workspace / "memory").rglob("*.md"))
    gone.unlink()

    warm = started(workspace)
    assert keeper(warm).loaded
    expected = reference(workspace)
    assert warm.store.export() == expected.store.export()
    assert warm.problems() == expected.problems()
    assert search(warm) == search(expected)
    assert "memory:shared/brand-new" in dict(search(warm))


def test_a_same_size_rewrite_in_the_same_instant_is_still_read(workspace: Path) -> None:
    """A file system with coarse timestamps: the rewrite keeps size and mtime. A file modified
    seconds before the snapshot was taken is not trusted by its mtime (as git does)."""
    target = workspace / "memory" / "shared" / "racy.md"
    target.write_text(note("racy", "[[one]]"))
    soon = time.time_ns() + 3600 * 10**9  # "just now" for the snapshot, however slow the ingest
    os.utime(target, ns=(soon, soon))
    started(workspace).close()
    target.write_text(note("racy", "[[two]]"))  # same size
    os.utime(target, ns=(soon, soon))

    warm = started(workspace)
    assert keeper(warm).loaded
    assert warm.store.export() == reference(workspace).store.export()


def rewrite_header(change: Callable[[dict[str, object]], None]) -> Callable[[bytes], bytes]:
    def mutate(data: bytes) -> bytes:
        (size,) = struct.unpack_from(">I", data, len(MAGIC))
        start = len(MAGIC) + 4
        header = json.loads(data[start : start + size])
        change(header)
        head = json.dumps(header).encode()
        return MAGIC + struct.pack(">I", len(head)) + head + data[start + size :]

    return mutate


def forged_payload(data: bytes) -> bytes:
    """A well-formed file with a matching checksum whose payload is not a graph."""
    import hashlib

    payload = msgpack.packb([["not", "a"], {"graph": 1}])
    (size,) = struct.unpack_from(">I", data, len(MAGIC))
    start = len(MAGIC) + 4
    header = json.loads(data[start : start + size])
    header.update(payload=len(payload), keywords=0, sha256=hashlib.sha256(payload).hexdigest())
    head = json.dumps(header).encode()
    return MAGIC + struct.pack(">I", len(head)) + head + payload


def flip(offset: int) -> Callable[[bytes], bytes]:
    def mutate(data: bytes) -> bytes:
        at = offset if offset >= 0 else len(data) + offset
        return data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :]

    return mutate


BROKEN: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda data: data[: len(data) - 100], "truncated"),
    "cut in the header": (lambda data: data[: len(MAGIC) + 10], "corrupt"),
    "empty": (lambda data: b"", "corrupt"),
    "not a snapshot": (lambda data: b"PK\x03\x04" + data[4:], "corrupt"),
    "a flipped byte in the payload": (flip(-5000), "checksum"),
    "a flipped byte in the keyword index": (flip(-10), "checksum"),
    "garbage header": (lambda data: data[: len(MAGIC) + 4] + b"{" * 50 + data[len(MAGIC) + 54 :], "corrupt"),
    "older brain": (rewrite_header(lambda h: h.update(brain="0.0.1")), "stale: brain version"),
    "other format": (rewrite_header(lambda h: h.update(format=999)), "stale: snapshot format"),
    "other code": (rewrite_header(lambda h: h.update(code="0" * 64)), "stale: brain's code"),
    "other workspace": (rewrite_header(lambda h: h.update(root="/elsewhere")), "foreign"),
    "wrong checksum in the header": (rewrite_header(lambda h: h.update(sha256="0" * 64)), "checksum"),
    "a payload that is not a graph": (forged_payload, "cannot decode"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_snapshot_is_ignored_with_a_log_line_and_everything_is_read(
    case: str, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    started(workspace).close()
    path = snapshot_path(workspace)
    mutate, reason = BROKEN[case]
    path.write_bytes(mutate(path.read_bytes()))

    with caplog.at_level(logging.INFO, logger="brain.snapshot.image"):
        warm = started(workspace)
    assert not keeper(warm).loaded
    assert reason in keeper(warm).status
    (line,) = [r for r in caplog.records if reason in r.getMessage() and str(path) in r.getMessage()]
    # Stale is what every upgrade leaves behind, nothing to act on; damage is worth a warning.
    assert line.levelno == (logging.INFO if reason.startswith("stale") else logging.WARNING)
    graph, found = pristine()
    assert warm.store.export() == graph
    assert search(warm) == found
    warm.close()
    assert keeper(started(workspace)).loaded  # rewritten whole


def test_a_server_reads_a_broken_snapshot_once(workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A server asks for the snapshot at its start, then syncs: one read, one log line (the
    same snapshot was read twice, and `brain serve` printed why twice)."""
    started(workspace).close()
    path = snapshot_path(workspace)
    path.write_bytes(b"PK\x03\x04" + path.read_bytes()[4:])
    server = Brain(workspace, cache=True)
    with caplog.at_level(logging.INFO, logger="brain.snapshot.image"):
        assert not server.open_snapshot()
        server.sync()
    said = [r.getMessage() for r in caplog.records]
    (line,) = [m for m in said if m.startswith("brain: ignoring the snapshot")]
    assert str(path) in line
    assert "corrupt" in line
    assert server.store.export() == reference(workspace).store.export()
    server.close()


def test_brain_toml_changed_makes_the_snapshot_stale(workspace: Path) -> None:
    started(workspace).close()
    (workspace / "brain.toml").write_text("# tuned\n")
    warm = started(workspace)
    assert keeper(warm).status.startswith("ignored: stale: brain.toml")


def test_a_snapshot_copied_to_another_workspace_is_foreign(workspace: Path, tmp_path: Path) -> None:
    started(workspace).close()
    other = tmp_path / "other"
    shutil.copytree(workspace, other)
    snapshot_path(other).write_bytes(snapshot_path(workspace).read_bytes())
    warm = started(other)
    assert keeper(warm).status.startswith("ignored: foreign")
    assert warm.store.export() == reference(other).store.export()


def test_a_running_brain_writes_after_quiet_not_after_every_change(workspace: Path) -> None:
    brain = Brain(workspace, cache=True)
    kept = keeper(brain)
    kept.delay = kept.max_delay = 3600.0
    brain.sync()  # the first write is at once
    for _ in range(600):
        if kept.writes:
            break
        time.sleep(0.05)
    assert kept.writes == 1
    for i in range(3):
        (workspace / "memory" / "shared" / f"edit-{i}.md").write_text(note(f"edit {i}"))
        brain.sync()
    assert kept.writes == 1  # an hour of quiet has not passed
    brain.close()  # pending changes are written on close
    assert kept.writes == 2
    warm = started(workspace)
    assert keeper(warm).loaded
    assert warm.store.export() == reference(workspace).store.export()


def test_no_cache_neither_reads_nor_writes(
    workspace: Path, snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(workspace), "--no-cache"]) == 0
    assert not snapshots.exists() or not any(snapshots.iterdir())
    assert main(["ingest", str(workspace)]) == 0
    assert snapshot_path(workspace).exists()
    snapshot_path(workspace).write_bytes(b"garbage")
    assert main(["check", str(workspace), "--no-cache", "--format", "json"]) == 1
    assert snapshot_path(workspace).read_bytes() == b"garbage"  # not even looked at
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv",
    [["ingest", "ws"], ["check", "ws"], ["serve", "ws"], ["lsp"], ["search", "ws", "q"],
     ["maintain", "ws"]],
)
def test_every_command_that_reads_a_workspace_takes_no_cache(argv: list[str]) -> None:
    assert build_parser().parse_args([*argv, "--no-cache"]).no_cache is True
    assert build_parser().parse_args(argv).no_cache is False


def test_state_a_snapshot_cannot_hold_is_refused_not_lost(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An ingester that learned something new (a helper's layout, say) without a line in
    IngestState writes no snapshot at all: the next start reads everything, and says why."""
    brain = Brain(workspace, cache=True)
    brain.ingester.layouts = {"daily": "memory/daily"}  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING, logger="brain.snapshot.image"):
        brain.sync()
        brain.close()
    assert keeper(brain).writes == 0
    assert "IngestState does not hold Ingester.layouts" in caplog.text
    assert not snapshot_path(workspace).exists()


def test_a_server_start_answers_from_the_snapshot_until_its_rescan_ends(workspace: Path) -> None:
    """`open_snapshot` (a server's start) trusts nothing for long: the snapshot's graph is
    served while `checking`, and the next full sync makes it the disk's."""
    started(workspace).close()
    changed = workspace / "memory" / "shared" / "bad.md"
    changed.write_text(note("fixed now", "[[also-nowhere]]"))
    os.utime(changed, ns=(OLD * 10**9, (OLD + 5) * 10**9))

    server = Brain(workspace, cache=True)
    assert server.open_snapshot()
    assert server.ready
    assert server.checking
    assert server.memory_at("memory/shared/bad.md").description != "fixed now"  # type: ignore[union-attr]
    assert not server.open_snapshot()  # once only
    server.sync(["memory/shared/bad.md"])  # a watcher event is not the whole check
    assert server.checking
    result = server.sync()
    assert not server.checking
    assert result.read == 0
    expected = reference(workspace)
    assert server.store.export() == expected.store.export()
    assert server.problems() == expected.problems()


def test_without_a_snapshot_a_server_start_reads_everything(workspace: Path) -> None:
    server = Brain(workspace, cache=True)
    assert not server.open_snapshot()
    assert not server.ready
    assert not server.checking
    assert not Brain(workspace).open_snapshot()  # --no-cache


def test_string_columns_are_checked_against_the_table() -> None:
    look = _Lookup([None, "a", "b"])
    assert look.column(array("I", [2, 1, 0, 2]).tobytes()) == ["b", "a", None, "b"]
    with pytest.raises(IndexError):
        look.column(array("I", [3]).tobytes())  # out of the table: the snapshot is corrupt
    with pytest.raises(ValueError, match="packed indexes"):
        look.column(b"\0\0\0")
    with pytest.raises(ValueError, match="a column of 1 where 2"):
        look.column(array("I", [1]).tobytes(), length=2)
