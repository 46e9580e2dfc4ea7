"""Hostile conversations with `brain lsp` over stdio, each in a child with a time and memory budget.

The cases live in lsp_cases.py and speak raw JSON-RPC (lsp_wire.py). Before the fixes: a
request with a position of -1 and a message nested 100,000 deep got no answer at all, a
request before `initialize` got -32603 with a traceback, a URI with a NUL byte a traceback,
a stale `didChange` was applied, 20,000 changes in one `didChange` got no answer in 20 s, an
alias bomb in an unsaved buffer took the server past 700 MB without a diagnostic, and a 40 MB
message was read whole and never answered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hostile.budget import MIB, python_case

REPO = Path(__file__).resolve().parents[2]
SECONDS = 60.0
MEMORY = 2048 * MIB


def run_case(name: str, root: Path) -> dict[str, Any]:
    code = (
        f"import sys\nsys.argv = ['lsp_cases', {name!r}, {str(root)!r}]\n"
        "from tests.hostile.lsp_cases import main\nmain()\n"
    )
    outcome = python_case(code, seconds=SECONDS, memory=MEMORY, cwd=REPO)
    print(name, outcome.summary())
    assert not outcome.timed_out, outcome.summary()
    assert outcome.returncode == 0, outcome.stderr[-3000:]
    found: dict[str, Any] = json.loads(outcome.stdout)
    return found


def answered_cleanly(seen: dict[str, Any], code: int | None = None) -> None:
    assert seen["answered"], "no response"
    assert not seen["traceback"], "a traceback in the response"
    assert seen["code"] == code


def test_a_request_before_initialize_is_server_not_initialized(tmp_path: Path) -> None:
    seen = run_case("before-initialize", tmp_path / "ws")
    answered_cleanly(seen["hover"], -32002)
    answered_cleanly(seen["initialize"])


def test_invalid_positions_are_invalid_params(tmp_path: Path) -> None:
    seen = run_case("invalid-positions", tmp_path / "ws")
    for name in ("negative-line", "negative-character", "over-uinteger"):
        answered_cleanly(seen[name], -32602)
    for name in ("past-the-end", "far-right", "after"):
        answered_cleanly(seen[name])


def test_a_uri_with_a_nul_byte_is_no_document(tmp_path: Path) -> None:
    seen = run_case("nul-uri", tmp_path / "ws")
    for name in ("escaped", "raw", "escaped-symbols", "raw-symbols", "after"):
        answered_cleanly(seen[name])


def test_a_change_whose_version_does_not_increase_is_ignored(tmp_path: Path) -> None:
    seen = run_case("stale-version", tmp_path / "ws")
    assert seen == {"after-stale": ["A"], "after-newer": ["D"]}


def test_twenty_thousand_changes_in_one_did_change(tmp_path: Path) -> None:
    seen = run_case("many-changes", tmp_path / "ws")
    assert seen["names"] == [1 + 20_000]  # `# T` and one `x` per change


def test_an_alias_bomb_in_an_unsaved_buffer_is_a_diagnostic(tmp_path: Path) -> None:
    seen = run_case("bomb-buffer", tmp_path / "ws")
    assert seen["codes"] == ["invalid-frontmatter"]
    answered_cleanly(seen["after"])


def test_deep_and_broken_json_are_answered(tmp_path: Path) -> None:
    seen = run_case("deep-message", tmp_path / "ws")
    answered_cleanly(seen["deep"], -32600)
    answered_cleanly(seen["not-json"], -32700)
    answered_cleanly(seen["after"])


def test_a_message_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    seen = run_case("huge-message", tmp_path / "ws")
    answered_cleanly(seen["huge"], -32600)
    answered_cleanly(seen["after"])


def test_a_line_of_four_million_characters(tmp_path: Path) -> None:
    seen = run_case("huge-line", tmp_path / "ws")
    for name in ("hover-end", "completion", "links"):
        answered_cleanly(seen[name])
    assert seen["links"]["result"] == 1


def test_an_unsaved_buffer_over_the_note_budget_is_a_diagnostic_and_not_parsed(tmp_path: Path) -> None:
    seen = run_case("over-budget-buffer", tmp_path / "ws")
    assert seen["bytes"] > 5 * 1024 * 1024
    assert seen["codes"] == ["too-large"]
    assert "BRAIN_MAX_NOTE_BYTES" in seen["message"]
    for name in ("hover", "completion", "links", "fine"):
        answered_cleanly(seen[name])
    assert seen["links"]["result"] == 0  # not parsed: no link of it is offered
