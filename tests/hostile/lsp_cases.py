"""Hostile conversations with `brain lsp`, each run in a budgeted child by test_lsp.py.

`python -c "from tests.hostile.lsp_cases import main; main()" CASE WORKSPACE` runs one case
and prints what it observed as one JSON object: for every request, whether a response came,
its error code, and whether a traceback leaked into it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from brain.budgets import NOTE_BYTES_ENV
from tests.hostile.corpus import checked_in
from tests.hostile.lsp_wire import Wire

NOTE = "memory/shared/fine.md"
TEXT = "---\ndescription: a fine note\n---\n\n# Fine\n\nSee [[other]].\n"


def seen(response: dict[str, Any] | None) -> dict[str, Any]:
    """What matters about a response: that it came, its error code, no traceback."""
    if response is None:
        return {"answered": False}
    error = response.get("error")
    text = json.dumps(response)
    return {
        "answered": True,
        "code": error["code"] if error else None,
        "traceback": "Traceback" in text or "traceback" in text or 'File "' in text,
        "result": response.get("result") if not error else None,
    }


def started(root: Path) -> tuple[Wire, str]:
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / NOTE).as_uri()
    wire.open(uri, TEXT)
    return wire, uri


def hover(uri: str, line: int, character: int) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def symbols(wire: Wire, uri: str) -> list[str]:
    response = wire.call("textDocument/documentSymbol", {"textDocument": {"uri": uri}}, seconds=20)
    result = (response or {}).get("result") or []
    return [s["name"] for s in result]


def fs_shapes(root: Path) -> dict[str, Any]:
    """A workspace with a folder 1,200 deep and names that are not UTF-8 (test_fs_shapes.py):
    the link in the open note must still find the other note."""
    wire, uri = started(root)
    definition = seen(wire.call("textDocument/definition", hover(uri, 6, 6), seconds=30))
    diagnostics = wire.diagnostics(uri, seconds=30) or []
    wire.close()
    return {"definition": definition, "diagnostics": [d.get("code") for d in diagnostics]}


def before_initialize(root: Path) -> dict[str, Any]:
    wire = Wire(root)
    out = {"hover": seen(wire.call("textDocument/hover", hover((root / NOTE).as_uri(), 0, 0)))}
    out["initialize"] = seen(wire.initialize(root))
    wire.close()
    return out


def invalid_positions(root: Path) -> dict[str, Any]:
    wire, uri = started(root)
    out = {}
    for name, (line, character) in {
        "negative-line": (-1, 0), "negative-character": (0, -5), "over-uinteger": (2**31, 0),
        "past-the-end": (10**6, 0), "far-right": (4, 10**9), "float": (1.5, 0),
    }.items():
        out[name] = seen(wire.call("textDocument/hover", hover(uri, line, character)))  # type: ignore[arg-type]
    out["after"] = seen(wire.call("textDocument/hover", hover(uri, 4, 2)))
    wire.close()
    return out


def nul_uri(root: Path) -> dict[str, Any]:
    wire, uri = started(root)
    out = {}
    for name, bad in {"escaped": (root / "memory/shared/a%00b.md").as_uri(),
                      "raw": (root / "memory/shared").as_uri() + "/a\u0000b.md"}.items():
        wire.open(bad, TEXT)
        out[name] = seen(wire.call("textDocument/hover", hover(bad, 4, 2)))
        symbols_of = {"textDocument": {"uri": bad}}
        out[name + "-symbols"] = seen(wire.call("textDocument/documentSymbol", symbols_of))
    out["after"] = seen(wire.call("textDocument/hover", hover(uri, 4, 2)))
    wire.close()
    return out


def stale_version(root: Path) -> dict[str, Any]:
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / NOTE).as_uri()
    wire.open(uri, "# A\n", version=5)
    for version, text in ((5, "# B\n"), (4, "# C\n")):
        wire.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}],
        })
    stale = symbols(wire, uri)
    wire.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 6}, "contentChanges": [{"text": "# D\n"}],
    })
    out = {"after-stale": stale, "after-newer": symbols(wire, uri)}
    wire.close()
    return out


def many_changes(root: Path, count: int = 20_000) -> dict[str, Any]:
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / NOTE).as_uri()
    wire.open(uri, "# T\n\nbody\n")
    changes = [
        {"range": {"start": {"line": 0, "character": 3 + i}, "end": {"line": 0, "character": 3 + i}},
         "text": "x"}
        for i in range(count)
    ]
    started_at = time.monotonic()
    wire.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                           "contentChanges": changes})
    names = symbols(wire, uri)
    out = {"names": [len(n) for n in names], "seconds": round(time.monotonic() - started_at, 3)}
    wire.close()
    return out


def bomb_buffer(root: Path) -> dict[str, Any]:
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / "memory/shared/lol.md").as_uri()
    wire.open(uri, checked_in("billion-laughs.md").decode())
    diagnostics = wire.diagnostics(uri, seconds=15) or []
    out = {"codes": sorted({str(d.get("code")) for d in diagnostics}),
           "after": seen(wire.call("textDocument/hover", hover(uri, 0, 0)))}
    wire.close()
    return out


def deep_message(root: Path) -> dict[str, Any]:
    wire, uri = started(root)
    deep = b"[" * 100_000 + b"]" * 100_000
    wire.send_body(b'{"jsonrpc": "2.0", "id": 77, "method": "textDocument/hover", "params": ' + deep + b"}")
    out = {"deep": seen(wire.response(77))}
    wire.send_body(b'{"jsonrpc": "2.0", "id": 78, "method": "textDocument/hover", "params": {')
    out["not-json"] = seen(wire.response(78))
    out["after"] = seen(wire.call("textDocument/hover", hover(uri, 4, 2)))
    wire.close()
    return out


def huge_message(root: Path, size: int = 40 * 1024 * 1024) -> dict[str, Any]:
    wire, uri = started(root)
    body = b'{"jsonrpc": "2.0", "id": 90, "method": "textDocument/hover", "params": {"x": "'
    body += b"a" * size + b'"}}'
    wire.send_body(body)
    out = {"huge": seen(wire.response(90, seconds=30))}
    out["after"] = seen(wire.call("textDocument/hover", hover(uri, 4, 2)))
    wire.close()
    return out


def huge_line(root: Path) -> dict[str, Any]:
    # A long line, not a big note: the note budget is raised so the line is read whole.
    os.environ[NOTE_BYTES_ENV] = str(8 * 1024 * 1024)
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / "memory/shared/line.md").as_uri()
    line = "word " * 800_000 + "[[fine]]"
    wire.open(uri, "---\ndescription: long\n---\n" + line + "\n")
    out = {
        "hover-end": seen(wire.call("textDocument/hover", hover(uri, 3, len(line) - 3), seconds=20)),
        "completion": seen(wire.call("textDocument/completion", hover(uri, 3, len(line) - 2), seconds=20)),
        "links": seen(wire.call("textDocument/documentLink", {"textDocument": {"uri": uri}}, seconds=20)),
    }
    out["links"]["result"] = len(out["links"]["result"] or [])
    wire.close()
    return out


def over_budget_buffer(root: Path) -> dict[str, Any]:
    """An unsaved 5 MB buffer of links and block ids: before, the next hover waited 10 s at
    about 1 GB; now the buffer is not parsed, a diagnostic says so, and features answer."""
    wire = Wire(root)
    wire.initialize(root)
    uri = (root / "memory/shared/huge.md").as_uri()
    lines = [f"item [[fine]] [[other-{i}]] ^block-{i}" for i in range(150_000)]
    text = "---\ndescription: huge\n---\n" + "\n".join(lines) + "\n"
    wire.open(uri, text)
    diagnostics = wire.diagnostics(uri, seconds=30) or []
    out = {
        "bytes": len(text.encode()),
        "codes": sorted({str(d.get("code")) for d in diagnostics}),
        "message": next((d["message"] for d in diagnostics if d.get("code") == "too-large"), ""),
        "hover": seen(wire.call("textDocument/hover", hover(uri, 3, 8), seconds=20)),
        "completion": seen(wire.call("textDocument/completion", hover(uri, 3, 7), seconds=20)),
        "links": seen(wire.call("textDocument/documentLink", {"textDocument": {"uri": uri}}, seconds=20)),
        "fine": seen(wire.call("textDocument/hover", hover((root / NOTE).as_uri(), 6, 7), seconds=20)),
    }
    out["links"]["result"] = len(out["links"]["result"] or [])
    wire.close()
    return out


CASES: dict[str, Callable[[Path], dict[str, Any]]] = {
    f.__name__.replace("_", "-"): f
    for f in (fs_shapes, before_initialize, invalid_positions, nul_uri, stale_version, many_changes,
              bomb_buffer, deep_message, huge_message, huge_line, over_budget_buffer)
}


def main() -> None:
    case, root = sys.argv[1], Path(sys.argv[2])
    root.mkdir(parents=True, exist_ok=True)
    (root / "memory" / "shared").mkdir(parents=True, exist_ok=True)
    (root / NOTE).write_text(TEXT)
    print(json.dumps(CASES[case](root)))
