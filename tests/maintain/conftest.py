"""Fixtures of the maintenance tests: a small workspace with a known mess, a fixed clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.tool import attach_memory_service
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW, write

AGENTS = {
    "writer": "---\ndescription: Writes release notes.\nmemory: true\n---\n",
    "reviewer": "---\ndescription: Reviews code.\nmemory: true\n---\n",
}


def note(description: str, body: str, kind: str = "project") -> str:
    return f"---\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"


def workspace_with(root: Path, files: dict[str, str | tuple[str, float]]) -> Path:
    """agents writer and reviewer (memory on), an empty shared folder, then `files`
    (text, or (text, age in days))."""
    for name, text in AGENTS.items():
        write(root, f"agents/{name}.md", text)
    (root / "memory" / "shared").mkdir(parents=True, exist_ok=True)
    for rel, spec in files.items():
        text, age = (spec, 1.0) if isinstance(spec, str) else spec
        write(root, rel, text, age_days=age)
    return root


def open_brain(root: Path, history: Path) -> tuple[Brain, MemoryService]:
    brain = Brain(root)
    brain.sync()
    service = MemoryService(root, brain, history=History(history), clock=lambda: NOW)
    attach_memory_service(brain, service)
    return brain, service


@pytest.fixture
def history_path(tmp_path: Path) -> Path:
    return tmp_path / "history.jsonl"
