"""mindlink's rules (seeds/003, design.md section 8) as tables: input -> the exact problem."""

from __future__ import annotations

from datetime import date

import pytest

from brain.model import Problem, Severity
from brain.parse.note import parse_note
from brain.rules.mindlink import (
    Entry,
    duplicate_entries,
    expired_daily_note,
    feedback_incomplete,
    labelled_lines,
    not_a_memory,
)

PATH = "bot/memory/entries/x.md"
FM = "---\nname: x\ndescription: d\ntype: feedback\n---\n"

# ------------------------------------------------------------------ feedback-incomplete

LABELS = [
    ("Why: it broke prod\nHow to apply: always", {"Why:", "How to apply:"}),
    ("**Why:** it broke\n**How to apply:** always", {"Why:", "How to apply:"}),
    ("**Why**: it broke\n__How to apply__: always", {"Why:", "How to apply:"}),
    ("- Why: list item\n- How to apply: list", {"Why:", "How to apply:"}),
    ("> why: quoted, lower case\n1. how  to apply: numbered", {"Why:", "How to apply:"}),
    ("  Why: indented a little", {"Why:"}),
    ("The Why: is mid-line\nsee How to apply: mid-line", set()),
    ("Why it matters\nHow to apply it", set()),  # no colon: not the label
    ("```\nWhy: in code\nHow to apply: in code\n```", set()),
    ("~~~md\nWhy: in code\n~~~\nHow to apply: after the fence", {"How to apply:"}),
    ("```\nunclosed fence\nWhy: still code", set()),
    ("", set()),
]


@pytest.mark.parametrize(("body", "found"), LABELS)
def test_labelled_lines(body: str, found: set[str]) -> None:
    assert labelled_lines(body) == found


FEEDBACK = [
    (FM + "Use tabs.\nWhy: the linter.\nHow to apply: in every file.\n", None),
    (
        FM + "Use tabs.\nWhy: the linter.\n",
        Problem(
            "feedback-incomplete", Severity.ERROR, PATH,
            "a feedback entry must say why and how to apply it: no line starts with `How to apply:`",
            line=4, column=1, fix="add a line `How to apply: ...` to the body",
        ),
    ),
    (
        FM + "Use tabs.\n",
        Problem(
            "feedback-incomplete", Severity.ERROR, PATH,
            "a feedback entry must say why and how to apply it: no line starts with `Why:` and "
            "`How to apply:`",
            line=4, column=1,
            fix="add a line `Why: ...` and a line `How to apply: ...` to the body",
        ),
    ),
    ("---\ntype: user\n---\nno labels at all\n", None),  # only feedback entries need them
    ("no frontmatter, no type\n", None),
    ("---\ntype: Feedback\n---\nnot a valid type: invalid-frontmatter says so\n", None),
]


@pytest.mark.parametrize(("text", "expected"), FEEDBACK)
def test_feedback_incomplete(text: str, expected: Problem | None) -> None:
    assert feedback_incomplete(PATH, parse_note(text, PATH)) == expected


# ------------------------------------------------------------------ expired-daily-note

TODAY = date(2026, 3, 31)
EXPIRED = [
    (date(2026, 3, 31), 30, None),  # today
    (date(2026, 3, 1), 30, None),  # exactly 30 days: still kept
    (date(2026, 2, 28), 30, 31),  # 31 days: expired
    (date(2025, 3, 31), 30, 365),
    (date(2026, 3, 30), 0, 1),  # retain 0 days: only today's note stays
    (date(2026, 4, 2), 30, None),  # dated after today (a clock ahead): not expired
    (date(2025, 12, 31), 365, None),
]


@pytest.mark.parametrize(("day", "retain", "age"), EXPIRED)
def test_expired_daily_note(day: date, retain: int, age: int | None) -> None:
    path = f"bot/memory/{day.isoformat()}.md"
    problem = expired_daily_note(path, day, TODAY, retain)
    if age is None:
        assert problem is None
        return
    assert problem == Problem(
        "expired-daily-note", Severity.WARNING, path,
        f"daily note of {day.isoformat()} is {age} days old; daily notes are kept {retain} days "
        "(`daily_note_retain_days`)",
        fix="move what still matters into an entry under memory/entries/, then delete the note "
        "(`brain maintain --apply` deletes expired notes nothing links to)",
    )


