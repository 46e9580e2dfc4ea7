"""The lab's rules (seeds/004, design.md section 8) as tables: input -> the exact problem."""

from __future__ import annotations

from datetime import date

import pytest

from brain.model import Problem, Severity
from brain.rules.dates import daily_name_date, first_date
from brain.rules.lab import daily_log_name, incomplete_skill, memory_entries, triggers, undated_entries

# ------------------------------------------------------------------ dates

NAMES = [
    ("2026-03-01.md", date(2026, 3, 1)),
    ("2024-02-29.md", date(2024, 2, 29)),  # a leap day
    ("2025-02-29.md", None),
    ("2026-13-01.md", None),
    ("2026-3-1.md", None),
    ("2026-03-01.txt", None),
    ("2026-03-01.md.bak", None),
    ("x2026-03-01.md", None),
    ("notes.md", None),
]


@pytest.mark.parametrize(("name", "day"), NAMES)
def test_daily_name_date(name: str, day: date | None) -> None:
    assert daily_name_date(name) == day


FIRST_DATES = [
    ("## 2026-03-01 ports", (date(2026, 3, 1), None)),
    ("- (2026-03-01) moved", (date(2026, 3, 1), None)),
    ("- moved on 2026-02-30, then 2026-03-02", (date(2026, 3, 2), None)),
    ("- moved on 2026-02-30", (None, "2026-02-30")),
    ("- v12026-03-01 is not a date", (None, None)),
    ("- build 2026-03-01-rc is not a date", (None, None)),
    ("- undated", (None, None)),
]


@pytest.mark.parametrize(("text", "found"), FIRST_DATES)
def test_first_date(text: str, found: tuple[date | None, str | None]) -> None:
    assert first_date(text) == found


# ------------------------------------------------------------------ daily-log-name

DAILY_LOG = [
    (
        "memory/notes.md",
        "not a daily log: files in memory/ are named after their UTC day, YYYY-MM-DD.md",
        "rename it to memory/YYYY-MM-DD.md if it is a day's log; durable facts go in MEMORY.md, "
        "project notes in projects/<project>/",
    ),
    (
        "memory/2026-02-30.md",
        "named like a daily log, but 2026-02-30 is not a real date",
        "rename it to the UTC day it records, as memory/YYYY-MM-DD.md",
    ),
    (
        "memory/archive/2024-01-01.md",
        "in a nested folder: daily logs live directly in memory/",
        "move it to memory/2024-01-01.md",
    ),
    (
        "memory/old/plan.md",
        "in a nested folder: daily logs live directly in memory/",
        "move it out of memory/ (project notes go in projects/<project>/)",
    ),
]


@pytest.mark.parametrize(("rel", "message", "fix"), DAILY_LOG)
def test_daily_log_name(rel: str, message: str, fix: str) -> None:
    assert daily_log_name(rel) == Problem("daily-log-name", Severity.WARNING, rel, message, fix=fix)


# ------------------------------------------------------------------ undated-entry

MEMORY_MD = """\
---
owner: main
---
# Lab memory

- 2026-01-04 the GPU box is `lab-1`
- the NAS mounts at /mnt/nas
  continued on an indented line, not a new entry
  - 2026-01-01 a nested item is part of its parent

## 2026-01-05 Ports
- every item inside a dated section is part of it

## Conventions
Text.

### 2026-02-01 a subsection is part of Conventions

```
## not a heading in code
- not an item in code
```

# Second part
* item after a level-1 heading, outside any ## section
1. a numbered item, dated 2026-02-30
## Decision on 2026-02-02
"""


def test_memory_entries() -> None:
    assert [(e.line, e.kind) for e in memory_entries(MEMORY_MD)] == [
        (6, "item"), (7, "item"), (11, "section"), (14, "section"), (25, "item"), (26, "item"),
        (27, "section"),
    ]


def test_undated_entries() -> None:
    path = "MEMORY.md"

    def undated(line: int, message: str, length: int, where: str) -> Problem:
        return Problem(
            "undated-entry", Severity.WARNING, path, message, line=line, column=1, length=length,
            fix=f"add the day it was learned to the entry's {where}, as YYYY-MM-DD",
        )

    assert undated_entries(path, MEMORY_MD) == [
        undated(7, "entry (list item) without a date: every MEMORY.md entry is timestamped",
                len("- the NAS mounts at /mnt/nas"), "first line"),
        undated(14, "entry (section) without a date: every MEMORY.md entry is timestamped",
                len("## Conventions"), "heading"),
        undated(25, "entry (list item) without a date: every MEMORY.md entry is timestamped",
                len("* item after a level-1 heading, outside any ## section"), "first line"),
        undated(26, "entry (list item) dated 2026-02-30, which is not a real date",
                len("1. a numbered item, dated 2026-02-30"), "first line"),
    ]


