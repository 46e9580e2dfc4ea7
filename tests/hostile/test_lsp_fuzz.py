"""Hypothesis throws malformed LSP messages at one `brain lsp`; every request must be answered.

Methods brain implements (and some it does not) with params that are sometimes right and
often not: positions of any integer or of another type, URIs with NUL bytes or other schemes,
junk where objects belong, incremental changes with impossible ranges. After each example a
plain hover must still get a clean answer. The server runs under a memory limit and every
wait has a deadline, so a hang or a leak fails the test; examples are bounded, and the CI
profile (tests/conftest.py) derandomizes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.budget import MIB
from tests.hostile.lsp_wire import Wire

NOTE = "memory/shared/fuzz.md"
PING = "memory/shared/ping.md"
TEXT = "---\ndescription: fuzzed\n---\n\n# Title\n\nSee [[ping]] and [[missing]].\n"
ALLOWED = {-32700, -32600, -32601, -32602, -32002, -32800, -32803}

METHODS = [
    "textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/references",
    "textDocument/documentSymbol", "textDocument/documentLink", "textDocument/codeAction",
    "textDocument/prepareRename", "textDocument/rename", "completionItem/resolve", "workspace/symbol",
    "textDocument/formatting", "no/such/method", "$/cancelRequest", "initialize",
]
NOTIFICATIONS = ["textDocument/didChange", "textDocument/didOpen", "textDocument/didClose",
                 "textDocument/didSave", "workspace/didChangeWatchedFiles", "$/setTrace"]

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
number = st.integers(-3, 12) | st.integers(-(2**40), 2**40) | junk


def uris(root: Path) -> st.SearchStrategy[Any]:
    return st.sampled_from([
        (root / NOTE).as_uri(), (root / "memory/shared/a%00b.md").as_uri(),
        (root / "memory/shared").as_uri() + "/nul\u0000.md", "untitled:Untitled-1", "", "file://",
        (root / "outside.md").as_uri(), (root / "memory/shared/new.md").as_uri(),
    ]) | junk


def position(root: Path) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({"line": number, "character": number}) | junk


def params(root: Path) -> st.SearchStrategy[Any]:
    doc = st.fixed_dictionaries({"uri": uris(root)})
    pos = position(root)
    rng = st.fixed_dictionaries({"start": pos, "end": pos})
    change = st.fixed_dictionaries({"range": rng, "text": st.text(max_size=8)}) | st.fixed_dictionaries(
        {"text": st.text(max_size=30)}) | junk
    return st.one_of(
        st.fixed_dictionaries({"textDocument": doc, "position": pos}),
        st.fixed_dictionaries({"textDocument": doc, "position": pos, "newName": st.text(max_size=10)}),
        st.fixed_dictionaries({"textDocument": doc, "range": rng, "context": st.just({"diagnostics": []})}),
        st.fixed_dictionaries({"textDocument": st.fixed_dictionaries(
            {"uri": uris(root), "version": number}), "contentChanges": st.lists(change, max_size=4)}),
        st.fixed_dictionaries({"textDocument": st.fixed_dictionaries({
            "uri": uris(root), "languageId": st.just("markdown"), "version": number,
            "text": st.text(max_size=40)})}),
        st.fixed_dictionaries({"query": st.text(max_size=5)}),
        junk,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Wire, Path]]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "memory" / "shared").mkdir(parents=True)
    (root / NOTE).write_text(TEXT)
    (root / PING).write_text("---\ndescription: ping\n---\n# Ping\n")
    wire = Wire(root, memory=1536 * MIB)
    wire.initialize(root)
    wire.open((root / NOTE).as_uri(), TEXT)
    wire.open((root / PING).as_uri(), "---\ndescription: ping\n---\n# Ping\n")
    yield wire, root
    wire.close()


def check_answer(response: dict[str, Any] | None, what: str) -> None:
    assert response is not None, f"no answer to {what}"
    assert "Traceback" not in json.dumps(response), response
    error = response.get("error")
    if error is not None:
        assert error["code"] in ALLOWED, (what, error)
        assert "data" not in error or error["data"] is None, error


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_every_request_is_answered(server: tuple[Wire, Path], data: st.DataObject) -> None:
    wire, root = server
    for _ in range(data.draw(st.integers(1, 4), label="messages")):
        body = data.draw(params(root), label="params")
        if data.draw(st.booleans(), label="notification"):
            wire.notify(data.draw(st.sampled_from(NOTIFICATIONS), label="method"), body)
            continue
        method = data.draw(st.sampled_from(METHODS), label="method")
        check_answer(wire.call(method, body, seconds=15), f"{method} {body!r}"[:300])
    ping = (root / PING).as_uri()
    answer = wire.call("textDocument/documentSymbol", {"textDocument": {"uri": ping}}, seconds=15)
    check_answer(answer, "the ping")
    assert answer is not None
    assert [s["name"] for s in answer["result"]] == ["Ping"]
    assert wire.proc.poll() is None, "the server exited"
