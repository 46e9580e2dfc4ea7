"""A malformed line in the write history is skipped with a warning, at the one reader.

Before the fix a line with a list where a string belongs was a TypeError in the CLI (a
traceback), a 500 from REST and an error from GraphQL; a deeply nested line was a
RecursionError everywhere. The docs promise bad lines are skipped with a warning.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from brain.cli.main import main
from brain.tool.history.log import History
from tests.tool.conftest import make_workspace
from tests.tool.test_rest import serve

GOOD = {
    "at": "2026-11-01T00:00:01.000000Z", "actor": "agent:writer", "agent": "writer", "via": "cli",
    "command": "create", "scope": "writer", "path": "memory/writer/a.md", "before": None,
    "after": "0" * 64,
}
BAD_LINES = {
    "list-for-a-string": json.dumps({**GOOD, "command": ["create"]}),
    "number-for-a-string": json.dumps({**GOOD, "at": 5}),
    "object-for-the-agent": json.dumps({**GOOD, "agent": {"name": "writer"}}),
    "missing-path": json.dumps({k: v for k, v in GOOD.items() if k != "path"}),
    "an-array": "[1, 2]",
    "a-string": '"create"',
    "deep": "[" * 100_000 + "]" * 100_000,
    "torn": json.dumps(GOOD)[:40],
}


def history_with(path: Path, bad: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((json.dumps(GOOD) + "\n" + bad + "\n" + b"\xff\xfe{}".decode("latin-1") + "\n").encode())
    return path


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_the_reader_skips_it_with_a_warning(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    history = History(history_with(tmp_path / "h.jsonl", BAD_LINES[name]))
    with caplog.at_level(logging.WARNING, logger="brain.tool.history.log"):
        records = history.records()
    assert [r.path for r in records] == ["memory/writer/a.md"]
    assert "line 2 is not a history record" in caplog.text


@pytest.mark.parametrize("name", ["list-for-a-string", "deep"])
def test_cli_rest_and_graphql_list_the_good_records(tmp_path: Path, name: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = make_workspace(tmp_path / "ws")
    path = history_with(root / ".brain" / "history.jsonl", BAD_LINES[name])
    assert main(["memory", "--workspace", str(root), "writer", "history"]) == 0
    assert "memory/writer/a.md" in capsys.readouterr().out
    with serve(root, path) as live, httpx.Client(base_url=live.base, timeout=10) as http:
        rest = http.get("/api/memory-history")
        assert rest.status_code == 200, rest.text
        # The start's rescan may record that a.md (in this made-up history) is not on disk:
        # origin external, brain's own line; the bad lines are still left out.
        listed = [r["path"] for r in rest.json()["records"] if r.get("origin") != "external"]
        assert listed == ["memory/writer/a.md"]
        query = '{ memoryHistory(agent: "writer") { records { path command } } }'
        body = http.post("/graphql", json={"query": query}).json()
        assert "errors" not in body, body
        records = body["data"]["memoryHistory"]["records"]
        assert records == [{"path": "memory/writer/a.md", "command": "create"}]