# ------------------------------------------------------------------ duplicate-entry


def entry(path: str, body: str, mtime: float, agent: str = "bot") -> Entry:
    return Entry(f"{agent}/memory/entries/{path}.md", agent, body, mtime, body_line=5)


DUPLICATES = [
    # (entries, the paths reported, each with the newest copy it names)
    ([entry("a", "same", 1), entry("b", "other", 2)], []),
    ([entry("a", "same", 1), entry("b", "same", 2)], [("a", "b")]),
    ([entry("a", "same", 3), entry("b", "same", 2)], [("b", "a")]),
    ([entry("a", "  same\n\n", 1), entry("b", "\nsame  ", 2)], [("a", "b")]),  # trimmed
    ([entry("a", "sa me", 1), entry("b", "same", 2)], []),  # inner whitespace counts
    ([entry("a", "x", 1), entry("b", "x", 2), entry("c", "x", 3)], [("a", "c"), ("b", "c")]),
    ([entry("a", "x", 5), entry("b", "x", 5)], [("a", "b")]),  # equal times: the last path stays
    ([entry("b", "x", 5), entry("a", "x", 5)], [("a", "b")]),  # whatever the order given
    ([entry("a", "x", 1, "bot"), entry("a", "x", 2, "other")], []),  # another agent's copy
    ([entry("a", "", 1), entry("b", "  \n", 2)], []),  # empty bodies copy nothing
]


@pytest.mark.parametrize(("entries", "reported"), DUPLICATES)
def test_duplicate_entries(entries: list[Entry], reported: list[tuple[str, str]]) -> None:
    def full(name: str) -> str:
        return f"bot/memory/entries/{name}.md"

    assert duplicate_entries(entries) == [
        Problem(
            "duplicate-entry", Severity.WARNING, full(old),
            f"same body as {full(new)}, which is newer: this copy adds nothing",
            line=5, column=1, candidates=(full(new),),
            fix=f"delete this entry, or make it say something {full(new)} does not",
        )
        for old, new in reported
    ]


# ------------------------------------------------------------------ not-a-memory

NOT_A_MEMORY = [
    (
        "bot/memory/notes.txt",
        "not a memory: memory/ holds entries (memory/entries/<name>.md) and daily notes "
        "(memory/YYYY-MM-DD.md)",
        "move it to bot/memory/entries/notes.md if it is a memory, else out of memory/",
    ),
    (
        "bot/memory/todo.md",
        "not a memory: memory/ holds entries (memory/entries/<name>.md) and daily notes "
        "(memory/YYYY-MM-DD.md)",
        "move it to bot/memory/entries/todo.md if it is a memory, else out of memory/",
    ),
    (
        "bot/memory/2026-02-30.md",
        "named like a daily note, but 2026-02-30 is not a real date",
        "rename it to the day it was written, as bot/memory/YYYY-MM-DD.md",
    ),
    (
        "bot/memory/entries/pic.png",
        "not markdown: entries are .md files",
        "rename it to bot/memory/entries/pic.md if it is an entry, else move it out of memory/",
    ),
    (
        "bot/memory/entries/old/x.md",
        "in a nested folder: entries live directly in bot/memory/entries/",
        "move it to bot/memory/entries/x.md",
    ),
    (
        "bot/memory/archive/2025-01-01.md",
        "not a memory: memory/ holds entries (memory/entries/<name>.md) and daily notes "
        "(memory/YYYY-MM-DD.md)",
        "move it to bot/memory/entries/2025-01-01.md if it is a memory, else out of memory/",
    ),
]


@pytest.mark.parametrize(("rel", "message", "fix"), NOT_A_MEMORY)
def test_not_a_memory(rel: str, message: str, fix: str) -> None:
    under = rel.split("/")[2:]
    assert not_a_memory(rel, under) == Problem("not-a-memory", Severity.WARNING, rel, message, fix=fix)


@pytest.mark.parametrize("line", ["- " * 100_000 + "x", "*" * 200_000, "> " * 100_000 + "**Why"])
def test_a_hostile_line_is_one_short_look(line: str) -> None:
    """No backtracking over a line of markers (a timing-free check: the answer, on a big input)."""
    assert labelled_lines(line + "\n" + line) == set()
