"""The code attrs and cattrs generate, kept compiled between starts of the language server.

lsprotocol defines 554 attrs classes, and attrs writes each one's `__init__`, `__eq__` and
friends as Python source and compiles it when the module is imported; cattrs does the same
for every message type it first converts. That compiling is 40 % of importing lsprotocol
(most of a server's start), and it produces the same code every time. So the server gives
those two modules a `compile` that first looks the source up in a table of code objects
loaded from the user's cache folder (marshal, as .pyc files hold code), and adds what it
compiled anew to that file when it shuts down. The standard library's dataclasses do the
same with `exec` for every dataclass (brain's 380 before the first completion: 0.05 s), so
they get an `exec` that takes a source's code from the same table; the cache is installed
before brain's own modules are imported (brain/lsp/server.py).

A code object is only used for exactly the source (and file name) it was compiled from; the
file is keyed by Python's bytecode magic and the versions of attrs, cattrs and lsprotocol,
written atomically, and ignored when unreadable. Anything else goes to the real `compile`.
Code read back is code run: the file is neither read nor written in a folder, nor taken from a
file, that someone else owns or others may write (brain/cachepaths.py `trusted`).
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import dataclasses
import hashlib
import importlib
import importlib.util
import logging
import marshal
import os
import sys
import types
from pathlib import Path
from typing import Any

from brain.snapshot.cachepaths import cache_dir, trusted

log = logging.getLogger("brain.lsp")

MAX_ENTRIES = 20_000  # a bound on the table (a start uses about 600)
MAX_BYTES = 64 << 20
GENERATORS = ("attr._make", "cattrs.gen", "cattrs.gen.typeddicts")  # the modules that compile
# Their `compile` calls inherit their own future flags (each has `from __future__ import
# annotations`): compiled here with exactly those, whoever calls.
FLAGS = __future__.annotations.compiler_flag
EXEC_NAME = "<string>"  # what `exec` of a string compiles it as (with no future flags: dataclasses has none)
Key = tuple[str, str, int]  # file name, source, compiler flags


class CodeCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.table: dict[Key, types.CodeType] = {}
        self.used: dict[Key, types.CodeType] = {}  # what this run compiled or took
        self.added = 0
        self.hits = 0

    def load(self) -> None:
        if not (trusted(self.path.parent, "code cache") and trusted(self.path, "code cache")):
            return
        try:
            if self.path.stat().st_size > MAX_BYTES:
                return
            table = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return  # none yet, or unreadable: compiled afresh, and rewritten on shutdown
        if isinstance(table, dict) and len(table) < MAX_ENTRIES:
            self.table = {
                key: code for key, code in table.items()
                if isinstance(key, tuple) and len(key) == 3 and isinstance(code, types.CodeType)
            }

    def compile(
        self, source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        """`compile`, answered from the table for the generated modules' plain `exec` sources."""
        if not (isinstance(source, str) and isinstance(filename, str) and mode == "exec"
                and not flags and not dont_inherit and optimize == -1):
            return builtins.compile(source, filename, mode, flags, dont_inherit, optimize)
        return self._code(filename, source, FLAGS)

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """`exec`, with a source string's code from the table (dataclasses' generated methods)."""
        if isinstance(source, str):
            source = self._code(EXEC_NAME, source, 0)
        builtins.exec(source, globals, locals)

    def _code(self, filename: str, source: str, flags: int) -> types.CodeType:
        key = (filename, source, flags)
        code = self.table.get(key)
        if code is not None:
            self.hits += 1
        else:
            code = self.table[key] = builtins.compile(source, filename, "exec", flags, True)
            self.added += 1
        if len(self.used) < MAX_ENTRIES:
            self.used[key] = code
        return code

    def save(self) -> None:
        """Write what this run used, if it compiled anything anew (atomically: a private temp
        file, then a rename). Code no run asks for any more (another version's, or generated
        from a set in hash order) is not carried on."""
        if not self.added or not trusted(self.path.parent, "code cache"):
            return
        if _write(self.path, marshal.dumps(dict(self.used))):
            self.added = 0


def _write(path: Path, data: bytes) -> bool:
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        log.info("could not keep the compiled protocol code in %s: %s", path, exc)
        return False
    return True


def cache_path(folder: Path | None = None) -> Path:
    """One file per bytecode format: a code object is looked up by its exact source, so other
    versions of attrs or lsprotocol only add entries (MAX_ENTRIES bounds them)."""
    key = hashlib.sha256(f"{importlib.util.MAGIC_NUMBER.hex()}\n{sys.version}\n{FLAGS}".encode()).hexdigest()
    return (folder or cache_dir() / "code") / f"lsp-{key[:16]}.marshal"


def install(folder: Path | None = None, generators: bool = True) -> CodeCache:
    """Give dataclasses the cached `exec` (before the dataclasses it should cover are defined),
    and attrs and cattrs the cached `compile` (before lsprotocol is imported; `generators`
    False: later, by `hook_generators`, so that a start does not import them sooner)."""
    cache = CodeCache(cache_path(folder))
    cache.load()
    # A module global shadows the builtin for that module's calls to `exec`.
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    if generators:
        hook_generators(cache)
    return cache


def hook_generators(cache: CodeCache) -> None:
    for name in GENERATORS:
        with contextlib.suppress(ImportError):
            # A module global shadows the builtin for that module's calls to `compile`.
            importlib.import_module(name).compile = cache.compile  # type: ignore[attr-defined]
