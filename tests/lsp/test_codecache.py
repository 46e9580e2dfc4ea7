"""The compiled code of attrs and cattrs kept between starts (brain/lsp/startup/codecache.py)."""

from __future__ import annotations
import __future__

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain.lsp.startup import codecache
from brain.lsp.startup.codecache import CodeCache, cache_path

from .conftest import WORKSPACE, write_tree

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
        assert list(again.table) == [(NAME, SOURCE, __future__.annotations.compiler_flag)]


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
    assert sorted(name for name, _, _ in last.table) == ["<attrs generated methods test.Thing>", "<new>"]


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
    assert int(hits1) < 50  # only sources met twice in one run (dataclasses with the same fields)
    assert int(added1) > 500  # lsprotocol's classes
    assert int(hits2) >= int(added1) - 5  # all again, but code generated in hash order
    assert int(added2) <= 5
    assert folder1 == folder2 == str(tmp_path / "code")
    assert cache_path(tmp_path / "code").exists()


def test_exec_takes_a_sources_code_from_the_table(tmp_path: Path) -> None:
    source = "def __create_fn__(x):\n def f(y: x) -> x:\n  return y * 2\n return f\n"
    first = CodeCache(tmp_path / "code.marshal")
    space: dict[str, object] = {}
    first.exec(source, {}, space)
    first.save()
    second = CodeCache(tmp_path / "code.marshal")
    second.load()
    again: dict[str, object] = {}
    second.exec(source, {}, again)
    assert (second.hits, second.added) == (1, 0)
    made = again["__create_fn__"](int)  # type: ignore[operator]
    assert made(21) == 42
    # as `exec` of a string compiles it: `<string>`, and no annotations future (dataclasses has none)
    assert made.__code__.co_filename == "<string>"
    assert made.__annotations__ == {"y": int, "return": int}
    second.exec("z = 3", space)  # a globals dict alone, as exec takes it
    assert space["z"] == 3
    code = compile("w = 4", "<c>", "exec")
    second.exec(code, space)  # code objects go straight through
    assert space["w"] == 4
    assert second.added == 1  # "z = 3"


DATACLASSES = """
import dataclasses, sys
from brain.lsp.startup import codecache
cache = codecache.install(generators=False) if sys.argv[1] == "cached" else None
print("attr" in sys.modules, "cattrs" in sys.modules)

@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: list[str] = dataclasses.field(default_factory=list)

p = Point(1)
print(p, p == Point(1, 2, []), p < Point(2), hash(Point(1, 2, ())) == hash(Point(1, 2, ())))
try:
    p.x = 5
except dataclasses.FrozenInstanceError:
    print("frozen")
if cache is not None:
    print(cache.hits, cache.added)
    cache.save()
"""


def test_dataclasses_made_with_the_cache_behave_the_same(tmp_path: Path) -> None:
    env = dict(os.environ, BRAIN_CACHE_DIR=str(tmp_path))
    runs, plain = [[subprocess.run([sys.executable, "-c", DATACLASSES, kind], env=env, capture_output=True,
                                   text=True, check=True, timeout=120).stdout.splitlines() for _ in range(2)]
                   for kind in ("cached", "plain")]
    plain = plain[0]
    assert runs[0][0] == "False False"  # attrs and cattrs are hooked later: not imported sooner
    assert runs[0][1:3] == runs[1][1:3] == plain[1:3] == ["Point(x=1, y=2, tags=[]) True True True", "frozen"]
    first, second = (tuple(map(int, run[3].split())) for run in runs)
    assert first[0] == 0
    assert first[1] >= 5  # __init__, __repr__, __eq__, the orderings, __hash__ ...
    assert second == (first[1], 0)


@pytest.mark.parametrize(
    ("env", "folder"),
    [({}, Path.home() / ".cache/brain"), ({"BRAIN_CACHE_DIR": "/x/brain-cache"}, Path("/x/brain-cache")),
     ({"XDG_CACHE_HOME": "/y/cache"}, Path("/y/cache/brain")),
     ({"BRAIN_CACHE_DIR": "/x/b", "XDG_CACHE_HOME": "/y/c"}, Path("/x/b")),
     ({"BRAIN_CACHE_DIR": "", "XDG_CACHE_HOME": ""}, Path.home() / ".cache/brain")],
)
def test_the_code_cache_is_in_brains_cache_folder(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], folder: Path
) -> None:
    for name in ("BRAIN_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert codecache.cache_path().parent == folder / "code"


def framed(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_server_start_keeps_brains_own_dataclasses_compiled(tmp_path: Path) -> None:
    """`brain lsp` installs the cache before brain's modules are imported (the walk's, before
    the fork): the dataclasses of brain.model come from it on the next start."""
    workspace = tmp_path / "ws"
    write_tree(workspace, WORKSPACE)
    session = b"".join(framed(m) for m in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "capabilities": {}, "workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}]}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ])
    env = dict(os.environ, BRAIN_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-m", "brain", "lsp"], input=session, env=env, capture_output=True,
                         check=True, timeout=120).stdout
    assert b'"id": 2' in out or b'"id":2' in out  # shut down as asked, which saved the cache
    cache = CodeCache(cache_path(tmp_path / "cache" / "code"))
    cache.load()
    sources = [source for name, source, flags in cache.table if name == "<string>" and flags == 0]
    # MemoryNode's __init__ (brain/model.py, imported before the walk's fork)
    assert any("note_kind" in source and "modified_at" in source for source in sources), len(sources)
    assert len(sources) > 100
