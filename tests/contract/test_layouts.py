"""The contract suite per layout (tests/layout_specs.py): each layout's example workspace gives
the same graph and the same answer to every query in both stores, and random edits in the
layout's own folders end with the graph a full ingest of the final files gives."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import Workspace, answers, note
from tests.layout_specs import SPECS, LayoutSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(spec: LayoutSpec, into: Path) -> Path:
    source = EXAMPLES / ("workspace" if spec.name == "latchai" else spec.name)
    shutil.copytree(source, into)
    return into


def fresh(root: Path, spec: LayoutSpec) -> Brain:
    brain = Brain(root, MemoryStore(), spec.choice)
    brain.sync()
    return brain


def same_as_fresh(brain: Brain, store: GraphStore, expected: Brain) -> None:
    """The graph, the problems and every answer of `store` against a fresh full ingest's."""
    got, want = answers(store), answers(expected.store)  # the export is answers' first read
    assert got["export"] == want["export"]
    assert brain.problems() == expected.problems()
    assert got == want


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_the_example_then_random_edits_give_the_same_graph_and_answers(
    spec: LayoutSpec, store: GraphStore, tmp_path: Path
) -> None:
    """The example as the first check, then random edits in the layout's own folders from
    there. These were two tests, and each cleared the store and ingested the same example:
    the layout a Brain gets is fixed by its name when it is made, so the one ingest serves both."""
    root = example(spec, tmp_path / "ws")
    # The layout as a user's brain chooses it (brain.toml, else what the folders show): for
    # latchai this was tests/contract/test_ingest.py's example test, the same ingest and checks.
    brain = Brain(root, store)
    assert brain.layout.name == spec.name
    brain.sync()
    same_as_fresh(brain, store, fresh(root, spec))
    assert brain.stats().memories > 0

    ws = Workspace(root)
    rng = random.Random(17)
    names = ["alpha", "beta", "plan", "todo", "standup"]
    targets = [*names, "drafts/alpha", "/beta", "data.csv", "nothing", "agent:ann"]
    written: list[str] = []
    steps = 16
    for step in range(steps):
        action = rng.choice(["add", "add", "edit", "delete", "rename", "odd"])
        if action in ("edit", "delete", "rename") and written:
            victim = rng.choice(written)
        else:
            action = "add" if action != "odd" else action
        if action == "add":
            rel = spec.note(rng.choice(spec.scopes), f"{rng.choice(names)}-{step % 5}")
            body = " ".join(f"[[{rng.choice(targets)}]]" for _ in range(3))
            changed = [ws.write(rel, note(f"added {step}", body))]
            written.append(rel)
        elif action == "odd":
            changed = [ws.write(rng.choice(spec.odd_files), f"odd {step} [[alpha]]\n")]
        elif action == "edit":
            body = f"# H{step}\n[[{rng.choice(targets)}#H{step}]]"
            changed = [ws.write(victim, note(f"edited {step}", body))]
        elif action == "delete":
            changed = [ws.delete(victim)] if (root / victim).exists() else []
            written.remove(victim)
        else:
            new = spec.note(rng.choice(spec.scopes), f"moved-{step}")
            changed = ws.rename(victim, new) if (root / victim).exists() else []
            written.remove(victim)
            written.append(new)
        brain.sync(changed)
        expected = fresh(root, spec)
        if step < steps - 1:
            assert store.export() == expected.store.export(), f"step {step}: {action} {changed}"
    # The last step is compared through answers(), whose first read is the export: one full
    # ingest and one export of each store for it, not a second of each of the same files.
    got, want = answers(store), answers(expected.store)
    assert got["export"] == want["export"], f"step {step}: {action} {changed}"
    assert brain.problems() == expected.problems()
    assert got == want
