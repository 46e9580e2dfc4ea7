"""The lab layout (seeds/004, design.md section 8): what each file is, where links go, and
its rules as ingest applies them, as tables."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from brain.layouts import get_layout
from brain.layouts.lab import classify
from brain.model import Kind
from brain.service.brain import Brain
from tests.unit.layout_helpers import assert_role, ingest, links_of, write_files

CLASSIFY = [
    # rel -> (role kind, scope, name, node kind or problem code)
    ("MEMORY.md", ("memory", "main", "MEMORY", Kind.MEMORY)),
    ("agents/ops/MEMORY.md", ("memory", "ops", "MEMORY", Kind.MEMORY)),
    ("memory/2026-03-01.md", ("memory", "main", "2026-03-01", Kind.DAILY_NOTE)),
    ("memory/2026-02-30.md", ("problem", "", "", "daily-log-name")),
    ("memory/ideas.md", ("problem", "", "", "daily-log-name")),
    ("memory/2026-03-01.txt", ("problem", "", "", "daily-log-name")),
    ("memory/archive/2025-01-01.md", ("problem", "", "", "daily-log-name")),
    ("skills/deploy/SKILL.md", ("memory", "skills", "deploy", Kind.SKILL)),
    ("tools/backup/TOOL.md", ("memory", "tools", "backup", Kind.TOOL)),
    ("projects/atlas/architecture.md", ("memory", "project:atlas", "architecture", Kind.MEMORY)),
    ("projects/atlas/README.MD", ("memory", "project:atlas", "README", Kind.MEMORY)),
    ("projects/atlas/src/notes.md", ("ignored", "", "", None)),  # a project's code, not its notes
    ("projects/atlas/train.py", ("ignored", "", "", None)),
    ("skills/deploy/run.sh", ("ignored", "", "", None)),
    ("skills/deploy/TOOL.md", ("ignored", "", "", None)),
    ("skills/SKILL.md", ("ignored", "", "", None)),
    ("agents/ops/notes.md", ("ignored", "", "", None)),
    ("agents/ops.md", ("ignored", "", "", None)),
    ("docs/MEMORY.md", ("ignored", "", "", None)),
    ("README.md", ("ignored", "", "", None)),
    (".git/MEMORY.md", ("ignored", "", "", None)),
]


@pytest.mark.parametrize(("rel", "expected"), CLASSIFY)
def test_classify(rel: str, expected: tuple[str, str, str, object]) -> None:
    assert_role(classify(rel), expected)


SKILL = "---\nname: {0}\ndescription: d\n---\n## Triggers\n- {0} it\n"
FILES = {
    "MEMORY.md": (
        "# Lab\n## 2026-01-01 Facts\n[[deploy]] [[backup]] [[architecture]] [[2026-03-01]] [[notes]]\n"
        "[[skill:deploy]] [[tool:deploy]] [[MEMORY]] [[ops/MEMORY]] [[project:hydra/notes]]\n"
        "[[daily-note:2026-03-01]] [[agent:ops]] [[architecture#Nope]]\n"
    ),
    "agents/ops/MEMORY.md": "- 2026-01-02 [[2026-03-01]] [[MEMORY]] [[deploy]] [[memory:MEMORY]]\n",
    "memory/2026-03-01.md": "- ran [[deploy]], see [[MEMORY]]\n",
    "skills/deploy/SKILL.md": SKILL.format("deploy") + "Uses [[backup]] and [[architecture]].\n",
    "tools/backup/TOOL.md": "---\nname: backup\ndescription: d\n---\n[[deploy]] [[MEMORY]]\n",
    "projects/atlas/architecture.md": "# Architecture\n[[notes]] [[deploy]]\n",
    "projects/atlas/notes.md": "atlas notes\n",
    "projects/hydra/notes.md": "hydra notes [[notes]] [[architecture]]\n",
}

LINKS = [
    # (source id, raw) -> (status, target id, candidates)
    (("memory:main/MEMORY", "[[deploy]]"), ("resolved", "skill:skills/deploy", ())),
    (("memory:main/MEMORY", "[[backup]]"), ("resolved", "tool:tools/backup", ())),
    (("memory:main/MEMORY", "[[architecture]]"), ("resolved", "memory:project:atlas/architecture", ())),
    (("memory:main/MEMORY", "[[2026-03-01]]"), ("resolved", "daily-note:main/2026-03-01", ())),
    # Two projects' notes of one name, seen from outside both: ambiguous.
    (("memory:main/MEMORY", "[[notes]]"),
     ("ambiguous", "unresolved:notes", ("memory:project:atlas/notes", "memory:project:hydra/notes"))),
    (("memory:main/MEMORY", "[[skill:deploy]]"), ("resolved", "skill:skills/deploy", ())),
    (("memory:main/MEMORY", "[[tool:deploy]]"), ("broken", "unresolved:tool:deploy", ())),
    (("memory:main/MEMORY", "[[MEMORY]]"), ("resolved", "memory:main/MEMORY", ())),
    (("memory:main/MEMORY", "[[ops/MEMORY]]"), ("resolved", "memory:ops/MEMORY", ())),
    (("memory:main/MEMORY", "[[project:hydra/notes]]"), ("resolved", "memory:project:hydra/notes", ())),
    (("memory:main/MEMORY", "[[daily-note:2026-03-01]]"), ("resolved", "daily-note:main/2026-03-01", ())),
    (("memory:main/MEMORY", "[[agent:ops]]"), ("resolved", "agent:ops", ())),
    (("memory:main/MEMORY", "[[architecture#Nope]]"),
     ("missing-anchor", "memory:project:atlas/architecture", ())),
    # Daily logs and MEMORY.md belong to their agent: another agent's bare name misses them.
    (("memory:ops/MEMORY", "[[2026-03-01]]"),
     ("broken", "unresolved:2026-03-01", ("daily-note:main/2026-03-01",))),
    (("memory:ops/MEMORY", "[[MEMORY]]"), ("resolved", "memory:ops/MEMORY", ())),
    (("memory:ops/MEMORY", "[[deploy]]"), ("resolved", "skill:skills/deploy", ())),
    (("memory:ops/MEMORY", "[[memory:MEMORY]]"), ("resolved", "memory:ops/MEMORY", ())),
    (("daily-note:main/2026-03-01", "[[deploy]]"), ("resolved", "skill:skills/deploy", ())),
    (("daily-note:main/2026-03-01", "[[MEMORY]]"), ("resolved", "memory:main/MEMORY", ())),
    (("skill:skills/deploy", "[[backup]]"), ("resolved", "tool:tools/backup", ())),
    (("skill:skills/deploy", "[[architecture]]"), ("resolved", "memory:project:atlas/architecture", ())),
    (("tool:tools/backup", "[[MEMORY]]"),
     ("broken", "unresolved:memory", ("memory:main/MEMORY", "memory:ops/MEMORY"))),
    # A project's own notes come first.
    (("memory:project:atlas/architecture", "[[notes]]"), ("resolved", "memory:project:atlas/notes", ())),
    (("memory:project:hydra/notes", "[[notes]]"), ("resolved", "memory:project:hydra/notes", ())),
    (("memory:project:hydra/notes", "[[architecture]]"),
     ("resolved", "memory:project:atlas/architecture", ())),
]


def test_links(tmp_path: Path) -> None:
    store, _ = ingest(tmp_path, "lab", FILES)
    found = links_of(store)
    assert {key: found.get(key) for key, _ in LINKS} == dict(LINKS)


def test_nodes_agents_and_triggers(tmp_path: Path) -> None:
    store, ingester = ingest(tmp_path, "lab", FILES)
    assert sorted(a.name for a in store.list_agents()) == ["main", "ops"]
    nodes = store.get_nodes([
        "memory:main/MEMORY", "daily-note:main/2026-03-01", "skill:skills/deploy", "tool:tools/backup",
        "memory:project:atlas/notes",
    ])
    owners = {i: (n.kind, getattr(n, "owner", None)) for i, n in nodes.items()}
    assert owners == {
        "memory:main/MEMORY": (Kind.MEMORY, "main"),
        "daily-note:main/2026-03-01": (Kind.DAILY_NOTE, "main"),
        "skill:skills/deploy": (Kind.SKILL, None),
        "tool:tools/backup": (Kind.TOOL, None),
        "memory:project:atlas/notes": (Kind.MEMORY, None),
    }
    assert getattr(nodes["skill:skills/deploy"], "triggers", None) == ("deploy it",)
    assert ingester.problems() == []


def test_walk_reads_only_the_memory_layer(tmp_path: Path) -> None:
    """A project's code and a skill's scripts are never walked, however many files they hold."""
    files = {
        "MEMORY.md": "# Lab\n",
        "memory/2026-03-01.md": "day\n",
        "memory/old/plan.md": "misplaced\n",
        "skills/deploy/SKILL.md": SKILL.format("deploy"),
        "skills/deploy/scripts/run.sh": "echo\n",
        "projects/atlas/notes.md": "n\n",
        "projects/atlas/node_modules/x/README.md": "not a note\n",
        "agents/ops/MEMORY.md": "",
        "agents/ops/prompt.md": "not memory\n",
        "README.md": "the repository's readme\n",
    }
    write_files(tmp_path, files)
    os.symlink(tmp_path / "MEMORY.md", tmp_path / "projects" / "atlas" / "link.md")
    walked = sorted(s.rel for s in get_layout("lab").walk(tmp_path))
    assert walked == [
        "MEMORY.md", "agents/ops/MEMORY.md", "memory/2026-03-01.md", "memory/old/plan.md",
        "projects/atlas/link.md", "projects/atlas/notes.md", "skills/deploy/SKILL.md",
    ]


def test_rules_in_ingest(tmp_path: Path) -> None:
    files = {
        "MEMORY.md": "# Lab\n- undated fact\n## 2026-01-01 dated\n",
        "agents/ops/MEMORY.md": "## Undated section\n",
        "memory/2026-03-01.md": "- an undated line in a log is fine\n",
        "memory/todo.md": "x\n",
        "skills/deploy/SKILL.md": "---\nname: deploy\ndescription: d\n---\nno triggers\n",
        "tools/backup/TOOL.md": "# backup\n",
        "projects/atlas/notes.md": "- an undated line in a project note is fine\n",
    }
    store, ingester = ingest(tmp_path, "lab", files)
    problems = sorted((p.code, p.path, p.line) for p in [*store.problems(), *ingester.problems()])
    assert problems == [
        ("daily-log-name", "memory/todo.md", None),
        ("incomplete-skill", "skills/deploy/SKILL.md", 1),
        ("incomplete-skill", "tools/backup/TOOL.md", 1),
        ("undated-entry", "MEMORY.md", 2),
        ("undated-entry", "agents/ops/MEMORY.md", 1),
    ]


def test_rules_follow_unsaved_edits(tmp_path: Path) -> None:
    """What an editor shows as you type in MEMORY.md or a SKILL.md: the same rules, same code path."""
    write_files(tmp_path, {
        "MEMORY.md": "# Lab\n- 2026-01-01 dated\n", "skills/x/SKILL.md": SKILL.format("x"),
    })
    brain = Brain(tmp_path)
    brain.sync()
    assert brain.layout.name == "lab"
    assert brain.problems(["MEMORY.md", "skills/x/SKILL.md"]) == []
    brain.set_overlay("MEMORY.md", "# Lab\n- 2026-01-01 dated\n- not yet\n")
    brain.set_overlay("skills/x/SKILL.md", "---\nname: x\n---\n")
    assert [(p.code, p.path, p.line) for p in brain.problems(["MEMORY.md", "skills/x/SKILL.md"])] == [
        ("undated-entry", "MEMORY.md", 3), ("incomplete-skill", "skills/x/SKILL.md", 1),
    ]


def test_main_stays_while_its_memory_md_does(tmp_path: Path) -> None:
    """Deleting the daily logs' folder leaves `main` (and its REMEMBERS) to MEMORY.md."""
    write_files(tmp_path, {
        "MEMORY.md": "# Lab\n", "memory/2026-01-01.md": "day\n", "agents/ops/MEMORY.md": "",
    })
    brain = Brain(tmp_path)
    brain.sync()
    assert sorted(a.name for a in brain.store.list_agents()) == ["main", "ops"]
    shutil.rmtree(tmp_path / "memory")
    brain.sync(["memory/2026-01-01.md", "memory"])
    assert sorted(a.name for a in brain.store.list_agents()) == ["main", "ops"]
    shutil.rmtree(tmp_path / "agents" / "ops")
    brain.sync(["agents/ops"])
    assert [a.name for a in brain.store.list_agents()] == ["main"]


@pytest.mark.parametrize("keep_memory_md", [False, True])
def test_main_follows_its_files_on_a_named_sync(tmp_path: Path, keep_memory_md: bool) -> None:
    """`main` is made by MEMORY.md or memory/: a watcher's sync of just the deleted folder
    must agree with a full rescan (the random-operations machine found it did not)."""
    (tmp_path / "brain.toml").write_text('layout = "lab"\n')
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-03-01.md").write_text("- 2026-03-01 shipped\n")
    if keep_memory_md:
        (tmp_path / "MEMORY.md").write_text("# Memory\n\n- 2026-03-01 shipped\n")
    brain = Brain(tmp_path)
    brain.sync()
    assert brain.store.get_nodes(["agent:main"])
    shutil.rmtree(tmp_path / "memory")
    brain.sync(["memory"])
    full = Brain(tmp_path)
    full.sync()
    assert brain.store.export() == full.store.export()
    assert bool(brain.store.get_nodes(["agent:main"])) is keep_memory_md
