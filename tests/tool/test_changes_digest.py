"""The weekly digest a dashboard shows, on every front end: GraphQL `changeDigest`,
`GET /api/changes/digest` and `brain diff --digest`, the same numbers, as far as the caller may see.

Planted bugs, each seen to fail: `_who` not asking `visible` (the writer's digest counted the
reviewer's change), and the weeks not bounded (a 10,000-week digest was computed).
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from brain.tool.history.digest import week_starts
from tests.mcp.conftest import TOKENS, build_workspace
from tests.tool.test_changes import serving

DIGEST = """{ changeDigest(weeks: 2) { start end notesAdded notesRemoved notesChanged
  byOrigin { origin count } byAgent { agent count } linksBroken linksFixed problemsNew problemsGone
  retention } }"""


def test_the_weekly_digest_on_every_front_end(tmp_path: Path) -> None:
    root = build_workspace(tmp_path / "ws")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    with serving(root, tokens) as base:
        def put(token: str, rel: str, text: str, headers: dict[str, str] | None = None) -> None:
            done = httpx.put(f"{base}/api/memory/{rel}", json={"content": text},
                             headers={"Authorization": f"Bearer {token}", **(headers or {})}, timeout=60)
            assert done.status_code in (200, 201), done.text

        put("writer-token", "writer/plan.md", "# Plan\n\nsee [[nowhere]]\n")
        ui = {"Cookie": "; ".join(f"{k}={v}" for k, v in httpx.get(f"{base}/", timeout=60).cookies.items())}
        put("writer-token", "writer/plan.md", "# Plan\n\nsee [[house-style]]\n", ui)  # the web UI's session
        put("reviewer-token", "reviewer/review.md", "# Review\n")

        def graphql(token: str, query: str = DIGEST) -> Any:
            return httpx.post(f"{base}/graphql", json={"query": query},
                              headers={"Authorization": f"Bearer {token}"}, timeout=60).json()

        admin, writer = graphql("admin-token"), graphql("writer-token")
        rest = httpx.get(f"{base}/api/changes/digest", params={"weeks": "2"},
                         headers={"Authorization": "Bearer admin-token"}, timeout=60).json()
        rest_writer = httpx.get(f"{base}/api/changes/digest", params={"weeks": "2"},
                                headers={"Authorization": "Bearer writer-token"}, timeout=60).json()
        too_many = httpx.get(f"{base}/api/changes/digest", params={"weeks": "10000"},
                             headers={"Authorization": "Bearer admin-token"}, timeout=60)
        not_a_number = graphql("admin-token", "{ changeDigest(weeks: 0) { start } }")
    cli = subprocess.run([sys.executable, "-m", "brain", "diff", str(root), "--digest", "--weeks", "2",
                          "--format", "json"], capture_output=True, text=True, timeout=120, check=False)
    assert cli.returncode == 0, cli.stderr
    weeks = json.loads(cli.stdout)["weeks"]
    assert [w["start"][:10] for w in weeks] == [
        dt.datetime.fromtimestamp(start, dt.UTC).date().isoformat() for start in week_starts(time.time(), 2)
    ]
    assert weeks[0]["end"][11:] == "23:59:59Z"  # a Sunday's last second: weeks never overlap
    last_week, this_week = weeks
    assert (last_week["notesAdded"], last_week["byOrigin"]) == (0, [])
    assert last_week["retention"] is not None  # before the first record: said
    assert {k: this_week[k] for k in ("notesAdded", "notesRemoved", "notesChanged", "linksBroken",
                                      "linksFixed", "byOrigin", "byAgent")} == {
        "notesAdded": 2, "notesRemoved": 0, "notesChanged": 0, "linksBroken": 0, "linksFixed": 0,
        "byOrigin": [{"origin": "tool", "count": 2}, {"origin": "ui", "count": 1}],
        "byAgent": [{"agent": "reviewer", "count": 1}, {"agent": "writer", "count": 2}],
    }
    def same(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in w.items() if k != "end"} for w in found]  # the current week ends now

    assert same(admin["data"]["changeDigest"]) == same(weeks) == same(rest["weeks"])  # one answer
    # An agent's token: its own scope and shared, never another agent's changes.
    for seen in (writer["data"]["changeDigest"][1], rest_writer["weeks"][1]):
        assert seen["byAgent"] == [{"agent": "writer", "count": 2}]
        assert seen["notesAdded"] == 1
    assert too_many.status_code == 400
    assert "ask for 1 to 104 weeks" in too_many.json()["error"]["message"]
    assert "ask for 1 to 104 weeks" in not_a_number["errors"][0]["message"]
    text = subprocess.run([sys.executable, "-m", "brain", "diff", str(root), "--digest", "--weeks", "1"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "+2 -0 ~0 notes; links 0 broken, 0 fixed" in text.stdout
    neither = subprocess.run([sys.executable, "-m", "brain", "diff", str(root)],
                             capture_output=True, text=True, timeout=120, check=False)
    assert neither.returncode == 2
    assert "give --since TIME" in neither.stderr
