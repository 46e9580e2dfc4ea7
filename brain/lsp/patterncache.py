"""Regular expressions compiled by the imports of a start, kept compiled between starts.

The modules a language server imports before its first answer (yaml's resolver, tomllib,
mistune, brain's parsers, pygls) compile 150 regular expressions, 0.025 s of the start: the
`re` module parses each pattern and generates its matching code in Python, the same every
time. So while the server imports (brain/lsp/server.py), `re` gets a compile that takes the
generated code from a table loaded from the user's cache folder, and hands it to the C
engine (`_sre.compile`) as `re` itself does; what it compiled anew is added to the file
at shutdown. Patterns compiled after the imports (what a user searches for, say) are
neither cached nor written: the hook is removed when the server is built. brain/lsp/codecache.py
loads and writes the file beside its own.

An entry is used only for exactly the pattern (str or bytes) and flags it was made from; the
file is keyed by Python's version (the code format of `re` follows it) and ignored when
unreadable. Anything unusual (a debug flag, a pattern `re` refuses) goes to `re` unchanged.
"""

from __future__ import annotations

import importlib
import marshal
import re
from pathlib import Path
from typing import Any

MAX_ENTRIES = 5_000
MAX_BYTES = 16 << 20
Args = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]  # what `_sre.compile` takes

try:  # CPython's own layout of the `re` package (3.11 and later); else no cache
    _sre: Any = importlib.import_module("_sre")
    _compiler: Any = importlib.import_module("re._compiler")
    _parser: Any = importlib.import_module("re._parser")
    _ORIGINAL: Any = _compiler.compile
    _HAS_PARTS = callable(getattr(_compiler, "_code", None)) and callable(getattr(_parser, "parse", None))
except ImportError:
    _HAS_PARTS = False


def compile_args(pattern: str | bytes, flags: int) -> Args:
    """What `re._compiler.compile` passes to `_sre.compile` for `pattern` (its own steps)."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return int(flags | parsed.state.flags), [int(op) for op in code], parsed.state.groups - 1, groupindex, \
        tuple(indexgroup)


class PatternCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.table: dict[tuple[str | bytes, int], Args] = {}
        self.used: dict[tuple[str | bytes, int], Args] = {}
        self.added = 0
        self.hits = 0
        self.installed = False

    def load(self) -> None:
        try:
            if self.path.stat().st_size > MAX_BYTES:
                return
            table = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(table, dict) and len(table) < MAX_ENTRIES:
            self.table = {
                key: args for key, args in table.items()
                if isinstance(key, tuple) and len(key) == 2 and isinstance(args, tuple) and len(args) == 5
            }

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        """`re._compiler.compile`, with the generated code of a plain pattern from the table."""
        if not isinstance(pattern, str | bytes) or flags & re.DEBUG:
            return _ORIGINAL(pattern, flags)
        key = (pattern, int(flags))
        args = self.table.get(key)
        if args is None:
            try:
                args = compile_args(pattern, flags)
            except Exception:  # re's own error, raised by re itself
                return _ORIGINAL(pattern, flags)
            self.table[key] = args
            self.added += 1
        else:
            self.hits += 1
        try:
            compiled = _sre.compile(pattern, *args)
        except Exception:  # an entry the engine refuses (a damaged file): re compiles it
            self.table.pop(key, None)
            return _ORIGINAL(pattern, flags)
        if len(self.used) < MAX_ENTRIES:
            self.used[key] = args
        return compiled

    def install(self) -> None:
        if _HAS_PARTS and not self.installed:
            _compiler.compile = self.compile
            self.installed = True

    def uninstall(self) -> None:
        if self.installed:
            _compiler.compile = _ORIGINAL
            self.installed = False

    def dumps(self) -> bytes | None:
        """What the imports used, if something was compiled anew (else None: nothing to write)."""
        return marshal.dumps(dict(self.used)) if self.added else None
