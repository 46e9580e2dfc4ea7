"""The code attrs and cattrs generate for lsprotocol, compiled once and kept between starts.

Importing lsprotocol builds ~570 attrs classes, and attrs writes and compiles the source of
every class's methods on each import; cattrs does the same for each message type it first
converts. That compiling is about a quarter of the language server's start, and its result
never changes for the same source and the same Python. So `brain lsp` keeps it in the
user's cache folder (`<cache>/code/`), one file per Python bytecode version and versions of
attrs, cattrs and lsprotocol, and compiles only what the file lacks.

The file holds code, so it is trusted exactly as far as Python trusts its own `__pycache__`
or the user's site-packages: it is read only from a folder and a file that belong to this
user and that nobody else may write. Anything else (another owner, loose permissions, a
damaged file, another version) and everything is compiled as before; `--no-cache` turns it
off. A key is the generated source's digest and its file name, so a different source is
never answered with stale code.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.metadata
import importlib.util
import logging
import marshal
import os
import stat
import sys
import tempfile
import threading
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

log = logging.getLogger("brain.lsp")
MAX_BYTES = 64 << 20  # a cache file past this is not ours: ignored
Key = tuple[bytes, str]


def cache_file(folder: Path) -> Path:
    versions = [sys.implementation.cache_tag or "python", importlib.util.MAGIC_NUMBER.hex()]
    for package in ("attrs", "cattrs", "lsprotocol"):
        try:
            versions.append(f"{package}-{importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package}-none")
    return folder / f"lsprotocol-{hashlib.sha256(' '.join(versions).encode()).hexdigest()[:16]}.marshal"


def private(st: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


class CodeCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes: dict[Key, CodeType] = {}
        self.added = 0
        self._lock = threading.Lock()

    def load(self) -> None:
        try:
            if not private(os.stat(self.path.parent)):
                log.warning("not using %s: the folder is not this user's alone", self.path.parent)
                return
            with open(self.path, "rb") as f:
                st = os.fstat(f.fileno())
                if not private(st) or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                    log.warning("not using %s: not a private file of this user", self.path)
                    return
                loaded = marshal.load(f)
        except FileNotFoundError:
            return
        except Exception as exc:  # damaged: compile everything, write it anew
            log.info("ignoring the code cache %s: %s", self.path, exc)
            return
        if isinstance(loaded, dict):
            self.codes = {
                k: v for k, v in loaded.items()
                if isinstance(k, tuple) and len(k) == 2 and isinstance(v, CodeType)
            }

    def compile(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        """`compile` as attrs and cattrs call it, answered from the cache when it can be."""
        if args or kwargs or not isinstance(source, str) or not isinstance(filename, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = (hashlib.blake2b(f"{mode}\0{source}".encode(), digest_size=16).digest(), filename)
        code = self.codes.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode)
            with self._lock:
                self.codes[key] = code
                self.added += 1
        return code

    def save(self) -> None:
        """Write the cache if it learned anything (atomically; private to this user)."""
        with self._lock:
            if not self.added:
                return
            data = marshal.dumps(dict(self.codes))
            self.added = 0
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".code-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            log.info("cannot write the code cache %s: %s", self.path, exc)


def install(folder: Path) -> CodeCache:
    """Route attrs' and cattrs' `compile` through a cache in `folder` (before lsprotocol is imported)."""
    import attr._make
    import cattrs.gen

    cache = CodeCache(cache_file(folder))
    cache.load()
    modules: list[ModuleType] = [attr._make, cattrs.gen]
    for module in modules:
        module.compile = cache.compile  # type: ignore[attr-defined]  # shadows the builtin there
    return cache
