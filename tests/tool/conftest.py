"""Fixtures of the memory tool tests: a small workspace, a fixed clock, a tool over it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.history.log import History
from brain.tool.service import MemoryService

NOW = 1_793_491_200.0  # 2026-11-01T00:00:00Z
DAY = 86_400

STYLE = (
    "---\n"
    "description: House style for release notes — headline first, no exclamation marks.\n"
    "type: feedback\n"
    "---\n"
    "\n"
    "# House style\n"
    "\n"
    "- Headline first.\n"
    "- No exclamation marks.\n"
    "- Costs are written as $$ or $1 per job.\n"
)
SHORT = "---\ndescription: Maya wants short answers.\ntype: user\n---\n\nConclusion first.\n"


def write(root: Path, rel: str, text: str, age_days: float | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if age_days is not None:
        stamp = NOW - age_days * DAY
        os.utime(path, (stamp, stamp))
    return path


def make_workspace(root: Path) -> Path:
    """writer: memory on; quiet: defined without memory; old-bot: a folder, no definition."""
    write(root, "agents/writer.md", "---\ndescription: Writes release notes.\nmemory: true\n---\n")
    write(root, "agents/reviewer.md", "---\ndescription: Reviews code.\nmemory: true\n---\n")
    write(root, "agents/quiet.md", "---\ndescription: No memory.\n---\n")
    write(root, "memory/writer/house-style.md", STYLE, age_days=3)
    write(root, "memory/shared/prefers-short-answers.md", SHORT, age_days=20)
    write(root, "memory/reviewer/private-notes.md", "---\ndescription: Private.\n---\nsecret plan\n", 1)
    write(root, "memory/old-bot/leftover.md", "Leftover note from a retired bot\n", age_days=400)
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


@pytest.fixture
def history(tmp_path: Path) -> History:
    return History(tmp_path / "history" / "history.jsonl")


@pytest.fixture
def brain(workspace: Path) -> Brain:
    made = Brain(workspace)
    made.sync()
    return made


@pytest.fixture
def service(workspace: Path, brain: Brain, history: History) -> MemoryService:
    return MemoryService(workspace, brain, history=history, clock=lambda: NOW)


@pytest.fixture
def tool(service: MemoryService) -> MemoryTool:
    return MemoryTool(service)


class ClockedTool:
    """An admin's memory tool over a synced brain, on a clock the test moves (`at`): each
    write is recorded at the clock's time, so a test builds a timeline of known moments."""

    def __init__(self, root: Path, brain: Brain, history: History | None = None) -> None:
        self.at = NOW
        self.service = MemoryService(root, brain, history=history, clock=lambda: self.at)
        attach_memory_service(brain, self.service)
        self.tool = MemoryTool(self.service)

    def write(self, agent: str, payload: dict[str, str]) -> None:
        result = self.tool.run(agent, payload, actor=Actor.admin())
        assert result.ok, result.text