@pytest.mark.parametrize("text", ["", "# Only a title\n\nProse, no entries.\n", "---\na: b\n---\n"])
def test_no_entries_no_problems(text: str) -> None:
    assert undated_entries("MEMORY.md", text) == []


# ------------------------------------------------------------------ incomplete-skill

SKILL_OK = "---\nname: deploy\ndescription: Ships a build\n---\n# Deploy\n\n## Triggers\n- ship it\n"

SKILLS = [
    (SKILL_OK, "skill", None),
    ("---\nname: deploy\ndescription: d\ntriggers: [ship it]\n---\nbody\n", "skill", None),
    ("---\nname: deploy\ndescription: d\n---\n## When to use\n- shipping\n", "skill", None),
    ("---\nname: deploy\ndescription: d\n---\n### Trigger phrases\nship it\n", "skill", None),
    ("---\nname: grep\ndescription: d\n---\nno triggers needed for a tool\n", "tool", None),
    (
        "---\nname: deploy\n---\n## Triggers\n- ship\n", "skill",
        ("lacks `description`", 1, "add `description: ...` to the frontmatter"),
    ),
    (
        "---\nname: deploy\ndescription: '  '\n---\n## Triggers\n- ship\n", "skill",
        ("lacks `description`", 3, "add `description: ...` to the frontmatter"),
    ),
    (
        "# Deploy\nShips a build.\n", "skill",
        ("lacks `name`, `description`, `triggers`", 1,
         "add `name: ...` and `description: ...` to the frontmatter; add a `## Triggers` "
         "section listing the phrases that call for this skill"),
    ),
    (
        "---\nname: deploy\ndescription: d\n---\nintro\n\n## Triggers\n\n## Steps\n- run\n", "skill",
        ("lacks `triggers`", 7, "list the phrases that call for this skill under its triggers heading"),
    ),
    (
        "---\nname: deploy\ndescription: d\n---\n```\n## Triggers\n- in code\n```\n", "skill",
        ("lacks `triggers`", 1,
         "add a `## Triggers` section listing the phrases that call for this skill"),
    ),
    (
        "---\ndescription: d\ntriggers: []\n---\n", "tool",
        ("lacks `name`", 1, "add `name: ...` to the frontmatter"),
    ),
    (
        "---\nname: [unclosed\n---\n", "tool",  # YAML that does not parse names nothing
        ("lacks `name`, `description`", 2,
         "add `name: ...` and `description: ...` to the frontmatter"),
    ),
]


@pytest.mark.parametrize(("text", "kind", "expected"), SKILLS)
def test_incomplete_skill(text: str, kind: str, expected: tuple[str, int, str] | None) -> None:
    file = "SKILL.md" if kind == "skill" else "TOOL.md"
    path = f"{kind}s/deploy/{file}"
    problem = incomplete_skill(path, text, kind)
    if expected is None:
        assert problem is None
        return
    lacks, line, fix = expected
    assert problem == Problem(
        "incomplete-skill", Severity.ERROR, path,
        f"this {file} {lacks}: the agent cannot tell what it is or when to use it",
        line=line, column=1, fix=fix,
    )


TRIGGERS = [
    (SKILL_OK.split("---\n", 2)[2], None, ("ship it",)),
    ('## Triggers\n- "deploy <model>"\n* ship the\n  checkpoint\n1. roll out\n## Steps\n- run\n', None,
     ("deploy <model>", "ship the", "roll out")),
    ("### When to use\n- a\n#### Examples\n- b\n## Next\n- c\n", None, ("a", "b")),
    ("```\n## Triggers\n- in code\n```\n", None, ()),
    ("## Triggers\n- from the body\n", ["from", " frontmatter "], ("from", "frontmatter")),
    ("", "one phrase", ("one phrase",)),
    ("## Triggers\n" + "- x\n" * 80, None, ("x",) * 50),
]


@pytest.mark.parametrize(("body", "front", "expected"), TRIGGERS)
def test_triggers(body: str, front: object, expected: tuple[str, ...]) -> None:
    assert triggers(body, front) == expected


def test_undated_entries_are_capped_per_file() -> None:
    text = "".join(f"- fact {i}\n" for i in range(10_000))
    found = undated_entries("MEMORY.md", text)
    assert [p.line for p in found] == list(range(1, 51))
