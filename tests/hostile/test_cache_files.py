"""Brain's cache files are read back as trusted: a snapshot becomes the graph, the language
server's code cache is code it runs, the vector cache ranks results. So (brain/snapshot/cachepaths.py)
a folder or file someone else owns, or others may write, is not used, with one warning naming
it and the fix; and a snapshot's checksum is verified before a byte of its payload is decoded
(a crafted payload used to be decoded whole, at up to 70 times its size, before the mismatch).
"""

from __future__ import annotations

import json
import logging
import marshal
import os
import struct
from pathlib import Path

import pytest

from brain.lsp.startup.codecache import CodeCache
from brain.search.embedding import VectorCache
from brain.service.brain import Brain
from brain.snapshot.cachepaths import snapshot_path, untrusted
from brain.snapshot.image import MAGIC
from tests.contract.helpers import note
from tests.hostile.budget import MIB, python_case

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "snapshots"
    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(folder))
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    (root / "memory" / "shared" / "a.md").write_text(note("A", "See [[b]]."), encoding="utf-8")
    (root / "memory" / "shared" / "b.md").write_text(note("B", "Back to [[a]]."), encoding="utf-8")
    return root


def warm(root: Path) -> Brain:
    brain = Brain(root, cache=True)
    brain.sync()
    return brain


def crafted(path: Path, empty_arrays: int) -> None:
    """The snapshot at `path` with a payload that decodes to `empty_arrays` lists (64 bytes of
    memory for each byte of file) and a checksum that cannot match."""
    data = path.read_bytes()
    (size,) = struct.unpack_from(">I", data, len(MAGIC))
    start = len(MAGIC) + 4
    header = json.loads(data[start : start + size])
    payload = b"\xdd" + struct.pack(">I", empty_arrays) + b"\x90" * empty_arrays
    header.update(payload=len(payload), keywords=0, sha256="0" * 64)
    head = json.dumps(header).encode()
    path.write_bytes(MAGIC + struct.pack(">I", len(head)) + head + payload)


def test_a_crafted_snapshot_is_refused_before_it_is_decoded(snapshots: Path, workspace: Path) -> None:
    first = warm(workspace)
    assert first.stats().memories == 2
    first.close()
    path = snapshot_path(workspace)
    crafted(path, 24 * MIB)  # 24 MB of file; decoded, 1.5 GB of lists
    code = (
        "from pathlib import Path\nfrom brain.snapshot.image import SnapshotRefused, read\n"
        f"try:\n    read(Path({str(path)!r}), Path({str(workspace)!r}))\n"
        "except SnapshotRefused as exc:\n    print(exc)\n"
    )
    outcome = python_case(code, seconds=60, memory=1024 * MIB, cwd=REPO)
    assert outcome.returncode == 0, outcome.stderr
    assert "checksum mismatch" in outcome.stdout
    assert outcome.peak_rss_mib < 300, f"decoded before it was verified: {outcome.summary()}"


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_snapshot_others_may_write_is_not_used(
    snapshots: Path, workspace: Path, what: str, caplog: pytest.LogCaptureFixture
) -> None:
    warm(workspace).close()
    path = snapshot_path(workspace)
    target = snapshots if what == "folder" else path
    os.chmod(target, 0o777 if what == "folder" else 0o666)
    before = path.read_bytes()
    with caplog.at_level(logging.WARNING):
        brain = warm(workspace)
        brain.close()
    assert brain.snapshots is not None
    assert not brain.snapshots.loaded
    warning = "\n".join(r.getMessage() for r in caplog.records)
    assert f"not using {target} (may be written by others" in warning
    assert f"chmod go-w {target}" in warning
    if what == "folder":
        assert path.read_bytes() == before, "nothing is written into a folder others may write"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_snapshot_folder_of_another_user_is_not_used(
    snapshots: Path, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    warm(workspace).close()
    os.chown(snapshots, 65534, 65534)
    with caplog.at_level(logging.WARNING):
        brain = warm(workspace)
        brain.close()
    assert brain.snapshots is not None
    assert not brain.snapshots.loaded
    assert "belongs to user id 65534" in caplog.text


def test_the_code_cache_is_not_run_from_a_folder_others_may_write(tmp_path: Path) -> None:
    folder = tmp_path / "code"
    folder.mkdir(mode=0o700)
    path = folder / "lsp-test.marshal"
    code = compile("x = 1", "generated", "exec")
    path.write_bytes(marshal.dumps({("generated", "x = 1", 0): code}))
    private = CodeCache(path)
    private.load()
    assert len(private.table) == 1
    os.chmod(folder, 0o777)
    shared = CodeCache(path)
    shared.load()
    assert shared.table == {}, "code from a folder anyone may write is never run"


def test_the_vector_cache_is_kept_in_memory_beside_a_folder_others_may_write(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    cache = VectorCache("test-model", folder)
    try:
        assert cache.path is None
        assert not (folder / "vectors-test-model.sqlite").exists()
    finally:
        cache.close()
    os.chmod(folder, 0o700)
    cache = VectorCache("test-model", folder)
    try:
        assert cache.path == folder / "vectors-test-model.sqlite"
    finally:
        cache.close()


def test_group_writable_is_fine_when_the_group_is_the_users_own(tmp_path: Path) -> None:
    """A umask of 002 with a group per user (many distributions) makes cache folders 775."""
    folder = tmp_path / "cache"
    folder.mkdir()
    os.chmod(folder, 0o775)
    assert untrusted(folder) is None
    if os.geteuid() == 0:  # only root may give it to another group
        os.chown(folder, -1, os.getgid() + 1)
        assert untrusted(folder) == "may be written by others (mode 775)"
