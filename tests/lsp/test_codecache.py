"""The compiled code of attrs and cattrs kept between starts (brain/lsp/codecache.py)."""

from __future__ import annotations
import __future__

import os
import subprocess
import sys
from pathlib import Path

from brain.lsp.codecache import CodeCache, cache_path

SOURCE = "def __init__(self, x: int) -> None:\n    self.x = x * 2\n"
NAME = "<attrs generated methods test.Thing>"


def run(code: object) -> dict[str, object]:
    space: dict[str, object] = {}
    exec(code, space)
    return space


def test_a_second_start_takes_the_same_code_from_the_file(tmp_path: Path) -> None:
    first = CodeCache(tmp_path / "code.marshal")
    first.load()  # no file yet: nothing, and no error
    compiled = first.compile(SOURCE, NAME, "exec")
    assert first.added == 1
    first.save()
    second = CodeCache(tmp_path / "code.marshal")
    second.load()
    cached = second.compile(SOURCE, NAME, "exec")
    assert (second.hits, second.added) == (1, 0)
    assert cached.co_code == compiled.co_code
    assert cached.co_filename == NAME
    # what the generators' own `compile` would have made (they have the annotations future)
    plain = compile(SOURCE, NAME, "exec", __future__.annotations.compiler_flag, True)
    assert cached.co_consts == plain.co_consts
    made = run(cached)["__init__"]

    class Thing:
        x: int
        __init__ = made  # type: ignore[assignment]

    assert Thing(21).x == 42  # type: ignore[call-arg]
    assert made.__annotations__ == {"x": "int", "return": "None"}  # as under the future import
    written = (tmp_path / "code.marshal").stat()
    second.save()  # nothing new: the file is not rewritten
    now = (tmp_path / "code.marshal").stat()
    assert (now.st_ino, now.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)


def test_other_source_other_name_or_other_calls_are_compiled(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "code.marshal")
    cache.compile(SOURCE, NAME, "exec")
    cache.compile(SOURCE + "\n", NAME, "exec")
    cache.compile(SOURCE, NAME + "2", "exec")
    assert (cache.hits, cache.added) == (0, 3)
    assert cache.compile("1 + 1", "<e>", "eval").co_filename == "<e>"  # not cached: passed through
    assert cache.added == 3


def test_an_unreadable_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    for junk in (b"", b"\x00garbage", b"\xfb" * 10):
        path.write_bytes(junk)
        cache = CodeCache(path)
        cache.load()
        assert cache.table == {}
        cache.compile(SOURCE, NAME, "exec")
        cache.save()
        again = CodeCache(path)
        again.load()
        assert list(again.table) == [(NAME, SOURCE)]


def test_only_what_a_run_used_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    old = CodeCache(path)
    old.compile("x = 1\n", "<old>", "exec")
    old.compile(SOURCE, NAME, "exec")
    old.save()
    new = CodeCache(path)
    new.load()
    new.compile(SOURCE, NAME, "exec")
    new.compile("y = 2\n", "<new>", "exec")
    new.save()
    last = CodeCache(path)
    last.load()
    assert sorted(name for name, _ in last.table) == ["<attrs generated methods test.Thing>", "<new>"]


CHILD = """
from brain.lsp.server import build_server
server = build_server()
cache = server.code_cache
print(cache.hits, cache.added, cache.path.parent)
cache.save()
"""


def test_the_server_compiles_lsprotocol_once(tmp_path: Path) -> None:
    env = dict(os.environ, BRAIN_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                           check=True, timeout=120).stdout.split() for _ in range(2)]
    (hits1, added1, folder1), (hits2, added2, folder2) = runs
    assert int(hits1) == 0
    assert int(added1) > 500  # lsprotocol's classes
    assert int(hits2) >= int(added1) - 5  # all again, but code generated in hash order
    assert int(added2) <= 5
    assert folder1 == folder2 == str(tmp_path / "code")
    assert cache_path(tmp_path / "code").exists()
