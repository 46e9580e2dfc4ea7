"""The cache of attrs' and cattrs' generated code (brain/lsp/codecache.py): reused when it is
this user's alone and intact, ignored otherwise, never answering one source with another's code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain.lsp.codecache import CodeCache, cache_file

SOURCE = "def double(x):\n    return 2 * x\n"


def run(code: object) -> object:
    namespace: dict[str, object] = {}
    exec(code, namespace)  # the test's own source
    double = namespace["double"]
    assert callable(double)
    return double(21)


def private_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "code"
    folder.mkdir(mode=0o700)
    return folder


def test_code_compiled_once_is_reused_by_the_next_start(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "c.marshal"
    first = CodeCache(path)
    first.load()
    assert run(first.compile(SOURCE, "<gen double>", "exec")) == 42
    assert first.added == 1
    first.save()
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)

    second = CodeCache(path)
    second.load()
    assert len(second.codes) == 1
    assert run(second.compile(SOURCE, "<gen double>", "exec")) == 42
    assert second.added == 0  # answered from the file
    other = SOURCE.replace("2 * x", "3 * x")
    assert run(second.compile(other, "<gen double>", "exec")) == 63  # same name, new source
    assert second.added == 1


@pytest.mark.parametrize("loosen", ["file", "folder"])
def test_a_cache_others_may_write_is_not_read(tmp_path: Path, loosen: str) -> None:
    folder = private_folder(tmp_path)
    path = folder / "c.marshal"
    writer = CodeCache(path)
    writer.compile(SOURCE, "<gen double>", "exec")
    writer.save()
    os.chmod(path if loosen == "file" else folder, 0o666 if loosen == "file" else 0o777)
    reader = CodeCache(path)
    reader.load()
    assert reader.codes == {}
    assert run(reader.compile(SOURCE, "<gen double>", "exec")) == 42


def test_a_damaged_cache_is_ignored(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "c.marshal"
    path.write_bytes(b"\x00not marshal at all")
    path.chmod(0o600)
    cache = CodeCache(path)
    cache.load()
    assert cache.codes == {}
    assert run(cache.compile(SOURCE, "<gen double>", "exec")) == 42


def test_the_file_is_named_by_python_and_package_versions(tmp_path: Path) -> None:
    name = cache_file(tmp_path).name
    assert name.startswith("lsprotocol-")
    assert name.endswith(".marshal")
    assert cache_file(tmp_path) == cache_file(tmp_path)


def test_the_server_writes_it_and_no_cache_does_not(tmp_path: Path) -> None:
    """`brain lsp` whose client closes stdin at once: the cache is written (or not, with --no-cache)."""
    for flags, folder in (([], tmp_path / "on"), (["--no-cache"], tmp_path / "off")):
        env = {**os.environ, "BRAIN_CACHE_DIR": str(folder)}
        subprocess.run(
            [sys.executable, "-m", "brain", "lsp", *flags], input=b"", env=env, check=True, timeout=120
        )
        written = list((folder / "code").glob("lsprotocol-*.marshal"))
        assert len(written) == (0 if flags else 1)
