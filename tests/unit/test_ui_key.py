"""The web UI's session key file (brain/api/http/ui/key.py) is trusted only as brain made it.

Real files in tmp_path: a sound key is read back unchanged; a symlink (even to a sound key),
a FIFO (never opened for long: O_NONBLOCK), a folder, a key readable by others or of the
wrong size is refused with one log line naming the file and replaced by a new 0600 key; a
`.brain/` that cannot be written gives None (the server keeps a key of its process).

Planted bug, seen to fail: the checks on the open descriptor removed (the symlink's target
and the 0644 key were taken as they were).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from brain.api.http.ui.key import KEY_BYTES, key_path, workspace_key


def _sound(path: Path) -> None:
    found = path.lstat()
    assert stat.S_ISREG(found.st_mode)
    assert stat.S_IMODE(found.st_mode) == 0o600
    assert found.st_size == KEY_BYTES


def test_a_key_is_made_once_and_read_back(tmp_path: Path) -> None:
    first = workspace_key(tmp_path)
    assert first is not None
    assert len(first) == KEY_BYTES
    _sound(key_path(tmp_path))
    assert workspace_key(tmp_path) == first
    # No temporary file is left beside it.
    assert sorted(p.name for p in key_path(tmp_path).parent.iterdir()) == ["ui-session.key"]


def _symlink(path: Path, tmp: Path) -> None:
    target = tmp / "elsewhere.key"
    target.write_bytes(b"k" * KEY_BYTES)
    target.chmod(0o600)
    path.symlink_to(target)


def _key(size: int, mode: int, owner: int | None = None) -> object:
    def make(path: Path, tmp: Path) -> None:
        path.write_bytes(b"k" * size)
        path.chmod(mode)
        if owner is not None:
            os.chown(path, owner, -1)
    return make


UNSOUND = [
    pytest.param(_symlink, "not opened as a plain file", id="symlink"),
    pytest.param(lambda path, tmp: os.mkfifo(path, 0o600), "not a regular file", id="fifo"),
    pytest.param(lambda path, tmp: path.mkdir(), "not a regular file", id="folder"),
    pytest.param(_key(KEY_BYTES, 0o644), "readable or writable by others", id="group-readable"),
    pytest.param(_key(8, 0o600), "8 bytes, not 32", id="short"),
]
if os.geteuid() == 0:  # only root can give a file to someone else
    UNSOUND.append(pytest.param(_key(KEY_BYTES, 0o600, owner=4242), "owned by uid 4242", id="other-owner"))


@pytest.mark.parametrize(("unsound", "why"), UNSOUND)
def test_an_unsound_key_file_is_refused_and_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, unsound: object, why: str,
) -> None:
    root = tmp_path / "ws"
    path = key_path(root)
    path.parent.mkdir(parents=True)
    unsound(path, tmp_path)  # type: ignore[operator]
    with caplog.at_level(logging.WARNING, logger="brain.api.http.ui.key"):
        key = workspace_key(root)
    if path.is_dir() and not path.is_symlink():  # a folder in the way: not removed, no key kept
        assert key is None
        assert "cannot keep the web UI's session key" in caplog.text
        return
    assert key is not None
    assert key != b"k" * KEY_BYTES
    _sound(path)
    assert str(path) in caplog.text
    assert why in caplog.text
    if (tmp_path / "elsewhere.key").exists():  # the symlink's target is left as it was
        assert (tmp_path / "elsewhere.key").read_bytes() == b"k" * KEY_BYTES


def test_a_workspace_that_cannot_keep_a_key_gives_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    (tmp_path / ".brain").write_text("not a folder")  # no key can be kept under it
    with caplog.at_level(logging.WARNING, logger="brain.api.http.ui.key"):
        assert workspace_key(tmp_path) is None
    assert "using a key of this process" in caplog.text
    assert (tmp_path / ".brain").read_text() == "not a folder"
