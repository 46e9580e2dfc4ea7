"""`brain serve examples/lab` (and examples/mindlink) as users run it: a real process and real
HTTP, answering GraphQL with the layouts' node kinds (DailyNote, Skill, Tool, project notes).

Each serves a copy (with the files' times): a served workspace gets brain's history in its
`.brain/`, and no test writes into the repository (tests/repo_guard.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx

from tests.api.test_cli_serve import brain_serve, wait_for_url
from tests.e2e.test_check_layouts import LAB, MINDLINK

LAB_QUERY = """{
  layout { name }
  skill: node(id: "skill:skills/deploy") {
    __typename id
    ... on Skill { name description triggers path owner { name } backlinks { text source { id } } }
  }
  log: node(id: "daily-note:main/2026-12-01") {
    __typename
    ... on DailyNote {
      date owner { name } problems { code line }
      links { text status target { __typename ... on Skill { id } ... on Memory { id } } }
    }
  }
  tool: node(id: "tool:tools/backup") { __typename ... on Tool { triggers problems { code line } } }
  project: node(id: "memory:project:atlas/architecture") {
    __typename ... on Memory { scope owner { name } }
  }
  main: agent(name: "main") { memories(first: 10) { nodes { id } } }
  undated: problems(code: "undated-entry") { nodes { path line } }
}"""


def ask(example: Path, tmp_path: Path, query: str) -> dict[str, Any]:
    root = shutil.copytree(example, tmp_path / example.name)  # copy2: the files' times too
    with brain_serve(str(root), "--port", "0") as process:
        url = wait_for_url(process)
        answer = httpx.post(url, json={"query": query}, timeout=30)
    body: dict[str, Any] = answer.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def test_serve_lab_answers_with_daily_notes_skills_and_tools(tmp_path: Path) -> None:
    data = ask(LAB, tmp_path, LAB_QUERY)
    assert data["layout"] == {"name": "lab"}
    assert data["skill"] == {
        "__typename": "Skill", "id": "skill:skills/deploy", "name": "deploy",
        "description": "Deploy a trained model to the serving box (lab-2) with a rollback point",
        "triggers": ["deploy <model>", "ship the new checkpoint", "roll out atlas-v<N>"],
        "path": "skills/deploy/SKILL.md", "owner": None,
        "backlinks": [
            {"text": "[[deploy]]", "source": {"id": source}}
            for source in (
                "daily-note:main/2026-12-01", "memory:main/MEMORY", "memory:project:atlas/atlas-pitfalls",
                "memory:project:hydra/hydra-overview",
            )
        ],
    }
    assert data["log"] == {
        "__typename": "DailyNote", "date": "2026-12-01", "owner": {"name": "main"},
        "problems": [{"code": "secret", "line": 5}],
        "links": [
            {"text": "[[architecture#Evaluation]]", "status": "RESOLVED",
             "target": {"__typename": "Memory", "id": "memory:project:atlas/architecture"}},
            {"text": "[[deploy]]", "status": "RESOLVED",
             "target": {"__typename": "Skill", "id": "skill:skills/deploy"}},
        ],
    }
    assert data["tool"] == {
        "__typename": "Tool", "triggers": [], "problems": [{"code": "incomplete-skill", "line": 1}],
    }
    assert data["project"] == {"__typename": "Memory", "scope": "project:atlas", "owner": None}
    assert data["main"]["memories"]["nodes"] == [
        {"id": "daily-note:main/2026-11-30"}, {"id": "daily-note:main/2026-12-01"},
        {"id": "memory:main/MEMORY"},
    ]
    assert data["undated"]["nodes"] == [
        {"path": "MEMORY.md", "line": 13}, {"path": "agents/ops/MEMORY.md", "line": 5},
    ]


def test_serve_mindlink_answers_with_entries_and_daily_notes(tmp_path: Path) -> None:
    data = ask(MINDLINK, tmp_path, """{
      layout { name }
      day: node(id: "daily-note:concierge/2026-12-01") {
        __typename ... on DailyNote { date owner { name } links { targetId status } }
      }
      entry: node(id: "memory:concierge/no-weekend-pings") {
        __typename ... on Memory { type owner { name } problems { code line } }
      }
    }""")
    assert data == {
        "layout": {"name": "mindlink"},
        "day": {
            "__typename": "DailyNote", "date": "2026-12-01", "owner": {"name": "concierge"},
            "links": [{"targetId": "daily-note:concierge/2026-11-30", "status": "RESOLVED"}],
        },
        "entry": {
            "__typename": "Memory", "type": "FEEDBACK", "owner": {"name": "concierge"},
            "problems": [{"code": "feedback-incomplete", "line": 4}],
        },
    }
