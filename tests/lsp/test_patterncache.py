"""Regular expressions kept compiled between starts (brain/lsp/patterncache.py): a pattern from
the table is the pattern `re` compiles, and the hook is there only while the server imports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from brain.lsp.codecache import CodeCache, cache_path
from brain.lsp.patterncache import PatternCache

PATTERNS: list[tuple[str | bytes, int]] = [
    (r"^(?P<key>[A-Za-z_][\w-]*)\s*:\s*(?P<value>.*)$", 0),
    (r"\[\[([^\]|#]+)(?:#([^\]|]+))?(?:\|([^\]]+))?\]\]", re.MULTILINE),
    (r"(?i)straße|ǅ", 0),  # flags set inside the pattern; case folding beyond ASCII
    (r"""(?x)
        ^ \s* (\d+) \. (\d+)   # verbose
     """, re.ASCII),
    (rb"^Content-Length:\s*(\d{1,15})\s*$", re.IGNORECASE),
    (r"(a)(b)?(?P<c>c)\3?(?(2)x|y)", re.DOTALL),  # back reference, conditional group
    (r"", 0),
]


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_pattern_from_the_table_is_the_one_re_compiles(
    tmp_path: Path, pattern: str | bytes, flags: int
) -> None:
    first = PatternCache(tmp_path / "re.marshal")
    made = first.compile(pattern, flags)
    data = first.dumps()
    assert data is not None
    (tmp_path / "re.marshal").write_bytes(data)
    second = PatternCache(tmp_path / "re.marshal")
    second.load()
    cached = second.compile(pattern, flags)
    assert (second.hits, second.added) == (1, 0)
    plain = re.compile(pattern, flags)
    for compiled in (made, cached):
        assert compiled == plain  # flags, pattern and matching code
        assert compiled.groupindex == plain.groupindex
        assert compiled.groups == plain.groups
    sample = "x: y\n[[a#b|c]] STRASSE 1.2 abcy" if isinstance(pattern, str) else b"content-length: 12"
    assert [m.groups() for m in cached.finditer(sample)] == [m.groups() for m in plain.finditer(sample)]


def test_what_re_refuses_it_refuses_alike(tmp_path: Path) -> None:
    cache = PatternCache(tmp_path / "re.marshal")
    with pytest.raises(re.error, match="missing \\)"):
        cache.compile("(unclosed", 0)
    assert cache.added == 0
    assert cache.dumps() is None  # nothing new: nothing to write


def test_an_unreadable_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "re.marshal"
    for junk in (b"", b"\x00garbage", b"\xfb" * 10):
        path.write_bytes(junk)
        cache = PatternCache(path)
        cache.load()
        assert cache.table == {}
        assert cache.compile("a+", 0).match("aa") is not None


def test_an_entry_the_engine_refuses_is_compiled_afresh(tmp_path: Path) -> None:
    cache = PatternCache(tmp_path / "re.marshal")
    cache.table[("a+", 0)] = (0, [9999, 1, 2], 0, {}, ())  # not code the engine takes
    cache.table[("b+", 0)] = (0, [], "x", {}, ())  # nor arguments
    for pattern in ("a+", "b+"):
        assert cache.compile(pattern, 0) == re.compile(pattern)
        assert (pattern, 0) not in cache.table
    assert cache.dumps() is None


STARTS = """
import re, sys
from brain.lsp.server import install_code_cache, build_server
compiled = install_code_cache(generators=False)
hooked = re._compiler.compile == compiled.patterns.compile
import brain.layouts
server = build_server(compiled)
re.compile("after the build: " + sys.argv[1])  # never kept
patterns = compiled.patterns
print(hooked, re._compiler.compile == patterns.compile, patterns.hits, patterns.added)
compiled.save()
"""


def test_a_server_start_keeps_the_patterns_of_its_imports(tmp_path: Path) -> None:
    env = dict(os.environ, BRAIN_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", STARTS, secret], env=env, capture_output=True, text=True,
                           check=True, timeout=120).stdout.split() for secret in ("one", "two")]
    (hooked1, after1, _, added1), (hooked2, after2, hits2, added2) = runs
    assert (hooked1, after1) == (hooked2, after2) == ("True", "False")  # during the imports only
    assert int(added1) > 50  # yaml's, mistune's, brain's ...
    assert int(hits2) >= int(added1) - 5
    assert int(added2) <= 5
    cache = CodeCache(cache_path(tmp_path / "code"))
    cache.load()
    assert cache.patterns.path.exists()
    kept = [pattern for pattern, _ in cache.patterns.table]
    assert not any(isinstance(p, str) and p.startswith("after the build") for p in kept)
