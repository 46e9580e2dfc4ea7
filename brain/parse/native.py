"""brain's native scanners (the Rust crate in native/), when they are installed.

A first ingest spends most of its CPU scanning text: counting keywords, looking for secrets,
finding links. Those scans have a Rust twin, built by the Makefile when cargo is there
(`pip install ./native`). The Python code stays the reference and the fallback: the tests run
both on the same tables and random texts, and brain runs without the module (slower).

`BRAIN_NATIVE=0` turns the module off (the benchmarks' A/B, the tests of the Python path). A
module built from other sources than these (its ABI differs) is not used: a stale install
must not misread its answers.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import Protocol, cast

ABI = 6  # native/src/lib.rs ABI

#: `scan_body`'s answer (native/src/body.rs): headings (text, level, line, source) and links
#: (raw, target, label, anchor, embed, line, column), each the values of a `Heading` and a
#: `WikiLink`, lines counted from `first_line`; the character offsets of the chunks left to
#: mistune, and whether the body has a setext underline.
NativeScan = tuple[
    list[tuple[str, int, int, str]],
    list[tuple[str, str, str | None, str | None, bool, int, int]],
    list[tuple[int, int]],
    bool,
]


class NativeScanners(Protocol):
    ABI: int

    def count_block(
        self, texts: Sequence[str], split_slow: Callable[[list[str]], list[list[str]]],
    ) -> tuple[str, bytes, bytes, bytes, bytes]: ...

    def secret_gate(self, text: str) -> tuple[bool, list[str], bool, bool]: ...

    def secret_clear(self, text: str, raw: str | None = None) -> bool: ...

    def secret_view(self, text: str) -> str | None: ...

    # Not in a module built before it (the same ABI): looked for with getattr.
    def secret_prefilter(self, text: str) -> list[str] | None: ...

    def scan_body(self, body: str, first_line: int = 0) -> NativeScan | None: ...


def load() -> NativeScanners | None:
    """The native module, or None where it is missing, stale or turned off."""
    if os.environ.get("BRAIN_NATIVE", "1") == "0":
        return None
    try:
        module = importlib.import_module("brain_native")
    except ImportError:
        return None
    if getattr(module, "ABI", None) != ABI:
        return None
    return cast(NativeScanners, module)


native = load()
