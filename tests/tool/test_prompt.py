"""The prompt index: exact bytes, clipping, ages, and determinism."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain.tool.history.log import History
from brain.tool.prompt import human_age
from brain.tool.service import MemoryService
from tests.tool.conftest import DAY, NOW, make_workspace, write

EXPECTED = """\
## Your memory

Your memory is markdown files you reach with the memory tool: /memories/<file>.md is your own \
folder, /memories/shared/<file>.md is shared with every agent that has memory. Below is the \
index of every file (path — description (age)); read a file with view when you need it.

/memories/house-style.md — House style for release notes — headline first, no exclamation marks. (3 days ago)
/memories/shared/prefers-short-answers.md — Maya wants short answers. (2 weeks ago)

House rules:
- View the memories relevant to the task before you start working.
- Treat memories as point-in-time notes: they were true when written, so check anything that may \
have changed since.
- Update a note with str_replace rather than writing a duplicate.
- Delete a note that proves wrong.
- One topic per file, with a kebab-case name such as /memories/release-checklist.md.
- Start each file with its frontmatter: a `---` line, `description: <one line>`, \
`type: user | feedback | project | reference`, and a closing `---` line.
- Link related notes with [[wikilinks]], e.g. [[release-checklist]].
- Put user-level facts, true for every agent, in /memories/shared/.
- Never store secrets: no passwords, API keys, tokens or private keys.
"""


@pytest.fixture
def service(tmp_path: Path) -> MemoryService:
    root = make_workspace(tmp_path / "ws")
    return MemoryService(root, history=History(tmp_path / "h.jsonl"), clock=lambda: NOW)


def test_the_block_word_for_word(service: MemoryService) -> None:
    assert service.prompt("writer") == EXPECTED


def test_only_the_index_never_the_bodies(service: MemoryService) -> None:
    block = service.prompt("writer")
    assert block is not None
    assert "Costs are written" not in block
    assert "Conclusion first." not in block
    assert "secret plan" not in block  # another agent's note


def test_same_files_and_clock_same_bytes(service: MemoryService, tmp_path: Path) -> None:
    first = service.prompt("writer")
    other = MemoryService(service.root, history=History(tmp_path / "other.jsonl"), clock=lambda: NOW)
    assert other.prompt("writer") == first
    assert service.prompt("writer", now=NOW + 3600) == first  # an hour later: same block


def test_descriptions_are_clipped_and_missing_ones_marked(service: MemoryService) -> None:
    long = "A very long description " * 10
    write(service.root, "memory/writer/long.md", f"---\ndescription: {long}\n---\n", age_days=0)
    write(service.root, "memory/writer/empty.md", "", age_days=1)
    write(service.root, "memory/writer/old-style.md", "\n\n# Written before frontmatter\nbody\n", 800)
    block = service.prompt("writer")
    assert block is not None
    lines = {line.split(" — ")[0]: line for line in block.splitlines() if line.startswith("/memories/")}
    description = lines["/memories/long.md"].split(" — ", 1)[1].rsplit(" (", 1)[0]
    assert len(description) == 120
    assert description.endswith("…")
    assert lines["/memories/empty.md"] == "/memories/empty.md — (no description) (1 day ago)"
    assert lines["/memories/old-style.md"] == (
        "/memories/old-style.md — Written before frontmatter (2 years ago)"
    )


def test_memory_off_agents_get_no_block(service: MemoryService) -> None:
    assert service.prompt("old-bot") is None
    assert service.prompt("quiet") is None


def test_an_agent_without_notes_is_told_how_to_start(service: MemoryService) -> None:
    os.remove(service.root / "memory/shared/prefers-short-answers.md")
    block = service.prompt("reviewer")
    assert block is not None
    assert "/memories/private-notes.md — Private. (1 day ago)" in block
    os.remove(service.root / "memory/reviewer/private-notes.md")
    empty = service.prompt("reviewer")
    assert empty is not None
    assert "(no memories yet: create one with create /memories/<topic>.md)" in empty


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(-50, "today"), (0, "today"), (DAY - 1, "today"), (DAY, "1 day ago"), (13 * DAY, "13 days ago"),
     (14 * DAY, "2 weeks ago"), (59 * DAY, "8 weeks ago"), (60 * DAY, "2 months ago"),
     (729 * DAY, "24 months ago"), (730 * DAY, "2 years ago")],
)
def test_ages(seconds: float, text: str) -> None:
    assert human_age(seconds) == text
