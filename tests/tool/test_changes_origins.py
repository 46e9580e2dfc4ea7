"""Who made a change, exactly: a run's id on every change of a `maintain --apply` or
consolidation run, and origin `ui` for the web UI's edits, with who signed in.

Planted bugs, each seen to fail: `HistoryKeeping.record` not passing the actor's run (the
run tests), `maintain` not giving the actor its run, `actor_of` ignoring the request's
headers (the UI test), and `ui_origin` taking the old `X-Brain-Client: ui` header again (a
plain API client's write recorded as the UI's).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from brain.api.http.uisession import UI_COOKIE
from brain.tool.access import Actor
from brain.tool.history.log import History
from brain.tool.history.query import memory_changes
from tests.maintain.chat_server import calls, chat_server, final
from tests.maintain.conftest import note, open_brain, workspace_with
from tests.maintain.test_consolidate import FILES, run
from tests.mcp.conftest import TOKENS, build_workspace
from tests.tool.test_changes import serving

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
MESSY: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-a.md": (STYLE, 5),
    "memory/writer/style-b.md": (STYLE, 1),
    "memory/writer/notes.md": note("Notes.", "See [[style-b]] and [[house-styel]]."),
    "memory/writer/house-style.md": (note("The real one.", "Headline first, always."), 2),
}


def _brain(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_every_change_of_a_maintain_run_carries_its_id_in_the_history_and_the_diff(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", MESSY)
    done = _brain("maintain", str(root), "--apply", "--scope", "writer", "--format", "json")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run"]
    assert run_id.startswith("maintain-")
    records = History(root / ".brain" / "history.jsonl").all()
    assert [(r.command, r.run) for r in records] == [
        ("delete", run_id), ("str_replace", run_id), ("maintain", run_id),  # the run's own report too
    ]
    diff = _brain("diff", str(root), "--since", "1h", "--format", "json")
    assert diff.returncode == 0, diff.stderr
    notes = json.loads(diff.stdout)["notes"]
    assert notes["removed"] == [
        {"path": "memory/writer/style-a.md", "origin": "maintain", "by": "admin", "run": run_id},
    ]
    assert [(c["path"], c["origin"], c["run"]) for c in notes["changed"]] == [
        ("memory/writer/notes.md", "maintain", run_id),
    ]
    text = _brain("diff", str(root), "--since", "1h")
    assert f"- memory/writer/style-a.md  (maintain, admin, run {run_id})" in text.stdout
    again = _brain("maintain", str(root), "--apply", "--scope", "writer", "--format", "json")
    assert json.loads(again.stdout)["run"] not in (None, run_id)  # a new run, a new id


def test_every_change_of_a_consolidation_carries_its_run_id(tmp_path: Path) -> None:
    root = workspace_with(tmp_path / "ws", FILES)
    brain, service = open_brain(root, tmp_path / "history.jsonl")
    script = [
        calls({"command": "delete", "path": "/memories/style-a.md"},
              {"command": "str_replace", "path": "/memories/old.md", "old_str": "Never.",
               "new_str": "Never!"}),
        final("Changed: two notes"),
    ]
    with chat_server(script) as server:
        report, _ = run(brain, service, "writer", server.url)
    assert report.status == "done"
    assert report.run is not None
    assert report.run.startswith("consolidate-")
    assert report.to_json()["run"] == report.run
    assert {(r.command, r.run) for r in service.history.all()} == {
        ("delete", report.run), ("str_replace", report.run),
    }
    found = memory_changes(service, Actor.admin(), "1h")
    assert found["notes"]["removed"] == [
        {"path": "memory/writer/style-a.md", "origin": "consolidate", "by": "admin", "run": report.run},
    ]
    assert [c["run"] for c in found["notes"]["changed"]] == [report.run]


WRITE = """mutation($content: String!) { memoryWrite(scope: "writer", file: "ui.md", content: $content)
  { ok } }"""


def test_the_web_uis_edits_are_recorded_as_ui_with_who_signed_in(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    with serving(root, tokens) as base:
        # The UI's page marks its session (an HttpOnly cookie its requests carry).
        page = httpx.get(f"{base}/", timeout=60)
        mark = page.cookies.get(UI_COOKIE)
        assert mark
        assert "httponly" in page.headers["set-cookie"].lower()
        assert "samesite=strict" in page.headers["set-cookie"].lower()
        ui = {"Cookie": f"{UI_COOKIE}={mark}"}

        def write(token: str, content: str, headers: dict[str, str]) -> None:
            answer = httpx.post(
                f"{base}/graphql", json={"query": WRITE, "variables": {"content": content}},
                headers={"Authorization": f"Bearer {token}", **headers}, timeout=60,
            ).json()
            assert answer["data"]["memoryWrite"]["ok"], answer

        write("writer-token", "# From the UI\n", ui)  # as web/src/api.ts sends it
        write("admin-token", "# The admin in the UI\n", ui)
        write("writer-token", "# A script over GraphQL\n", {})
        write("writer-token", "# Claims another origin\n", {"X-Brain-Client": "external"})
        # A plain API client cannot claim `ui`: not by the old header, nor by a made-up mark.
        write("writer-token", "# A script says it is the UI\n", {"X-Brain-Client": "ui"})
        write("writer-token", "# A forged mark\n", {"Cookie": f"{UI_COOKIE}={'0' * 64}"})
        put = httpx.put(f"{base}/api/memory/writer/rest.md", json={"content": "# REST\n"},
                        headers={"Authorization": "Bearer writer-token", **ui}, timeout=60)
        assert put.status_code in (200, 201), put.text
        changes = httpx.post(f"{base}/graphql", json={"query": '{ changes(since: "1h") }'},
                             headers={"Authorization": "Bearer admin-token"}, timeout=60).json()
    records = [r for r in History(root / ".brain" / "history.jsonl").all() if r.origin != "external"]
    assert [(r.path, r.origin, r.actor, r.via) for r in records] == [
        ("memory/writer/ui.md", "ui", "agent:writer", "graphql"),
        ("memory/writer/ui.md", "ui", "admin", "graphql"),
        ("memory/writer/ui.md", None, "agent:writer", "graphql"),
        ("memory/writer/ui.md", None, "agent:writer", "graphql"),  # no origin is taken from a client
        ("memory/writer/ui.md", None, "agent:writer", "graphql"),  # nor `ui` from its header
        ("memory/writer/ui.md", None, "agent:writer", "graphql"),  # nor from a forged cookie
        ("memory/writer/rest.md", "ui", "agent:writer", "rest"),
    ]
    added = changes["data"]["changes"]["notes"]["added"]
    assert {"path": "memory/writer/rest.md", "origin": "ui", "by": "agent:writer"} in added


def test_a_window_before_the_oldest_record_says_so(tmp_path: Path) -> None:
    """Planted bug, seen to fail: retention_of always None (a window before the history's
    start looked like a window where nothing changed)."""
    root = workspace_with(tmp_path / "ws", {})
    history = root / ".brain" / "history.jsonl"
    empty = _brain("diff", str(root), "--since", "7d", "--format", "json")
    assert json.loads(empty.stdout)["retention"]["oldest"] is None  # no record at all: not known
    history.parent.mkdir(parents=True)
    history.write_text(json.dumps({
        "at": "2020-01-02T03:04:05.000000Z", "actor": "admin", "via": "cli", "command": "create",
        "scope": "writer", "path": "memory/writer/a.md", "before": None, "after": "0" * 64,
    }) + "\n")
    before = _brain("diff", str(root), "--since", "2019-12-01T00:00:00Z", "--format", "json")
    assert json.loads(before.stdout)["retention"] == {
        "oldest": "2020-01-02T03:04:05.000000Z",
        "message": "the history begins at 2020-01-02T03:04:05.000000Z: changes before it are not known",
    }
    text = _brain("diff", str(root), "--since", "2019-12-01T00:00:00Z")
    assert text.stdout.rstrip().endswith(
        "retention: the history begins at 2020-01-02T03:04:05.000000Z: changes before it are not known")
    inside = _brain("diff", str(root), "--since", "2020-01-02T03:04:05Z", "--format", "json")
    assert json.loads(inside.stdout)["retention"] is None
