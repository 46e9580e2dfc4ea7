"""examples/space end to end: `brain check` finds exactly its problems, on both stores, and
`brain serve` answers GraphQL with its File nodes (seeds/001, design.md section 8)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx

from brain.cli.check import CheckReport
from brain.layouts import choose_layout
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.api.test_cli_serve import brain_serve, wait_for_url

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "space"
EXPECTED = json.loads((Path(__file__).parent / "expected" / "space-check.json").read_text())
SPACE_CODES = {"path-too-long", "path-too-deep", "secret", "broken-link", "ambiguous-link",
               "missing-anchor", "invalid-frontmatter"}


def test_check_gives_exactly_the_expected_problems() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "brain", "check", str(EXAMPLE), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert (result.returncode, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert report == EXPECTED
    assert {p["code"] for p in report["problems"]} == SPACE_CODES
    assert report["summary"]["layout"] == "space"
    assert "ghp_" not in result.stdout, "a secret's value is never printed"


def test_both_stores_read_the_example_alike(store: GraphStore) -> None:
    brain = Brain(EXAMPLE, store, choose_layout(EXAMPLE))
    brain.sync()
    report = CheckReport(brain.stats(), brain.problems(), layout=brain.layout_choice)
    assert json.loads(report.to_json()) == EXPECTED
    reference = Brain(EXAMPLE, MemoryStore())
    reference.sync()
    assert store.export() == reference.store.export()
    files = {n.name: n for n in store.get_nodes([
        "file:researcher/images/panel.png", "file:researcher/downloads/datasheet.pdf",
        "file:researcher/cache/page.html", "file:researcher/data/prices.csv",
        "file:researcher/exports/vendor-call.md",
    ]).values()}
    assert {name: (f.media_type, f.binary) for name, f in files.items()} == {  # type: ignore[union-attr]
        "images/panel.png": ("image/png", True),
        "downloads/datasheet.pdf": ("application/pdf", True),
        "cache/page.html": ("text/html", True),  # Latin-1: not UTF-8, so binary
        "data/prices.csv": ("text/csv", False),
        # UTF-16, so NUL bytes: a File with metadata, never an invalid-encoding note
        "exports/vendor-call.md": ("text/markdown", True),
    }
    assert store.get_nodes(["memory:researcher/exports/vendor-call"]) == {}
    linked = store.links_from(["memory:researcher/notes"])["memory:researcher/notes"]
    assert [(link.status.value, link.target_id) for link in linked if "vendor-call" in link.raw] == [
        ("resolved", "file:researcher/exports/vendor-call.md"),
    ]


def test_serve_answers_graphql_with_the_file_nodes(tmp_path: Path) -> None:
    query = """{
      layout { name detected reason }
      panel: node(id: "file:researcher/images/panel.png") {
        __typename id ... on File { name path size mediaType binary backlinks { source { id } } }
      }
      plan: node(id: "memory:researcher/projects/solar/plan") {
        ... on Memory { links { status target { __typename ... on File { mediaType } } } }
      }
    }"""
    # A copy: a served workspace gets brain's history and first versions under .brain/, and
    # a test never writes into the repository (tests/conftest.py fails the run if it does).
    root = shutil.copytree(EXAMPLE, tmp_path / "space", symlinks=True)
    with brain_serve(str(root), "--port", "0") as process:
        url = wait_for_url(process)
        health = httpx.get(url.replace("/graphql", "/healthz")).json()
        answer = httpx.post(url, json={"query": query}).json()
    assert (health["status"], health["layout"]) == ("ready", "space")
    assert "errors" not in answer, answer
    data = answer["data"]
    assert data["layout"] == {
        "name": "space", "detected": False, "reason": 'layout = "space" in brain.toml',
    }
    assert data["panel"] == {
        "__typename": "File", "id": "file:researcher/images/panel.png", "name": "images/panel.png",
        "path": "researcher/memory/images/panel.png", "size": 29, "mediaType": "image/png",
        "binary": True, "backlinks": [{"source": {"id": "memory:researcher/projects/solar/plan"}}],
    }
    targets = [(link["status"], link["target"]["__typename"]) for link in data["plan"]["links"]]
    assert targets == [
        ("RESOLVED", "File"), ("RESOLVED", "File"), ("RESOLVED", "Memory"), ("RESOLVED", "Memory"),
        ("MISSING_ANCHOR", "Memory"), ("RESOLVED", "Agent"),
    ]
