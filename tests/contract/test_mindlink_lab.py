"""examples/mindlink and examples/lab in both stores: the same graph, problems and answers,
after a full ingest and after each edit a user makes (each compared with a fresh ingest)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.base import GraphStore
from tests.contract.helpers import Workspace, answers, reference

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

Edit = Callable[[Workspace], object]

LAB_EDITS: list[tuple[str, Edit]] = [
    # A skill named like a tool: `[[backup]]` from every note is now ambiguous.
    ("a skill named like a tool", lambda ws: ws.write(
        "skills/backup/SKILL.md",
        "---\nname: backup\ndescription: Back up a model\n---\n## Triggers\n- back it up\n",
    )),
    ("the tool goes: the skill is all that is left", lambda ws: ws.delete("tools/backup/TOOL.md")),
    ("a project note of an existing name", lambda ws: ws.write(
        "projects/hydra/architecture.md", "# Hydra architecture\n[[hydra-config]]\n",
    )),
    ("MEMORY.md rewritten", lambda ws: ws.write(
        "MEMORY.md", "# Lab\n- 2026-12-01 see [[architecture#Evaluation]] and [[2026-11-30]]\n- undated\n",
    )),
    ("a daily log deleted", lambda ws: ws.delete("memory/2026-11-30.md")),
    ("a misnamed log renamed to its day", lambda ws: ws.rename("memory/ideas.md", "memory/2026-11-29.md")),
    ("an agent's MEMORY.md", lambda ws: ws.write("agents/writer/MEMORY.md", "## 2026-12-01 [[deploy]]\n")),
]

MINDLINK_EDITS: list[tuple[str, Edit]] = [
    ("the newer copy of the duplicate goes", lambda ws: ws.delete("concierge/memory/entries/reply-style.md")),
    ("a feedback entry completed", lambda ws: ws.write(
        "concierge/memory/entries/no-weekend-pings.md",
        "---\nname: no-weekend-pings\ndescription: d\ntype: feedback\n---\nNo pings.\nWhy: rest\n"
        "How to apply: queue for Monday\n",
    )),
    ("a new daily note the others link to", lambda ws: ws.write(
        "concierge/memory/2026-11-29.md", "# 2026-11-29\n[[q4-launch]] [[reply-style]]\n",
    )),
    ("an entry renamed", lambda ws: ws.rename(
        "concierge/memory/entries/q4-launch.md", "concierge/memory/entries/launch.md",
    )),
    ("a stray file made an entry", lambda ws: ws.rename(
        "concierge/memory/scratch.txt", "concierge/memory/entries/scratch.md",
    )),
    ("a new agent", lambda ws: ws.write("writer/memory/entries/q4-launch.md", "[[data-sources]]\n")),
]


def copy_example(name: str, tmp_path: Path) -> Workspace:
    root = tmp_path / name
    shutil.copytree(EXAMPLES / name, root)
    return Workspace(root)


def same_as_fresh(brain: Brain, store: GraphStore) -> None:
    expected = reference(brain.root)
    # answers() reads the export first: compared on its own first, as the graph (not exported
    # twice from the same store in a row, one Neo4j export a step).
    got, want = answers(store), answers(expected.store)
    assert got["export"] == want["export"]
    assert brain.problems() == expected.problems()
    assert got == want


@pytest.mark.parametrize(("name", "edits"), [("lab", LAB_EDITS), ("mindlink", MINDLINK_EDITS)])
def test_example_and_its_edits_in_both_stores(
    store: GraphStore, tmp_path: Path, name: str, edits: list[tuple[str, Edit]]
) -> None:
    ws = copy_example(name, tmp_path)
    brain = Brain(ws.root, store)
    brain.sync()
    assert brain.layout.name == name
    same_as_fresh(brain, store)
    for _, edit in edits:
        changed = edit(ws)
        brain.sync(changed if isinstance(changed, list) else [str(changed)])
        same_as_fresh(brain, store)


def test_lab_ambiguity_comes_and_goes(store: GraphStore, tmp_path: Path) -> None:
    """What the edits above do to one link, spelled out."""
    ws = copy_example("lab", tmp_path)
    brain = Brain(ws.root, store)
    brain.sync()

    def backup_link() -> tuple[str, str]:
        link = next(
            link for link in store.links_from(["memory:ops/MEMORY"])["memory:ops/MEMORY"]
            if link.target == "backup"
        )
        return link.status.value, link.target_id

    assert backup_link() == ("resolved", "tool:tools/backup")
    brain.sync([LAB_EDITS[0][1](ws)])  # type: ignore[list-item]
    assert backup_link() == ("ambiguous", "unresolved:backup")
    brain.sync([LAB_EDITS[1][1](ws)])  # type: ignore[list-item]
    assert backup_link() == ("resolved", "skill:skills/backup")
